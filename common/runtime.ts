import type { Config } from './config.js';
import { migrate } from './data/migrate.js';
import { createQueues, webhookRetryOf } from './queues/index.js';
import { createRedisClient, type RedisClient } from './queues/redis-client.js';
import { ShardedQueues, shardPrefixes } from './queues/shards.js';
import { startRelayLoop } from './queues/outbox.js';
import { startReconciler } from './queues/reconcile.js';
import { createPool, type Pool } from './data/db.js';
import { reapplyErasures } from './usecases/erasure.js';
import { readTombstones } from './data/erasure-ledger.js';
import { ensureWritableDir, redactUrl, StartupError, waitForPostgres, waitForRedis } from './startup.js';
import type { Logger } from './logger.js';
import { providePostgres, provideRedis, type ServiceHandle } from './services/index.js';

export interface Backends {
  databaseUrl: string;
  redisUrl: string;
  postgres: ServiceHandle;
  redis: ServiceHandle;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL and Redis a process uses: the configured URLs, or the embedded servers under
 * DATA_DIR (started here when nothing runs there yet). Migrations are applied before returning.
 */
export async function provideBackends(
  config: Config,
  log: Logger,
  /** needRedis: wait for an external Redis at start (workers; the API starts without it). */
  opts: { migrate?: boolean; needRedis?: boolean } = {},
): Promise<Backends> {
  if (!config.databaseUrl || !config.redisUrl) ensureWritableDir(config.dataDir);
  if (config.databaseUrl) await waitForPostgres(config.databaseUrl, config.startupWaitMs);
  if (config.redisUrl && opts.needRedis) await waitForRedis(config.redisUrl, config.startupWaitMs);
  const postgres = await providePostgres({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    log: (m) => log.debug({ service: 'postgres' }, m),
  });
  let redis: ServiceHandle;
  try {
    redis = await provideRedis({
      dataDir: config.dataDir,
      redisUrl: config.redisUrl,
      log: (m) => log.debug({ service: 'redis' }, m),
    });
  } catch (err) {
    await postgres.stop();
    throw err;
  }
  if (redis.clusterEnabled !== undefined && redis.clusterEnabled !== config.redisCluster) {
    await Promise.all([postgres.stop(), redis.stop()]);
    throw new StartupError(
      redis.clusterEnabled
        ? `REDIS_URL (${redactUrl(redis.url)}) is a node of a Redis Cluster, but the service would use it as one server: ` +
            'BullMQ needs every key of a queue in one slot, and without hash-tagged prefixes it fails with CROSSSLOT. ' +
            "List the cluster's nodes in REDIS_URL (redis://node-1:7000,node-2:7001,...) or set REDIS_CLUSTER=true: " +
            'queues are then sharded under {<QUEUE_PREFIX>:<k>} prefixes (QUEUE_SHARDS).'
        : `REDIS_URL (${redactUrl(redis.url)}) names a cluster (several hosts, or REDIS_CLUSTER=true), but the server is not a Redis Cluster node (cluster_enabled:0).`,
    );
  }
  if (redis.unreachable)
    // The API starts anyway: reports are accepted into the outbox and sent once Redis is back.
    log.warn(
      { redis: redactUrl(redis.url), err: redis.unreachable },
      'Redis does not answer at start; reports are kept in the outbox until it does',
    );
  if (opts.migrate ?? true) {
    const applied = await migrate(postgres.url, (m) => log.debug({ service: 'migrate' }, m));
    if (applied.length) log.info({ applied }, 'database migrations applied');
    // Before any traffic: erasures the ledger holds and the database does not (a restore of an older
    // backup) are applied again (docs/compliance.md "Personal data").
    const tombstones = readTombstones(config.erasureLedger);
    if (tombstones.length) {
      const pool = createPool(postgres.url, 2, log);
      try {
        await reapplyErasures(pool, tombstones, log);
      } finally {
        await pool.end();
      }
    }
  }
  return {
    databaseUrl: postgres.url,
    redisUrl: redis.url,
    postgres,
    redis,
    stop: async () => {
      await Promise.all([postgres.stop(), redis.stop()]);
    },
  };
}

/**
 * ioredis for BullMQ, one server or a cluster (queues/redis-client.ts): workers need
 * maxRetriesPerRequest null; producers fail fast while Redis is down. Connection errors are logged
 * at debug (the client reconnects by itself); without a listener they would surface as unhandled
 * 'error' events.
 */
export function redisConnection(
  config: Pick<Config, 'redisCluster'>,
  url: string,
  kind: 'producer' | 'worker',
  log: Logger,
): RedisClient {
  const redis = createRedisClient(url, config.redisCluster, {
    maxRetriesPerRequest: kind === 'worker' ? null : 1,
    enableOfflineQueue: kind === 'worker',
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', (err: Error) => log.debug({ err: err.message }, 'redis connection error'));
  return redis;
}

/** Every shard's queues (queues/shards.ts), on one producer connection (close both when done). */
export function openQueues(
  config: Config,
  redisUrl: string,
  log: Logger,
): { redis: RedisClient; queues: ShardedQueues } {
  const redis = redisConnection(config, redisUrl, 'producer', log);
  const prefixes = shardPrefixes(config.queuePrefix, config.queueShards, config.redisCluster);
  const queues = new ShardedQueues(
    prefixes.map((prefix) =>
      createQueues(redis, prefix, webhookRetryOf(config), (err) =>
        log.debug({ err: err.message }, 'queue error'),
      ),
    ),
    prefixes,
  );
  return { redis, queues };
}

export async function closeQuietly(...closers: (() => Promise<unknown>)[]): Promise<void> {
  await Promise.allSettled(closers.map((c) => c()));
}

/**
 * The outbox's two loops, in every process that runs a relay: the relay sends unsent rows; the
 * reconciler re-adds sent rows whose jobs Redis lost (queues/reconcile.ts). One stop for both.
 */
export function startOutboxLoops(
  config: Config,
  pool: Pool,
  queues: ShardedQueues,
  redis: RedisClient,
  log: Logger,
): () => Promise<void> {
  const stopRelay = startRelayLoop(pool, queues, log, config.outboxRelayIntervalMs);
  const stopReconciler = startReconciler(pool, queues, redis, log, {
    prefix: config.queuePrefix,
    intervalMs: config.outboxReconcileIntervalMs,
    restartWindowSeconds: config.outboxReconcileRestartWindowSeconds,
  });
  return async () => {
    await Promise.all([stopRelay(), stopReconciler()]);
  };
}
