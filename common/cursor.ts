import Joi from 'joi';
import { isUuid } from './domain/ids.js';
import { validationError } from './errors.js';
import { check } from './validation.js';

/** Opaque keyset cursors: the sort keys of the last item, as base64url JSON. */
export const encodeKeys = (keys: string[]) => Buffer.from(JSON.stringify(keys)).toString('base64url');

/** The keys of a cursor this service issued, or undefined when it is not one (checked by `valid`). */
export function decodeKeys(cursor: string, valid: (keys: string[]) => boolean): string[] | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || !value.every((k) => typeof k === 'string')) return undefined;
    return valid(value as string[]) ? (value as string[]) : undefined;
  } catch {
    return undefined;
  }
}

export const CURSOR_DESCRIPTION = 'nextCursor of the previous page.';
/** A listing's cursor as a query parameter: what the previous page answered as nextCursor. */
export const CURSOR = Joi.string().max(512).description(CURSOR_DESCRIPTION);
/** The query of a cursor-paginated listing: limit 1..100 (20 by default) and the previous page's nextCursor. */
export const pageQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

export const invalidCursor = () =>
  validationError([{ field: 'cursor', message: 'is not a cursor this service issued' }]);

/** A (timestamp, uuid) cursor: offenses and webhook deliveries, newest first. */
export const encodeCursor = (ts: string, id: string) => encodeKeys([ts, id]);

export function decodeCursor(cursor: string): { ts: string; id: string } | undefined {
  const keys = decodeKeys(cursor, (k) => k.length === 2 && isUuid(k[1]!) && !Number.isNaN(Date.parse(k[0]!)));
  return keys && { ts: keys[0]!, id: keys[1]! };
}

/** A listing's page from its query string: the limit, and where the previous page ended (400 if forged). */
export function readPage(query: unknown): { limit: number; after?: { ts: string; id: string } } {
  const { limit, cursor } = check<{ limit: number; cursor?: string }>(pageQuery, query, 'query');
  if (cursor === undefined) return { limit };
  const after = decodeCursor(cursor);
  if (!after) throw invalidCursor();
  return { limit, after };
}

/**
 * One page from rows read with `limit + 1`: the first `limit`, presented, and the cursor of the last of
 * them when more follow.
 */
export function pageOf<R, T>(rows: R[], limit: number, present: (r: R) => T, cursorOf: (last: R) => string) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(present), nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}

/** The one key of a cursor this service issued (undefined without one; 400 when it is not one). */
export function oneKey(cursor: string | undefined, valid: (key: string) => boolean): string | undefined {
  if (cursor === undefined) return undefined;
  const keys = decodeKeys(cursor, (k) => k.length === 1 && valid(k[0]!));
  if (!keys) throw invalidCursor();
  return keys[0];
}
