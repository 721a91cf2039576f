import crypto from 'node:crypto';
import type { Queryable } from '../data/db.js';
import {
  deleteConsoleSession,
  insertConsoleSession,
  liveConsoleSession,
} from '../data/repos/console-sessions.js';

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
  await insertConsoleSession(db, {
    idHash: sha256(sessionId),
    moderatorId,
    csrfToken,
    now,
    maxAgeSeconds: policy.maxAgeSeconds,
  });
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
  return liveConsoleSession(db, sha256(sessionId), now, policy.idleSeconds, TOUCH_EVERY_SECONDS);
}

export async function closeConsoleSession(db: Queryable, sessionId: string): Promise<void> {
  await deleteConsoleSession(db, sha256(sessionId));
}

/** Constant-time comparison of the CSRF token a write sent with the session's. */
export function csrfMatches(sent: string | undefined, expected: string): boolean {
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
