import { Worker, type Job } from 'bullmq';
import { loadConfigOrExit, type Config } from '../common/config.js';
import { createPool, type Pool } from '../common/data/db.js';
import { createLogger, type Logger } from '../common/logger.js';
import type { QueueName } from '../common/queues/index.js';
import { closeQuietly, provideBackends, redisConnection } from '../common/runtime.js';

export interface ProcessorDeps {
  pool: Pool;
  log: Logger;
  config: Config;
}

export type Processor = (job: Job) => Promise<unknown>;

export interface RunningWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/**
 * Starts one BullMQ worker on `queue` with a processor built from explicit dependencies. stop()
 * lets the active jobs finish (BullMQ's close waits for them) and then closes the connections.
 */
export async function startWorker(
  config: Config,
  queue: QueueName,
  makeProcessor: (deps: ProcessorDeps) => Processor,
  log: Logger = createLogger(config.logLevel, `worker:${queue}`),
): Promise<RunningWorker> {
  const backends = await provideBackends(config, log);
  const pool = createPool(backends.databaseUrl, Math.max(2, config.workerConcurrency), log);
  const connection = redisConnection(backends.redisUrl, 'worker');
  connection.on('error', (err) => log.debug({ err: err.message }, 'redis connection error'));
  const processor = makeProcessor({ pool, log, config });
  const worker = new Worker(queue, processor, {
    connection,
    prefix: config.queuePrefix,
    concurrency: config.workerConcurrency,
    stalledInterval: 30_000,
    maxStalledCount: 3,
  });
  worker.on('failed', (job, err) =>
    log.warn({ jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed'),
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'worker error'));
  await worker.waitUntilReady();
  log.info({ queue, concurrency: config.workerConcurrency }, 'worker started');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('worker shutting down: finishing active jobs');
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
      await Promise.race([worker.close(), timeout]);
      await closeQuietly(
        () => pool.end(),
        async () => connection.disconnect(),
      );
      await backends.stop();
      log.info('worker stopped');
    })());
  return { worker, stop };
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
              () => process.exit(0),
              () => process.exit(1),
            ),
        );
      }
    },
    (err: unknown) => {
      log.fatal({ err: (err as Error).message }, 'worker failed to start');
      process.exit(1);
    },
  );
}
