import crypto from 'node:crypto';
import type http from 'node:http';
import type { Job } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Queryable } from './data/db.js';
import type { ReadObserver, ReplicaStatus } from './data/replicas.js';
import type { ShardedQueues } from './queues/shards.js';
import { ROUTE_GROUPS } from './domain/limits.js';
import { countOverdue } from './data/repos/moderation.js';
import { withTimeout } from './timeout.js';

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;
/** How long a scrape waits for the queue depths from Redis. */
const QUEUE_READ_TIMEOUT_MS = 1000;

/** `fn`, but callers that come while a call is pending share its promise (one read per scrape). */
function sharedWhilePending<T>(fn: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= fn().finally(() => {
      pending = undefined;
    }));
}

/** Constant-time check of `Authorization: Bearer <METRICS_TOKEN>`; no token configured lets all in. */
export function metricsAuthorized(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = crypto
    .createHash('sha256')
    .update(header ?? '')
    .digest();
  const expected = crypto.createHash('sha256').update(`Bearer ${token}`).digest();
  return crypto.timingSafeEqual(given, expected);
}

/**
 * The API process's metrics: requests by method, route template and status, their latency, and,
 * read at scrape time, the depth of every queue by state and the outbox backlog. A registry per
 * instance, not prom-client's global one, so several instances can live in one process (tests).
 */
