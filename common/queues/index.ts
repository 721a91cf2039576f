import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

/** Queue names: the contract between the API (producer) and the worker processes (consumers). */
export const QUEUES = {
  enrichment: 'evidence-enrichment',
  review: 'admin-review',
  webhooks: 'webhook-delivery',
  /** Finished matches (issue 54): the highest volume, so workers of its own kind, scaled on their own. */
  matches: 'match-results',
} as const;
export type QueueKey = keyof typeof QUEUES;
export type QueueName = (typeof QUEUES)[QueueKey];

export const JOB_NAMES = {
  /** One job for the offenses of a batch of reports (of one queue shard), since batch jobs (pt_file_reports Version 2). */
  enrichOffenses: 'enrich-offenses',
  reviewOffenses: 'review-offenses',
  /** One job an offense: what earlier releases wrote; workers still run them. */
  enrichEvidence: 'enrich-evidence',
  reviewOffense: 'review-offense',
  deliverWebhook: 'deliver-webhook',
  /** Scheduled on the review queue: players with a clean record earn points back. */
  trustRecovery: 'trust-recovery',
  /** Delayed on the review queue until a sanction's expiry: announces sanction.expired. */
  sanctionExpiry: 'sanction-expiry',
  /** On the review queue: applies a confirmed erasure of a player (common/lifecycles/erasure.ts). */
  erasePlayer: 'erase-player',
  /** Scheduled on the review queue: removes what is past its retention window (common/lifecycles/retention.ts). */
  retention: 'retention',
  /** Delayed on the review queue until a ban wave's time: places its sanctions, or revokes them on a roll back. */
  runWave: 'run-wave',
  /**
   * On the review queue: rules weigh open cases, scheduled (every RULES_SCHEDULE_INTERVAL_MS) or after
   * a sanction was placed on a player (docs/moderators.md "Rules": triggers).
   */
  weighRules: 'weigh-rules',
  /** On the webhooks queue (outbound HTTP): a platform's pending statements to the DSA Transparency Database. */
  submitStatements: 'submit-statements',
  /** On the webhooks queue (outbound): one e-mail to a notifier (common/lifecycles/notifier-mail.ts). */
  sendMail: 'send-mail',
  /** On the matches queue: a batch of matches the API accepted (common/usecases/matches.ts). */
  recordMatches: 'record-matches',
  /** On the review queue: the conduct summaries of a restriction that began (common/lifecycles/conduct.ts). */
  summarizeConduct: 'summarize-conduct',
} as const;

/**
 * The job names this release's workers run, by queue. A worker handed any other name (a newer
 * release's job, during a rollback) does not fail it: it puts it back for a worker that knows it
 * (worker/run.ts).
 */
export const JOBS_OF_QUEUE: Readonly<Record<QueueName, readonly string[]>> = {
  [QUEUES.enrichment]: [JOB_NAMES.enrichOffenses, JOB_NAMES.enrichEvidence],
  [QUEUES.review]: [
    JOB_NAMES.reviewOffenses,
    JOB_NAMES.reviewOffense,
    JOB_NAMES.trustRecovery,
    JOB_NAMES.sanctionExpiry,
    JOB_NAMES.erasePlayer,
    JOB_NAMES.retention,
    JOB_NAMES.runWave,
    JOB_NAMES.weighRules,
    JOB_NAMES.summarizeConduct,
  ],
  [QUEUES.webhooks]: [JOB_NAMES.deliverWebhook, JOB_NAMES.submitStatements, JOB_NAMES.sendMail],
  [QUEUES.matches]: [JOB_NAMES.recordMatches],
};

/** How long a job of a kind a worker does not know waits before a worker looks at it again. */
export const UNKNOWN_JOB_WAIT_MS = 60_000;

/** Payload of a webhook delivery job: the delivery row holds the event and the target. */
export interface WebhookJobData {
  deliveryId: string;
  /** The endpoint's webhook, for its lane without a read (absent in the jobs of earlier releases). */
  webhookId?: string;
}

/**
 * Payload of the offense jobs: the offenses of a batch of reports (`offenseIds`, in the order they
 * were filed), or one offense (`offenseId`, the jobs of earlier releases). The worker reads
 * everything else from the database.
 */
export type OffenseJobData = { offenseIds: string[] } | { offenseId: string };

/**
 * The jobs a batch of reports owes, one of each a queue shard: the report statement
 * (pt_file_reports) writes their outbox rows, each under the id `<queue>-b-<first offense id>`
 * (offenseBatchJobId), so adding the same job twice is a no-op in BullMQ. Offense ids are random, so
 * such an id never comes back, even after a restore.
 */
export const OFFENSE_BATCH_JOBS = [
  { queue: QUEUES.enrichment, job_name: JOB_NAMES.enrichOffenses },
  { queue: QUEUES.review, job_name: JOB_NAMES.reviewOffenses },
] as const;

export const offenseBatchJobId = (queue: QueueName, firstOffenseId: string) => `${queue}-b-${firstOffenseId}`;

export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  // Completed jobs are kept a week so a late re-send of the same id is still recognised as a repeat.
  removeOnComplete: { age: 7 * 24 * 3600, count: 100_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
};

export const WEBHOOK_BACKOFF = 'webhook';

export interface WebhookRetry {
  baseMs: number;
  maxDelayMs: number;
  windowMs: number;
}

/** Delay before retry n (1-based): doubling from baseMs, capped at maxDelayMs. */
export const webhookRetryDelay = (retry: WebhookRetry, n: number) =>
  Math.min(retry.baseMs * 2 ** Math.min(n - 1, 30), retry.maxDelayMs);

/** Attempts needed so that the retries span the whole window (a day by default). */
export function webhookAttempts(retry: WebhookRetry): number {
  let waited = 0;
  let retries = 0;
  while (waited < retry.windowMs) waited += webhookRetryDelay(retry, ++retries);
  return retries + 1;
}

export type Queues = Record<QueueName, Queue>;

export function createQueues(
  connection: ConnectionOptions,
  prefix: string,
  /** From configuration (webhookRetryOf), which holds the one set of defaults. */
  webhookRetry: WebhookRetry,
  onError: (err: Error) => void = () => undefined,
): Queues {
  // Without a listener a Redis outage would surface as unhandled 'error' events.
  const make = (name: QueueName, defaultJobOptions: JobsOptions = DEFAULT_JOB_OPTIONS) =>
    new Queue(name, { connection, prefix, defaultJobOptions }).on('error', onError);
  return {
    [QUEUES.enrichment]: make(QUEUES.enrichment),
    [QUEUES.review]: make(QUEUES.review),
    [QUEUES.matches]: make(QUEUES.matches),
    // Deliveries retry on the worker's own schedule (capped doubling) for the whole retry window.
    [QUEUES.webhooks]: make(QUEUES.webhooks, {
      ...DEFAULT_JOB_OPTIONS,
      attempts: webhookAttempts(webhookRetry),
      backoff: { type: WEBHOOK_BACKOFF },
    }),
  } as Queues;
}

/** The retry schedule of webhook deliveries, from configuration. */
export const webhookRetryOf = (config: {
  webhookRetryBaseMs: number;
  webhookRetryMaxDelayMs: number;
  webhookRetryWindowMs: number;
}): WebhookRetry => ({
  baseMs: config.webhookRetryBaseMs,
  maxDelayMs: config.webhookRetryMaxDelayMs,
  windowMs: config.webhookRetryWindowMs,
});

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
