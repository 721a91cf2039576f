import { Router } from '@koa/router';
import type { ApiDeps } from '../../deps.js';
import { withTimeout } from '../../../common/timeout.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;

export function healthRoutes(deps: ApiDeps): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' } satisfies Answer<Paths, '/healthz', 'get'>;
  });
  router.get('/readyz', async (ctx) => {
    const check = async (fn: () => Promise<unknown>) => {
      try {
        await withTimeout(fn(), 1000);
        return { ok: true };
      } catch (err) {
        return { ok: false, error: (err as Error).message };
      }
    };
    const [postgres, redis] = await Promise.all([
      check(() => deps.pool.query('SELECT 1')),
      check(async () => {
        // Just after start (or a reconnect) the connection may still be coming up: wait for it
        // within the check's time rather than call Redis unavailable.
        if (deps.redis.status === 'connecting' || deps.redis.status === 'connect')
          await new Promise((resolve) => deps.redis.once('ready', resolve));
        return deps.redis.ping();
      }),
    ]);
    const ready = postgres.ok && redis.ok;
    ctx.status = ready ? 200 : 503;
    // Standbys are shown, not required: when none serves, reads go to the primary.
    const standbys = deps.reads?.enabled
      ? deps.reads.status().map((r) => ({ name: r.name, ok: r.up, lagMs: r.lagMs ?? null }))
      : undefined;
    ctx.body = {
      status: ready ? 'ready' : 'unavailable',
      checks: { postgres, redis, ...(standbys ? { standbys } : {}) },
    } satisfies Answer<Paths, '/readyz', 'get'> | Answer<Paths, '/readyz', 'get', 503>;
  });
  return router;
}