export class ApiMetrics {
  readonly registry = new Registry();
  /**
   * What a scrape answers: this process's registry, or, as one of API_PROCESSES, every process's
   * aggregated (common/metrics-cluster.ts sets it).
   */
  scrape: () => Promise<string> = () => this.registry.metrics();
  private readonly requests = new Counter({
    name: 'player_trust_http_requests_total',
    help: 'HTTP requests by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'player_trust_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  /** Rate-limit checks that went through unlimited because Redis did not answer (fail open). */
  readonly rateLimiterUnavailable = new Counter({
    name: 'player_trust_rate_limiter_unavailable_total',
    help: 'Rate-limit checks let through unlimited because Redis did not answer in time, by route group.',
    labelNames: ['group'] as const,
    registers: [this.registry],
  });

  /** Where reads went, and why a standby did not serve one (data/replicas.ts). */
  private readonly reads = new Counter({
    name: 'player_trust_reads_total',
    help: 'Reads that standbys may serve, by where they were served: primary or standby.',
    labelNames: ['target'] as const,
    registers: [this.registry],
  });
  private readonly readFallbacks = new Counter({
    name: 'player_trust_read_fallbacks_total',
    help: 'Reads served by the primary although standbys are configured, by reason: lag (every standby past REPLICA_MAX_LAG_MS), down (none answers its checks), error (the standby failed the read, which ran again on the primary), token (none replayed the consistency token within REPLICA_TOKEN_WAIT_MS).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly tokenWaits = new Histogram({
    name: 'player_trust_consistency_token_wait_seconds',
    help: 'Waits of reads whose consistency token no standby had replayed yet, by outcome: standby (it caught up) or primary (it did not in time).',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly readObserver: ReadObserver = {
    read: (target) => this.reads.inc({ target }),
    fallback: (reason) => this.readFallbacks.inc({ reason }),
    tokenWait: (outcome, seconds) => this.tokenWaits.observe({ outcome }, seconds),
  };

  /** Gauges of every standby's health and lag, read from ReadRouting at scrape time. */
  watchReplicas(status: () => ReplicaStatus[]): void {
    new Gauge({
      name: 'player_trust_replica_up',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'min',
      help: '1 while a standby passes its checks and may serve reads.',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const r of status()) this.set({ replica: r.name }, r.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'player_trust_replica_lag_seconds',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: 'How long ago the primary first had WAL a standby has not replayed (0: caught up; -1: unknown or down).',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const r of status()) this.set({ replica: r.name }, r.lagMs === undefined ? -1 : r.lagMs / 1000);
      },
    });
  }

  constructor(queues: ShardedQueues, db: Queryable, onError: (err: Error) => void) {
    collectDefaultMetrics({ register: this.registry, prefix: 'player_trust_api_' });
    for (const target of ['primary', 'standby']) this.reads.inc({ target }, 0);
    for (const reason of ['lag', 'down', 'error', 'token']) this.readFallbacks.inc({ reason }, 0);
    for (const group of ROUTE_GROUPS) this.rateLimiterUnavailable.inc({ group }, 0);
    // Redis that stops answering (not refusing) would hold a scrape forever: the depths are read
    // within QUEUE_READ_TIMEOUT_MS, and otherwise the last known figures are shown, marked stale.
    // prom-client collects a scrape's gauges concurrently, so gauges that share a read share one
    // promise (sharedWhilePending) and all show this scrape's figures.
    let lastRead = 0;
    const depths = new Map<string, Record<string, number>>();
    const readDepths = sharedWhilePending(async () => {
      try {
        // A queue's depth is the sum over its shards.
        const read = Promise.all(
          queues.names().map(async (name) => {
            const perShard = await Promise.all(queues.named(name).map((q) => q.getJobCounts(...JOB_STATES)));
            const sum: Record<string, number> = {};
            for (const counts of perShard)
              for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
            return [name, sum] as const;
          }),
        );
        for (const [name, counts] of await withTimeout(read, QUEUE_READ_TIMEOUT_MS)) depths.set(name, counts);
        lastRead = Date.now();
        return { stale: false, age: 0 };
      } catch (err) {
        onError(err as Error); // Redis down or silent: the scrape still answers, with what is known
        return { stale: true, age: lastRead ? (Date.now() - lastRead) / 1000 : -1 };
      }
    });
    new Gauge({
      name: 'player_trust_queue_jobs',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: 'Jobs in each queue by state (read from Redis at scrape time; see player_trust_queue_jobs_stale).',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        await readDepths();
        for (const [name, counts] of depths)
          for (const state of JOB_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
      },
    });
    new Gauge({
      name: 'player_trust_queue_jobs_stale',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: '1 when the queue depths could not be read from Redis in time and show the last known figures.',
      registers: [this.registry],
      async collect() {
        this.set((await readDepths()).stale ? 1 : 0);
      },
    });
    new Gauge({
      name: 'player_trust_queue_jobs_age_seconds',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: 'How old the queue depths shown are (0: read at this scrape; -1: never read).',
      registers: [this.registry],
      async collect() {
        this.set((await readDepths()).age);
      },
    });
    new Gauge({
      name: 'player_trust_cases_overdue',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: 'Open review cases past their due time (CASE_DUE_HOURS by highest severity).',
      registers: [this.registry],
      async collect() {
        try {
          this.set(await countOverdue(db));
        } catch (err) {
          onError(err as Error);
        }
      },
    });
    const readOutbox = sharedWhilePending(async () => {
      try {
        const { rows } = await db.query<{ n: number; age: number }>(
          `SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age
             FROM outbox WHERE sent_at IS NULL`,
        );
        return rows[0]!;
      } catch (err) {
        onError(err as Error);
        return undefined;
      }
    });
    const readWebhooks = sharedWhilePending(async () => {
      try {
        const { rows } = await db.query<{ failing: number; parked: number }>(
          `SELECT count(*) FILTER (WHERE NOT enabled AND disabled_reason = 'failing')::int AS failing,
                  count(*) FILTER (WHERE enabled AND parked_until > now())::int AS parked
             FROM webhooks WHERE deleted_at IS NULL`,
        );
        return rows[0]!;
      } catch (err) {
        onError(err as Error);
        return undefined;
      }
    });
    new Gauge({
      name: 'player_trust_rules_stopped',
      help: 'Rules in background or live mode stopped at their cap (docs/moderators.md "Rules"): they act no more until saved again.',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        try {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM rules WHERE mode <> 'draft' AND stopped_at IS NOT NULL`,
          );
          this.set(rows[0]!.n);
        } catch (err) {
          onError(err as Error);
        }
      },
    });
    new Gauge({
      name: 'player_trust_webhooks_disabled_failing',
      help: "Studios' webhooks disabled automatically because their deliveries kept failing (WEBHOOK_DISABLE_AFTER_FAILURES).",
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        const read = await readWebhooks();
        if (read) this.set(read.failing);
      },
    });
    new Gauge({
      name: 'player_trust_webhooks_parked',
      help: 'Webhook endpoints parked now: their attempts kept failing (WEBHOOK_BREAKER_FAILURES).',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        const read = await readWebhooks();
        if (read) this.set(read.parked);
      },
    });
    // Statements to the DSA Transparency Database (issue 35): pending and refused are the partial
    // indexes of migration 033, so this stays cheap however many were sent.
    const readStatements = sharedWhilePending(async () => {
      try {
        const { rows } = await db.query<{ pending: number; refused: number; age: number }>(
          `SELECT (SELECT count(*)::int FROM transparency_statements WHERE state = 'pending') AS pending,
                  (SELECT count(*)::int FROM transparency_statements WHERE state = 'refused') AS refused,
                  coalesce((SELECT extract(epoch FROM now() - min(created_at))::float8
                              FROM transparency_statements WHERE state = 'pending'), 0) AS age`,
        );
        return rows[0]!;
      } catch (err) {
        onError(err as Error);
        return undefined;
      }
    });
    new Gauge({
      name: 'player_trust_transparency_statements',
      help: 'Statements to the DSA Transparency Database not sent: pending (to be sent) or refused (by the database, until an admin retries them).',
      labelNames: ['state'] as const,
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        const read = await readStatements();
        if (read) {
          this.set({ state: 'pending' }, read.pending);
          this.set({ state: 'refused' }, read.refused);
        }
      },
    });
    new Gauge({
      name: 'player_trust_transparency_oldest_pending_seconds',
      help: 'Age of the oldest statement to the DSA Transparency Database not yet sent (0 when none).',
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        const read = await readStatements();
        if (read) this.set(read.age);
      },
    });
    // Mails to notifiers (issue 51): the pending ones are a partial index (migration 046).
    const readMails = sharedWhilePending(async () => {
      try {
        const { rows } = await db.query<{ pending: number; age: number }>(
          `SELECT count(*)::int AS pending, coalesce(extract(epoch FROM now() - min(created_at))::float8, 0) AS age
             FROM notifier_mails WHERE state = 'pending'`,
        );
        return rows[0]!;
      } catch (err) {
        onError(err as Error);
        return undefined;
      }
    });
    new Gauge({
      name: 'player_trust_notifier_mails_pending',
      help: 'E-mails to notifiers not yet sent (nor ended).',
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        const read = await readMails();
        if (read) this.set(read.pending);
      },
    });
    new Gauge({
      name: 'player_trust_notifier_mails_oldest_pending_seconds',
      help: 'Age of the oldest e-mail to a notifier not yet sent (0 when none).',
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        const read = await readMails();
        if (read) this.set(read.age);
      },
    });
    new Gauge({
      name: 'player_trust_outbox_unsent',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: 'Outbox rows not yet handed to the queues.',
      registers: [this.registry],
      async collect() {
        const read = await readOutbox();
        if (read) this.set(read.n);
      },
    });
    new Gauge({
      name: 'player_trust_outbox_oldest_unsent_seconds',
      // Every API process reads the same state: aggregated across them, the worst, never a sum.
      aggregator: 'max',
      help: 'Age of the oldest outbox row not yet handed to the queues (0 when none).',
      registers: [this.registry],
      async collect() {
        const read = await readOutbox();
        if (read) this.set(read.age);
      },
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }
}

/**
 * A worker process's metrics: job durations and outcomes by queue shard, stalled jobs recovered, and
 * the times the service levels are measured by: a report's acceptance to its filing into a case (the
 * review worker) and a webhook event to its final delivery (the webhooks worker).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly duration: Histogram<'queue' | 'outcome'>;
  private readonly jobs: Counter<'queue' | 'outcome' | 'shard'>;
  readonly stalled: Counter<'queue'>;
  /** From a report's 201 (its offense's creation) to its filing into a case, per offense filed. */
  readonly reportToCase = new Histogram({
    name: 'player_trust_report_to_case_seconds',
    help: 'Time from a report accepted (201) to its offense filed into a review case, per offense filed.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
    registers: [this.registry],
  });
  /** From a webhook event's recording to its delivery's final outcome, per delivery. */
  readonly webhookDelivery = new Histogram({
    name: 'player_trust_webhook_delivery_seconds',
    help: 'Time from a webhook event recorded to its delivery delivered or failed for good, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400],
    registers: [this.registry],
  });

  /** Statements to the DSA Transparency Database, by outcome (sent, already_held, refused, dry_run). */
  readonly transparencyStatements = new Counter({
    name: 'player_trust_transparency_statements_total',
    help: 'Statements submitted to the DSA Transparency Database, by outcome: sent (201), already_held (the database had its puid), refused (422), dry_run (written for review).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Mails to notifiers, by outcome (sent, retried, rejected, failed, withdrawn). */
  readonly notifierMails = new Counter({
    name: 'player_trust_notifier_mails_total',
    help: 'Sends of e-mails to notifiers, by outcome: sent (the SMTP server took it), retried (a passing failure), rejected (a 5xx bounce), failed (out of retries), withdrawn (no address left).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Rows the retention job removed or reduced, by kind (common/lifecycles/retention.ts). */
  readonly retentionPurged = new Counter({
    name: 'player_trust_retention_purged_total',
    help: 'Rows the retention job removed or reduced past their window, by kind of personal data.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  /** The age of the oldest row still holding each kind, as of the last retention run. */
  readonly retentionOldest = new Gauge({
    name: 'player_trust_retention_oldest_seconds',
    help: 'Age of the oldest row still holding each kind of personal data, as of the last retention run (0: none).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  constructor(private readonly queue: string) {
    collectDefaultMetrics({ register: this.registry, prefix: 'player_trust_worker_' });
    this.duration = new Histogram({
      name: 'player_trust_job_duration_seconds',
      help: 'Processing time of jobs by queue and outcome.',
      labelNames: ['queue', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.jobs = new Counter({
      name: 'player_trust_jobs_total',
      help: 'Jobs finished by queue, outcome and queue shard (failed counts every failed attempt).',
      labelNames: ['queue', 'outcome', 'shard'],
      registers: [this.registry],
    });
    const stalled = new Counter({
      name: 'player_trust_jobs_stalled_total',
      help: 'Jobs found stalled (their worker died) and put back to run again.',
      labelNames: ['queue'],
      registers: [this.registry],
    });
    this.stalled = stalled;
    stalled.inc({ queue }, 0);
  }

  observe(job: Job, outcome: 'completed' | 'failed', shard = 0): void {
    const labels = { queue: this.queue, outcome };
    this.jobs.inc({ ...labels, shard: String(shard) });
    if (job.processedOn)
      this.duration.observe(labels, ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000);
  }

  async serve(req: http.IncomingMessage, res: http.ServerResponse, token: string | undefined): Promise<void> {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (!metricsAuthorized(req.headers.authorization, token)) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    res.writeHead(200, { 'content-type': this.registry.contentType }).end(await this.registry.metrics());
  }
}
