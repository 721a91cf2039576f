import crypto from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import { Router } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../../../common/errors.js';
import { metricsAuthorized, type ApiMetrics } from '../../../common/metrics.js';
import type { ShardedQueues } from '../../../common/queues/shards.js';
import { moderatorSignIn } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';

export const BOARD_PATH = '/admin/queues';

/** Prometheus text at /metrics; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
export function metricsRoutes(metrics: ApiMetrics, token: string | undefined): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    if (!metricsAuthorized(ctx.get('authorization') || undefined, token))
      throw new AppError(401, 'invalid_token', 'Send the metrics token: Authorization: Bearer <token>.', {
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
    let body: string;
    try {
      body = await metrics.scrape();
    } catch (err) {
      throw new AppError(
        503,
        'service_unavailable',
        `The metrics of every API process could not be gathered: ${(err as Error).message}.`,
      );
    }
    ctx.type = metrics.registry.contentType;
    ctx.body = body;
  });
  return router;
}

/** Counts every request by method, route template and final status (outside the error handler). */
export function metricsMiddleware(metrics: ApiMetrics): Middleware {
  return async (ctx: Context, next: Next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route =
        (ctx as Context & { _matchedRoute?: string })._matchedRoute ??
        (ctx.path.startsWith(BOARD_PATH) ? `${BOARD_PATH}/*` : 'unmatched');
      metrics.observe(ctx.method, String(route), ctx.status, Number(process.hrtime.bigint() - start) / 1e9);
    }
  };
}

const BOARD_CACHE_MS = 60_000;

/**
 * Bull Board at /admin/queues for admin moderators. A browser page cannot send a bearer token, so it
 * takes HTTP Basic with the moderator's username and password, checked by the same sign-in (and
 * lockout) as the API; a verified header is remembered for a minute so the board's polling does not
 * cost a password hash per request.
 */
export function queueBoard(deps: ApiDeps, queues: ShardedQueues): Middleware[] {
  const adapter = new KoaAdapter();
  adapter.setBasePath(BOARD_PATH);
  createBullBoard({
    // Read-only: the board shows queues and jobs; retrying, cleaning or removing jobs is not done
    // from a browser (no audit trail there), but with the admin tool or BullMQ by an operator.
    // With several shards each queue shows once per shard, named by its shard.
    queues: queues.shards.flatMap((shard, k) =>
      Object.values(shard).map(
        (q) =>
          new BullMQAdapter(q, { readOnlyMode: true, ...(queues.count > 1 ? { prefix: `shard${k}-` } : {}) }),
      ),
    ),
    serverAdapter: adapter,
  });
  const verified = new Map<string, number>();
  const challenge = (status: 401 | 403, detail: string) =>
    new AppError(status, status === 401 ? 'invalid_credentials' : 'forbidden', detail, {
      headers:
        status === 401 ? { 'WWW-Authenticate': 'Basic realm="player-trust queues", charset="UTF-8"' } : {},
    });

  const guard: Middleware = async (ctx, next) => {
    if (ctx.path !== BOARD_PATH && !ctx.path.startsWith(`${BOARD_PATH}/`)) return next();
    const header = ctx.get('authorization');
    const key = crypto.createHash('sha256').update(header).digest('hex');
    if ((verified.get(key) ?? 0) > Date.now()) return next();
    const match = /^Basic ([A-Za-z0-9+/]+=*)$/.exec(header);
    const [username, ...rest] = match ? Buffer.from(match[1]!, 'base64').toString('utf8').split(':') : [];
    if (!username) throw challenge(401, 'Sign in with an admin moderator account.');
    const result = await moderatorSignIn(deps.pool, {
      username,
      password: rest.join(':'),
      address: ctx.ip,
      now: deps.clock(),
    });
    if (!result.ok) throw challenge(401, 'The username or password is not right, or the account is locked.');
    if (result.account.role !== 'admin') throw challenge(403, 'The queue board needs the admin role.');
    if (verified.size > 1000) verified.clear();
    verified.set(key, Date.now() + BOARD_CACHE_MS);
    return next();
  };
  // The board's page links a web font from a CDN: our pages load nothing from outside, so the link
  // is taken out and the policy forbids any outside origin.
  const localOnly: Middleware = async (ctx, next) => {
    if (ctx.path !== BOARD_PATH && !ctx.path.startsWith(`${BOARD_PATH}/`)) return next();
    await next();
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    );
    if (typeof ctx.body === 'string' && ctx.response.is('html'))
      ctx.body = ctx.body.replace(/<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g, '');
  };
  return [guard, localOnly, adapter.registerPlugin() as unknown as Middleware];
}
