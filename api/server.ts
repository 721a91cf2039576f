import cluster from 'node:cluster';
import { expireSignalsDue } from '../common/lifecycles/signals.js';
import { maintainMatchPartitions } from '../common/lifecycles/matches.js';
import { expireConductSummaries } from '../common/lifecycles/conduct.js';
import { clusterMetrics, serveClusterMetrics } from '../common/metrics-cluster.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { Config } from '../common/config.js';
import { ConfigError, loadConfigOrExit } from '../common/config.js';
import { StartupError } from '../common/startup.js';
import { resolvePepper } from '../common/dev-secrets.js';
import { createLogger, type Logger } from '../common/logger.js';
import { startHousekeeping } from '../common/data/housekeeping.js';
import { OutboxDispatcher } from '../common/queues/outbox.js';
import { createPool } from '../common/data/db.js';
import { ReadRouting } from '../common/data/replicas.js';
import { closeQuietly, openQueues, provideBackends, startOutboxLoops } from '../common/runtime.js';
import type Koa from 'koa';
import { createApp } from './app.js';
import type { Deprecation } from './deprecations.js';
import { ClientAuthenticator } from './middleware/client-auth.js';
import { loadSigningKeys } from '../common/security/keys.js';
import { logIssuerMismatch, TokenService } from '../common/security/tokens.js';
import { ModeratorTokens } from '../common/security/moderator-tokens.js';
import { ApiMetrics } from '../common/metrics.js';
import { flushTraces } from '../common/tracing/spans.js';

export interface RunningApi {
  url: string;
  server: http.Server;
  /** The Koa application (its routers are what the contract test compares with the document). */
  app: Koa;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The time source for codes and tokens (tests move it to check expiry). */
  clock?: () => Date;
  /** Deprecated operations (default: api/deprecations.ts); a test registers its own. */
  deprecations?: readonly Deprecation[];
}

/** Builds every dependency, listens, and returns a stop() that shuts down gracefully. */
export async function start(
  config: Config,
  log: Logger = createLogger(config.logLevel, 'api'),
  options: StartOptions = {},
): Promise<RunningApi> {
  // Configuration first: a bad key fails before any server is started or reached.
  const signingKeys = await loadSigningKeys(config);
  const backends = await provideBackends(config, log);
  const pool = createPool(backends.databaseUrl, config.pgPoolSize, log);
  const { redis, queues } = openQueues(config, backends.redisUrl, log);
  const dispatcher = new OutboxDispatcher(pool, queues, log);
  const pepper = resolvePepper(config);
  const clientAuth = new ClientAuthenticator(pool, pepper, config.clientAuthCacheSeconds * 1000);
  const stopRelay = startOutboxLoops(config, pool, queues, redis, log);
  const stopHousekeeping = startHousekeeping(pool, log, config.housekeepingIntervalMs, {
    signals: () => expireSignalsDue(pool),
    matchPartitions: async () =>
      (await maintainMatchPartitions(pool, new Date(), config.matchRetentionDays)).length,
    conductSummaries: () => expireConductSummaries(pool, new Date(), config.matchRetentionDays),
  });

  const metrics = new ApiMetrics(queues, pool, (err) =>
    log.debug({ err: err.message }, 'metrics collection failed'),
  );
  // One of API_PROCESSES: a scrape answers for all of them (common/metrics-cluster.ts).
  if (cluster.isWorker) metrics.scrape = clusterMetrics(metrics.registry);
  const reads = new ReadRouting(pool, config.databaseReplicaUrls, {
    maxLagMs: config.replicaMaxLagMs,
    tokenWaitMs: config.replicaTokenWaitMs,
    checkIntervalMs: config.replicaCheckIntervalMs,
    poolSize: config.pgPoolSize,
    log,
    observer: metrics.readObserver,
  });
  // Before listening: a request that came while this waited would find no handler.
  if (reads.enabled) {
    metrics.watchReplicas(() => reads.status());
    await reads.start();
    log.info({ standbys: reads.status() }, 'reads may be served by standbys');
  }

  // Listen first: with PORT=0 the issuer URL is known only once the port is.
  const server = http.createServer();
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const issuer = (config.publicUrl ?? url).replace(/\/$/, '');
  const clock = options.clock ?? (() => new Date());
  const mismatch = logIssuerMismatch(log);
  const tokens = new TokenService(signingKeys, issuer, config.tokenTtlSeconds, pool, clock, mismatch);
  const moderatorTokens = new ModeratorTokens(
    signingKeys,
    issuer,
    config.moderatorTokenTtlSeconds,
    clock,
    mismatch,
  );
  const app = createApp({
    config,
    log,
    pool,
    redis,
    dispatcher,
    clientAuth,
    tokens,
    signingKeys,
    issuer,
    pepper,
    clock,
    moderatorTokens,
    metrics,
    queues,
    reads,
    ...(options.deprecations ? { deprecations: options.deprecations } : {}),
  });
  // Once shutdown begins, every answer closes its connection: keep-alive clients would otherwise keep
  // sending on their open connections and hold server.close() until the grace period ran out.
  let closing = false;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (closing) res.setHeader('Connection', 'close');
  });
  server.on('request', app.callback());
  log.info({ url, issuer }, 'api listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('api shutting down: refusing new connections, finishing requests in flight');
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await closed;
      clearTimeout(grace);
      await stopRelay();
      await stopHousekeeping();
      await dispatcher.drain();
      await closeQuietly(
        () => queues.close(),
        () => reads.stop(),
        () => pool.end(),
        async () => redis.disconnect(),
      );
      await backends.stop();
      log.info('api stopped');
    })());
  return { url, server, app, stop };
}

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel, 'api');
  if (config.apiProcesses > 1 && cluster.isPrimary) return runProcesses(config, log);
  const api = await start(config, log);
  const stopAndExit = () =>
    api.stop().then(
      () => flushTraces().then(() => process.exit(0)),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stopAndExit());
  // One of several API processes: when the process that started it is gone, so is it.
  if (cluster.isWorker) process.once('disconnect', () => void stopAndExit());
}

