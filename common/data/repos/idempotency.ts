import type { Queryable } from '../db.js';

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' }
  | { kind: 'replay'; status: number; body: unknown };

// The key is claimed and turns 'done' in the report's own transaction, so a committed 'pending' row
// was left by a version before 1.9.0 (which claimed it in a transaction of its own) whose request
// never finished; past this age a retry takes it over.
const ABANDONED_AFTER = '60 seconds';

/**
 * Claims (gameId, key) for this request, or says why not. Called inside the report's transaction: a
 * concurrent claim of the same key waits for that transaction and then sees its answer.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  gameId: string,
  key: string,
  requestHash: Buffer,
  ttlHours: number,
): Promise<IdempotencyClaim> {
  const claimed = await db.query(
    `INSERT INTO idempotency_keys (game_id, key, request_hash, state, expires_at)
     VALUES ($1, $2, $3, 'pending', now() + make_interval(hours => $4))
     ON CONFLICT (game_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, state = 'pending', created_at = now(),
           expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL
       WHERE idempotency_keys.expires_at < now()
          OR (idempotency_keys.state = 'pending' AND idempotency_keys.request_hash = EXCLUDED.request_hash
              AND idempotency_keys.created_at < now() - interval '${ABANDONED_AFTER}')
     RETURNING 1`,
    [gameId, key, requestHash, ttlHours],
  );
  if (claimed.rowCount) return { kind: 'claimed' };
  const { rows } = await db.query<{
    request_hash: Buffer;
    state: string;
    response_status: number;
    response_body: unknown;
  }>(
    'SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE game_id = $1 AND key = $2',
    [gameId, key],
  );
  const row = rows[0];
  if (!row) return claimIdempotencyKey(db, gameId, key, requestHash, ttlHours); // expired and purged meanwhile
  if (!row.request_hash.equals(requestHash)) return { kind: 'mismatch' };
  if (row.state === 'pending') return { kind: 'in_flight' };
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

export async function completeIdempotencyKey(
  db: Queryable,
  gameId: string,
  key: string,
  status: number,
  body: unknown,
) {
  await db.query(
    `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4 WHERE game_id = $1 AND key = $2`,
    [gameId, key, status, JSON.stringify(body)],
  );
}
