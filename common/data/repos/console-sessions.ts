import type { Queryable } from '../db.js';

/** The moderators' console sessions, by the hash of their cookie (the cookie itself is never stored). */
export async function insertConsoleSession(
  db: Queryable,
  s: { idHash: Buffer; moderatorId: string; csrfToken: string; now: Date; maxAgeSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO console_sessions (id_hash, moderator_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $4, $4::timestamptz + make_interval(secs => $5))`,
    [s.idHash, s.moderatorId, s.csrfToken, s.now, s.maxAgeSeconds],
  );
}

/**
 * The live session of a cookie's hash (not idle for `idleSeconds`, not past its end), in one
 * statement that writes last_seen_at only when it is more than `touchEverySeconds` old.
 */
export async function liveConsoleSession(
  db: Queryable,
  idHash: Buffer,
  now: Date,
  idleSeconds: number,
  touchEverySeconds: number,
): Promise<{ moderatorId: string; csrfToken: string } | undefined> {
  const { rows } = await db.query<{ moderator_id: string; csrf_token: string }>(
    `WITH live AS (
       SELECT id_hash, moderator_id, csrf_token, last_seen_at FROM console_sessions
        WHERE id_hash = $1 AND expires_at > $2 AND last_seen_at > $2::timestamptz - make_interval(secs => $3)),
     touched AS (
       UPDATE console_sessions c SET last_seen_at = $2 FROM live
        WHERE c.id_hash = live.id_hash AND live.last_seen_at < $2::timestamptz - make_interval(secs => $4))
     SELECT moderator_id, csrf_token FROM live`,
    [idHash, now, idleSeconds, touchEverySeconds],
  );
  return rows[0] && { moderatorId: rows[0].moderator_id, csrfToken: rows[0].csrf_token };
}

export async function deleteConsoleSession(db: Queryable, idHash: Buffer): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash]);
}

/** Ends every console session of a moderator (a password reset); answers how many. */
export async function endConsoleSessionsOf(db: Queryable, moderatorId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM console_sessions WHERE moderator_id = $1', [moderatorId]);
  return rowCount ?? 0;
}
