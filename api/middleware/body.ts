import bourne from '@hapi/bourne';
import inflate from 'inflation';
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { AppError, validationError } from '../../common/errors.js';

/** How long, and how much, a refused oversized body is still read so the client sees the 413. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 16 * 1024 * 1024;

const invalidJson = (detail: string) => new AppError(400, 'invalid_json', detail);

/**
 * The one place a JSON body is read: raw-body reads it (up to `limit`, inflating gzip/deflate),
 * strict UTF-8 decoding refuses bytes that are not UTF-8 (instead of storing U+FFFD), and
 * @hapi/bourne parses it refusing `__proto__` keys. Anything but an object is 400 validation_failed
 * ("the body must be an object"); an empty body is {}. An oversized body gets its 413 and the
 * connection is closed after the rest is read for a bounded time, so a client still sending sees
 * the answer rather than a reset.
 */
export function jsonBody(limit: string) {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return async (ctx: Context, next: Next) => {
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (!hasBody || !ctx.is('application/json', '+json')) {
      await next();
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await getRawBody(inflate(ctx.req), {
        limit,
        ...(ctx.get('content-encoding') ? {} : { length: ctx.get('content-length') || undefined }),
      });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') lingerThenClose(ctx);
      throw err;
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw invalidJson('The request body is not valid UTF-8.');
    }
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = bourne.parse(text, { protoAction: 'error' });
      } catch (err) {
        if (/prototype/i.test((err as Error).message))
          throw invalidJson('The request body has a "__proto__" key, which is not accepted anywhere.');
        throw invalidJson('The request body is not valid JSON.');
      }
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw validationError([{ field: 'body', message: 'the body must be an object' }]);
    ctx.request.body = body;
    await next();
  };
}

/** Keeps reading (and discarding) a refused body for a while, then closes the connection. */
function lingerThenClose(ctx: Context) {
  ctx.set('Connection', 'close');
  const req = ctx.req;
  let read = 0;
  const stop = () => req.socket.destroy();
  const timer = setTimeout(stop, LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) stop();
  });
  req.on('end', () => clearTimeout(timer));
  req.on('close', () => clearTimeout(timer));
  req.resume();
}

// eslint-disable-next-line no-control-regex -- NUL is exactly what it looks for
const NUL = /\u0000/;

/**
 * PostgreSQL cannot store NUL in text: a NUL anywhere in a body or a query string is a 400 naming
 * the field, for every route, before anything reaches the database.
 */
export async function refuseNul(ctx: Context, next: Next): Promise<void> {
  const found = findNul(ctx.request.body, '') ?? findNul(ctx.query, '');
  if (found) throw validationError([{ field: found, message: 'must not contain a NUL character' }]);
  await next();
}

/** The dotted path of the first string (or key) holding a NUL, as validation errors name fields. */
function findNul(value: unknown, path: string): string | undefined {
  const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
  if (typeof value === 'string') return NUL.test(value) ? path || 'body' : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const hit = findNul(v, at(i));
      if (hit) return hit;
    }
    return undefined;
  }
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (NUL.test(k)) return at(k.replaceAll('\u0000', '\\0'));
      const hit = findNul(v, at(k));
      if (hit) return hit;
    }
  return undefined;
}
