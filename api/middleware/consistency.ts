import type { Context, Next } from 'koa';
import { AppError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { Queryable } from '../../common/data/db.js';
import { parseLsn, type Lsn, type ReadRouting } from '../../common/data/replicas.js';

/**
 * Read-your-writes across standbys (common/data/replicas.ts). With standbys configured, every 2xx
 * answer to a POST, PUT, PATCH or DELETE carries `Consistency-Token`: a WAL position at or past its
 * commit. A read that sends it back in the same header is served only by a standby that has replayed
 * that far (or by the primary). The token is opaque to clients; a malformed one is a 400 and changes
 * nothing. Reads that standbys may serve say which served them in `Read-Source`.
 */
export const CONSISTENCY_TOKEN = 'Consistency-Token';
export const READ_SOURCE = 'Read-Source';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function consistencyTokens(reads: ReadRouting, log: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const given = ctx.get(CONSISTENCY_TOKEN);
    if (given) {
      const lsn = parseLsn(given.trim());
      if (lsn === undefined)
        throw new AppError(
          400,
          'invalid_consistency_token',
          `${CONSISTENCY_TOKEN} must be a token this service returned (like 0/16B3748).`,
        );
      ctx.state.readAfter = lsn;
    }
    await next();
    // A POST that only reads (the lobby lookup) changed nothing: no token.
    if (
      reads.enabled &&
      !SAFE.has(ctx.method) &&
      !ctx.state.routedRead &&
      ctx.status >= 200 &&
      ctx.status < 300
    ) {
      try {
        ctx.set(CONSISTENCY_TOKEN, await reads.currentLsn());
      } catch (err) {
        // The write is committed; only the token is missing, and a read without one is still
        // served within REPLICA_MAX_LAG_MS of it.
        log.warn({ err: (err as Error).message }, 'consistency token not read');
      }
    }
  };
}

/** Runs a read where ReadRouting sends it (a standby or the primary) and says which served it. */
export async function routedRead<T>(
  ctx: Context,
  reads: ReadRouting,
  fn: (db: Queryable) => Promise<T>,
): Promise<T> {
  ctx.state.routedRead = true;
  const { value, target } = await reads.read(ctx.state.readAfter as Lsn | undefined, fn);
  if (reads.enabled) ctx.set(READ_SOURCE, target);
  return value;
}
