import { StartupError } from '../common/startup.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { loadConfigOrExit, type Config } from '../common/config.js';
import { createPool, type Pool } from '../common/data/db.js';
import { resolvePepper } from '../common/dev-secrets.js';
import { createLogger, OutageLog, type Logger } from '../common/logger.js';
import { WorkerMetrics } from '../common/metrics.js';
import {
  JOBS_OF_QUEUE,
  UNKNOWN_JOB_WAIT_MS,
  WEBHOOK_BACKOFF,
  webhookRetryDelay,
  webhookRetryOf,
  QUEUES,
  JOB_NAMES,
  type QueueName,
} from '../common/queues/index.js';
import { OutboxDispatcher, type OutboxRow } from '../common/queues/outbox.js';
import { closeQuietly, openQueues, provideBackends, redisConnection } from '../common/runtime.js';
import { flushTraces, inJobSpan, jobTraceFields, tracingActive } from '../common/tracing/spans.js';

export interface ProcessorDeps {
  pool: Pool;
  log: Logger;
  config: Config;
  /** Server secret (opens webhook signing secrets). */
  pepper: string;
  /** Hands outbox rows a processor's transaction wrote to the queues, after its commit. */
  dispatch: (rows: OutboxRow[]) => void;
  /** The process's metrics, for the times a processor measures (absent in some tests). */
  metrics?: WorkerMetrics;
}

export type Processor = (job: Job, token?: string) => Promise<unknown>;

/**
 * Puts a job back to wait until `at` without spending one of its attempts (BullMQ's delayed set,
 * skipAttempt), for a processor that will not run it now: a job of a kind it does not know, a
 * webhook whose endpoint's lane is full or which is parked.
 */
