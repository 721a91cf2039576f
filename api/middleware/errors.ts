import type { Context, Next } from 'koa';
import { AppError } from '../../common/errors.js';
import type { Body } from '../contract-types.js';

export const PROBLEM_TYPE_BASE = 'urn:player-trust:problem:';

/** Maps a low-level error (body parser, pg, ioredis) to an AppError, or undefined for a real fault. */
function translate(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; type?: string; code?: string; expose?: boolean; message?: string };
  if (e.type === 'entity.too.large' || e.status === 413)
    return new AppError(413, 'payload_too_large', 'The request body is larger than this endpoint accepts.');
  if (
    e.type === 'entity.parse.failed' ||
    (e.status === 400 && /JSON|json|Unexpected token/.test(e.message ?? ''))
  )
    return new AppError(400, 'invalid_json', 'The request body is not valid JSON.');
  if (e.status === 415)
    return new AppError(415, 'unsupported_media_type', 'Send the body as application/json.');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return new AppError(415, 'unsupported_media_type', 'The body encoding or charset is not supported.');
  // The database or Redis is unreachable: a fast, honest 503 the client may retry.
  if (
    // (25006: a write reached a host that became a standby; no_writable_host: a failover under way.)
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      '57P01',
      '57P03',
      '53300',
      '08006',
      '08001',
      '25006',
      'no_writable_host',
    ].includes(e.code ?? '') ||
    /Connection terminated|timeout exceeded when trying to connect|Connection is closed/.test(e.message ?? '')
  )
    return new AppError(503, 'service_unavailable', 'A backing service is unavailable; retry shortly.', {
      headers: { 'Retry-After': '2' },
    });
  return undefined;
}

/** The one error handler: every failure leaves as application/problem+json (RFC 9457) with a code. */
export async function errorHandler(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}.`, {
        title: 'Not Found',
      });
    }
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
      const allow = ctx.response.get('Allow');
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed here; use ${allow}.`, {
        headers: { Allow: allow },
      });
    }
  } catch (err) {
    const { appError, unexpected } = appErrorOf(err, ctx.state.requestId as string);
    if (unexpected || appError.status >= 500) {
      ctx.state.log?.error(
        {
          err:
            err instanceof Error
              ? { message: err.message, stack: err.stack, code: (err as { code?: string }).code }
              : err,
        },
        'request failed',
      );
    }
    ctx.status = appError.status;
    ctx.state.errorCode = appError.code;
    for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
    ctx.type = appError.contentType;
    ctx.body = problemBody(appError, ctx.state.requestId as string);
  }
}

/** The AppError a failure answers with; `unexpected` when it is a fault of ours (logged, 500). */
export function appErrorOf(err: unknown, requestId: string): { appError: AppError; unexpected: boolean } {
  const known = translate(err);
  return known
    ? { appError: known, unexpected: false }
    : {
        appError: new AppError(
          500,
          'internal_error',
          `An unexpected error occurred; quote request id ${requestId}.`,
        ),
        unexpected: true,
      };
}

/** The RFC 9457 problem document of an AppError: the body of every error answer. */
export function problemBody(appError: AppError, requestId: string): Body<'ErrorResponse'> {
  return {
    type: `${PROBLEM_TYPE_BASE}${appError.code}`,
    title: appError.title,
    status: appError.status,
    detail: appError.detail,
    code: appError.code,
    requestId,
    ...(appError.fields ? { errors: appError.fields } : {}),
    ...appError.extensions,
  };
}

/** 415 for a body sent as anything but JSON (and, where allowed, form-encoded). */
export function requireJsonBody(allowForm = false) {
  return async (ctx: Context, next: Next) => {
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (
      hasBody &&
      !ctx.is('application/json', '+json', ...(allowForm ? ['application/x-www-form-urlencoded'] : []))
    ) {
      throw new AppError(
        415,
        'unsupported_media_type',
        `Send the body as application/json${allowForm ? ' or application/x-www-form-urlencoded' : ''}.`,
      );
    }
    await next();
  };
}
