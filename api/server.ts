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
import { createApp } from './app.js';
import type { Deprecation } from './deprecations.js';
import { ClientAuthenticator } from './middleware/client-auth.js';
import { loadSigningKeys } from '../common/security/keys.js';
import { logIssuerMismatch, TokenService } from '../common/security/tokens.js';
import { ModeratorTokens } from '../common/security/moderator-tokens.js';
import { ApiMetrics } from '../common/metrics.js';

export interface RunningApi {
  url: string;
  server: http.Server;
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
  const stopHousekeeping = startHousekeeping(pool, log, config.housekeepingIntervalMs);

  const metrics = new ApiMetrics(queues, pool, (err) =>
    log.debug({ err: err.message }, 'metrics collection failed'),
  );
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
  return { url, server, stop };
}

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel, 'api');
  const api = await start(config, log);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      api.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
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
