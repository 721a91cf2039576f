import bourne from '@hapi/bourne';
import inflate from 'inflation';
import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { AppError, validationError } from '../../common/errors.js';

/** How long, and how much, a refused oversized body is still read so the client sees the 413. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 16 * 1024 * 1024;

const invalidJson = (detail: string) => new AppError(400, 'invalid_json', detail);

/** How deep objects and arrays may nest in a JSON body (a report nests about 5 levels). */
export const MAX_JSON_DEPTH = 32;

/**
 * The deepest nesting of objects and arrays in JSON text, stopping as soon as it passes `max`: one
 * pass over the characters, outside strings, with no recursion, so a body nested 10,000 deep costs
 * what its length costs and never reaches a recursive walk.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * The one place a JSON body is read: raw-body reads it (up to `limit`, inflating gzip/deflate),
 * strict UTF-8 decoding refuses bytes that are not UTF-8 (instead of storing U+FFFD), and
 * @hapi/bourne parses it refusing `__proto__` keys. Anything but an object is 400 validation_failed
 * ("the body must be an object"); an empty body is {}. An oversized body gets its 413 and the
 * connection is closed after the rest is read for a bounded time, so a client still sending sees
 * the answer rather than a reset. A POST to a path `larger` names (a ban wave's thousands of players)
 * may be up to its own limit.
 */
export function jsonBody(limit: string, larger?: { path: RegExp; limit: string }) {
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
        limit: larger && ctx.method === 'POST' && larger.path.test(ctx.path) ? larger.limit : limit,
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
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
      throw new AppError(
        400,
        'json_too_deep',
        `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`,
      );
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

/**
 * The dotted path of the first string (or key) holding a NUL, as validation errors name fields. A
 * walk with its own stack, depth first in document order: no recursion for a body to overflow.
 */
function findNul(root: unknown, rootPath: string): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: root, path: rootPath }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
    if (typeof value === 'string') {
      if (NUL.test(value)) return path || 'body';
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: at(i) });
    } else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [k] of entries) if (NUL.test(k)) return at(k.replaceAll('\u0000', '\\0'));
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i]![1], path: at(entries[i]![0]) });
    }
  }
  return undefined;
}