/**
 * API_PROCESSES > 1: this process starts (or finds) the servers and applies the migrations once,
 * then runs that many API processes on the same port (node:cluster shares the listening socket and
 * spreads the connections). Each has its own pool, group commit and outbox relay; rate limits, tokens
 * and sessions live in Redis and PostgreSQL, so they act as one service. One that dies is started
 * again; SIGTERM or SIGINT stops them all gracefully, then the servers this process started.
 */
async function runProcesses(config: Config, log: Logger): Promise<void> {
  const backends = await provideBackends(config, log);
  // REPORT_BATCHES_IN_FLIGHT is the machine's: the processes split it (at least one each). Each
  // process's group commit fills its batches from its share of the traffic; more statements in
  // flight than the database turns over only makes the batches smaller (bench: with two processes,
  // 4 each made R 0.61 of one process, 2 each 0.82-0.84, 1 each 1.04-1.22).
  const inFlight = Math.max(1, Math.floor(config.reportBatchesInFlight / config.apiProcesses));
  const env = {
    DATABASE_URL: backends.databaseUrl,
    REDIS_URL: backends.redisUrl,
    REPORT_BATCHES_IN_FLIGHT: String(inFlight),
  };
  let stopping = false;
  serveClusterMetrics();
  const fork = () => cluster.fork(env);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.error({ pid: worker.process.pid, code, signal }, 'an API process died; starting another');
    setTimeout(fork, 1000).unref();
  });
  for (let i = 0; i < config.apiProcesses; i++) fork();
  log.info({ processes: config.apiProcesses, reportBatchesInFlight: inFlight }, 'api processes started');
  const stopAll = async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
    await backends.stop();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stopAll());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    // A configuration error names its variable; a stack trace would bury it.
    // A configuration or start-up fault names its variable or server; a stack trace would bury it.
    process.stderr.write(
      err instanceof ConfigError || err instanceof StartupError
        ? `${err.message}\n`
        : `api failed to start: ${(err as Error).stack ?? String(err)}\n`,
    );
    process.exit(1);
  });
}
