import crypto from 'node:crypto';
import type { Queryable } from '../data/db.js';

export const CONSOLE_COOKIE = 'pt_console';
export const CSRF_HEADER = 'x-csrf-token';

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest();

export interface ConsoleSessionPolicy {
  idleSeconds: number;
  maxAgeSeconds: number;
}

/** A new session for a signed-in moderator: the cookie value (256 random bits) and its CSRF token. */
export async function openConsoleSession(
  db: Queryable,
  moderatorId: string,
  policy: ConsoleSessionPolicy,
  now: Date,
): Promise<{ sessionId: string; csrfToken: string }> {
  const sessionId = crypto.randomBytes(32).toString('base64url');
  const csrfToken = crypto.randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO console_sessions (id_hash, moderator_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $4, $4::timestamptz + make_interval(secs => $5))`,
    [sha256(sessionId), moderatorId, csrfToken, now, policy.maxAgeSeconds],
  );
  return { sessionId, csrfToken };
}

/** How stale last_seen_at may get before a request writes it again (idle expiry is that coarse). */
export const TOUCH_EVERY_SECONDS = 60;

/**
 * The live session of a cookie: undefined once it has been idle for `idleSeconds`, is past its
 * absolute end, or was signed out. One statement; it writes last_seen_at only when that is over a
 * minute old, so a console polling every few seconds reads its session instead of rewriting the row
 * on every request.
 */
export async function touchConsoleSession(
  db: Queryable,
  sessionId: string,
  policy: ConsoleSessionPolicy,
  now: Date,
): Promise<{ moderatorId: string; csrfToken: string } | undefined> {
  const { rows } = await db.query<{ moderator_id: string; csrf_token: string }>(
    `WITH live AS (
       SELECT id_hash, moderator_id, csrf_token, last_seen_at FROM console_sessions
        WHERE id_hash = $1 AND expires_at > $2 AND last_seen_at > $2::timestamptz - make_interval(secs => $3)),
     touched AS (
       UPDATE console_sessions c SET last_seen_at = $2 FROM live
        WHERE c.id_hash = live.id_hash AND live.last_seen_at < $2::timestamptz - make_interval(secs => $4))
     SELECT moderator_id, csrf_token FROM live`,
    [sha256(sessionId), now, policy.idleSeconds, TOUCH_EVERY_SECONDS],
  );
  return rows[0] && { moderatorId: rows[0].moderator_id, csrfToken: rows[0].csrf_token };
}

export async function closeConsoleSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [sha256(sessionId)]);
}

/** Constant-time comparison of the CSRF token a write sent with the session's. */
export function csrfMatches(sent: string | undefined, expected: string): boolean {
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