export async function putBack(job: Job, token: string | undefined, at: number): Promise<never> {
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

/**
 * Runs `processor` on the jobs this release knows for `queue`; a job of another name (a newer
 * release's, met during a rollback) is put back, unspent, for a worker that knows it, instead of
 * failing for good: a failed job keeps its id, so nothing could add it again. Said once per name.
 */
export function knownJobsOnly(queue: QueueName, processor: Processor, log: Logger): Processor {
  const known = new Set(JOBS_OF_QUEUE[queue]);
  const told = new Set<string>();
  return async (job, token) => {
    if (known.has(job.name)) return processor(job, token);
    if (!told.has(job.name)) {
      told.add(job.name);
      log.warn(
        { jobName: job.name, jobId: job.id, queue, retryInMs: UNKNOWN_JOB_WAIT_MS },
        'a job of a kind this worker does not know (a newer release wrote it): left for a worker that does',
      );
    }
    return putBack(job, token, Date.now() + UNKNOWN_JOB_WAIT_MS);
  };
}

/**
 * Tracing on: each run of a job (a retry too) is a `process <queue>` span continuing the trace its
 * data carries; a job put back unspent is not a failed span. Off: the processor itself.
 */
export function traced(queue: QueueName, processor: Processor): Processor {
  if (!tracingActive()) return processor;
  const isFailure = (err: unknown) => !(err instanceof DelayedError);
  return (job, token) => inJobSpan(queue, job, isFailure, () => processor(job, token));
}

/** One processor a queue made of one per job name (a name without one is left to knownJobsOnly). */
export function byJobName(
  makers: Record<string, (deps: ProcessorDeps) => Processor>,
): (deps: ProcessorDeps) => Processor {
  return (deps) => {
    const processors = new Map(Object.entries(makers).map(([name, make]) => [name, make(deps)]));
    return (job, token) => {
      // knownJobsOnly lets only this queue's names through (JOBS_OF_QUEUE); each has its maker.
      const processor = processors.get(job.name);
      if (!processor) throw new UnrecoverableError(`no processor for job ${job.name}`);
      return processor(job, token);
    };
  };
}

/** How many jobs a worker of this queue runs at once. */
export const concurrencyOf = (config: Config, queue: QueueName) =>
  queue === QUEUES.review
    ? config.reviewWorkerConcurrency
    : queue === QUEUES.enrichment
      ? config.enrichmentWorkerConcurrency
      : queue === QUEUES.matches
        ? config.matchesWorkerConcurrency
        : config.workerConcurrency;

export interface RunningWorker {
  /** The first shard's worker (the only one with QUEUE_SHARDS=1). */
  worker: Worker;
  /** One per shard this process serves (WORKER_SHARDS). */
  workers: Worker[];
  /** The worker's /metrics URL when WORKER_METRICS_PORT is set. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * Starts one BullMQ worker on `queue` with a processor built from explicit dependencies. stop()
 * lets the active jobs finish (BullMQ's close waits for them) and then closes the connections.
 * A job whose worker died (SIGKILL, lost machine) is picked up again once its lock expires
 * (WORKER_LOCK_DURATION_MS) by the next stalled check (WORKER_STALLED_INTERVAL_MS).
 */
export async function startWorker(
  config: Config,
  queue: QueueName,
  makeProcessor: (deps: ProcessorDeps) => Processor,
  log: Logger = createLogger(config.logLevel, `worker:${queue}`),
): Promise<RunningWorker> {
  const backends = await provideBackends(config, log, { needRedis: true });
  const concurrency = concurrencyOf(config, queue);
  const pool = createPool(backends.databaseUrl, Math.max(2, Math.min(concurrency, 20)), log);
  const connection = redisConnection(config, backends.redisUrl, 'worker', log);
  const { redis: producer, queues } = openQueues(config, backends.redisUrl, log);
  const dispatcher = new OutboxDispatcher(pool, queues, log);
  const metrics = new WorkerMetrics(queue);
  const processor = traced(
    queue,
    knownJobsOnly(
      queue,
      makeProcessor({
        pool,
        log,
        config,
        pepper: resolvePepper(config),
        dispatch: (rows) => dispatcher.enqueue(rows),
        metrics,
      }),
      log,
    ),
  );
  const retry = webhookRetryOf(config);
  // While Redis is down BullMQ reports an error several times a second: log the outage, not each one.
  const outage = new OutageLog(log, 'worker: Redis connection');
  connection.on('ready', () => outage.recovered());
  // One BullMQ worker per shard served, each with this kind's concurrency, on one connection.
  const workers = config.workerShards.map((k) => {
    const worker = new Worker(queue, processor, {
      connection,
      prefix: queues.prefixes[k]!,
      concurrency,
      stalledInterval: config.workerStalledIntervalMs,
      lockDuration: config.workerLockDurationMs,
      maxStalledCount: 3,
      settings: {
        backoffStrategy: (attemptsMade: number, type?: string) =>
          type === WEBHOOK_BACKOFF ? webhookRetryDelay(retry, attemptsMade) : 1000,
      },
    });
    worker.on('completed', (job) => metrics.observe(job, 'completed', k));
    worker.on('failed', (job, err) => {
      if (job) metrics.observe(job, 'failed', k);
      log.warn(
        {
          jobId: job?.id,
          shard: k,
          attempts: job?.attemptsMade,
          err: err.message,
          ...jobTraceFields(job?.data),
        },
        'job failed',
      );
    });
    worker.on('stalled', (jobId) => {
      metrics.stalled.inc({ queue });
      log.warn({ jobId, shard: k }, 'job stalled: its worker stopped renewing the lock; it will run again');
    });
    worker.on('error', (err) => outage.error(err));
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  if (queue === QUEUES.review && config.trustRecoveryDaysPerPoint > 0 && config.workerShards.includes(0)) {
    // Idempotent: every review worker of shard 0 upserts the same scheduler, and BullMQ runs it once
    // per interval (on shard 0 alone: the job pays every player's recovery).
    await queues.shards[0]![QUEUES.review].upsertJobScheduler(
      JOB_NAMES.trustRecovery,
      { every: config.trustRecoveryIntervalMs },
      { name: JOB_NAMES.trustRecovery, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }
  if (queue === QUEUES.review && config.workerShards.includes(0))
    // The same for retention (docs/compliance.md "Personal data"); its run takes an advisory lock besides.
    await queues.shards[0]![QUEUES.review].upsertJobScheduler(
      JOB_NAMES.retention,
      { every: config.retentionIntervalMs },
      { name: JOB_NAMES.retention, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );

  if (queue === QUEUES.review && config.workerShards.includes(0))
    // Scheduled rules (docs/moderators.md "Rules": triggers): one round an interval, whichever worker runs it.
    await queues.shards[0]![QUEUES.review].upsertJobScheduler(
      `${JOB_NAMES.weighRules}-schedule`,
      { every: config.rulesScheduleIntervalMs },
      {
        name: JOB_NAMES.weighRules,
        data: { trigger: 'schedule' },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );

  let metricsServer: http.Server | undefined;
  let metricsUrl: string | undefined;
  if (config.workerMetricsPort !== undefined) {
    metricsServer = http.createServer((req, res) => void metrics.serve(req, res, config.metricsToken));
    await new Promise<void>((resolve) =>
      metricsServer!.listen(config.workerMetricsPort, config.host, resolve),
    );
    metricsUrl = `http://${config.host}:${(metricsServer.address() as AddressInfo).port}/metrics`;
  }
  log.info({ queue, concurrency, shards: config.workerShards, metricsUrl }, 'worker started');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('worker shutting down: finishing active jobs');
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
      await Promise.race([Promise.all(workers.map((w) => w.close())), timeout]);
      await dispatcher.drain();
      metricsServer?.close();
      await closeQuietly(
        () => queues.close(),
        () => pool.end(),
        async () => connection.disconnect(),
        async () => producer.disconnect(),
      );
      await backends.stop();
      log.info('worker stopped');
    })());
  return { worker: workers[0]!, workers, metricsUrl, stop };
}

/** Entry-point helper: start, then stop gracefully on SIGTERM / SIGINT and exit 0. */
export function runWorkerMain(queue: QueueName, makeProcessor: (deps: ProcessorDeps) => Processor): void {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel, `worker:${queue}`);
  startWorker(config, queue, makeProcessor, log).then(
    (running) => {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(
          signal,
          () =>
            void running.stop().then(
              () => flushTraces().then(() => process.exit(0)),
              () => flushTraces().then(() => process.exit(1)),
            ),
        );
      }
    },
    (err: unknown) => {
      if (err instanceof StartupError) process.stderr.write(`${err.message}\n`);
      else log.fatal({ err: (err as Error).message }, 'worker failed to start');
      process.exit(1);
    },
  );
}
