import crypto from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../../common/logger.js';
import { tagActiveSpan } from '../../common/tracing/spans.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id (accepted from X-Request-Id or made), a child logger that carries it, one log line a request. */
export function requestContext(root: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    // Tracing on: the request's span names the id the caller was given, and its log lines the trace.
    tagActiveSpan('player_trust.request_id', requestId);
    const log = root.child({ reqId: requestId });
    ctx.state.log = log;
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The route's template, never the path: a path names a player (/v1/player/<serviceId>), and a
      // query can carry OAuth state or codes (docs/compliance.md "Data map": what logs hold).
      const route = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
      const state = ctx.state as {
        client?: { clientId: string };
        bearer?: { client: { clientId: string } };
        errorCode?: string;
      };
      // Health probes (a load balancer's, npm start's) every few seconds would bury every other line.
      const probe = (ctx.path === '/healthz' || ctx.path === '/readyz') && ctx.status < 500;
      log[probe ? 'debug' : 'info'](
        {
          method: ctx.method,
          path: typeof route === 'string' ? route : '(no route)',
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
          // Who called, and what went wrong: enough to follow one studio's errors in the logs.
          clientId: state.client?.clientId ?? state.bearer?.client.clientId,
          code: state.errorCode,
        },
        'request',
      );
    }
  };
}
