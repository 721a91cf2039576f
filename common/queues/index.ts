import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

/** Queue names: the contract between the API (producer) and the worker processes (consumers). */
export const QUEUES = {
  enrichment: 'evidence-enrichment',
  review: 'admin-review',
} as const;
export type QueueKey = keyof typeof QUEUES;
export type QueueName = (typeof QUEUES)[QueueKey];

export const JOB_NAMES = {
  enrichEvidence: 'enrich-evidence',
  reviewOffense: 'review-offense',
} as const;

/** Payload of both offense jobs: the worker reads everything else from the database. */
export interface OffenseJobData {
  offenseId: string;
}

/** Job ids derive from the offense id, so adding the same job twice is a no-op in BullMQ. */
export const offenseJobId = (queue: QueueName, offenseId: string) => `${queue}-${offenseId}`;

/** The jobs every offense owes: what the report transaction writes to the outbox. */
export const offenseJobs = (offenseId: string) => [
  {
    queue: QUEUES.enrichment,
    jobName: JOB_NAMES.enrichEvidence,
    jobId: offenseJobId(QUEUES.enrichment, offenseId),
  },
  { queue: QUEUES.review, jobName: JOB_NAMES.reviewOffense, jobId: offenseJobId(QUEUES.review, offenseId) },
];

export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  // Completed jobs are kept a week so a late re-send of the same id is still recognised as a repeat.
  removeOnComplete: { age: 7 * 24 * 3600, count: 100_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
};

export type Queues = Record<QueueName, Queue>;

export function createQueues(
  connection: ConnectionOptions,
  prefix: string,
  onError: (err: Error) => void = () => undefined,
): Queues {
  // Without a listener a Redis outage would surface as unhandled 'error' events.
  const make = (name: QueueName) =>
    new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS }).on('error', onError);
  return { [QUEUES.enrichment]: make(QUEUES.enrichment), [QUEUES.review]: make(QUEUES.review) } as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
