import { loadConfigOrExit } from '../common/config.js';
import { createPool } from '../common/data/db.js';
import { createLogger } from '../common/logger.js';
import { closeQuietly, openQueues, provideBackends, startOutboxLoops } from '../common/runtime.js';
import { flushTraces } from '../common/tracing/spans.js';

// The outbox relay (and its reconciler) on its own, for deployments that want it apart from the API processes (each API
// process runs one too; FOR UPDATE SKIP LOCKED lets any number share the backlog).
const config = loadConfigOrExit();
const log = createLogger(config.logLevel, 'relay');
const backends = await provideBackends(config, log, { needRedis: true });
const pool = createPool(backends.databaseUrl, 2, log);
const { redis, queues } = openQueues(config, backends.redisUrl, log);
const stop = startOutboxLoops(config, pool, queues, redis, log);
log.info('outbox relay and reconciler started');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void (async () => {
      await stop();
      await closeQuietly(
        () => queues.close(),
        () => pool.end(),
        async () => redis.disconnect(),
      );
      await backends.stop();
      await flushTraces();
      process.exit(0);
    })();
  });
}
