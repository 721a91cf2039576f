import type { Queryable } from '../data/db.js';
import { verifyPasswordOrDummy } from '../security/secrets.js';

export const MAX_FREE_FAILURES = 5;
// An address may be shared by many people (NAT, a LAN party): it gets more room than one account.
export const MAX_FREE_FAILURES_PER_ADDRESS = 50;
const WINDOW_MINUTES = 15;
const MAX_LOCK_SECONDS = 15 * 60;

/**
 * Lockout against credential stuffing, over counters keyed `<kind>:<name>` (`ip:` keys are
 * addresses, any other an account): after 5 failures within 15 minutes on an account (50 from one
 * address), each further failure locks it for twice as long as the last (1 s, 2 s, 4 s ... at most
 * 15 minutes).
 */
async function lockedForSeconds(db: Queryable, keys: string[], now: Date): Promise<number | undefined> {
  const { rows } = await db.query<{ wait: number | null }>(
    `SELECT ceil(extract(epoch FROM max(locked_until) - $2::timestamptz))::int AS wait
       FROM sign_in_failures WHERE key = ANY($1) AND locked_until > $2`,
    [keys, now],
  );
  const wait = rows[0]?.wait;
  return wait && wait > 0 ? wait : undefined;
}

async function recordFailure(db: Queryable, keys: string[], now: Date): Promise<void> {
  await db.query(
    `INSERT INTO sign_in_failures AS f (key, failures, updated_at) SELECT k, 1, $2 FROM unnest($1::text[]) AS k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN f.updated_at < $2::timestamptz - make_interval(mins => $3) THEN 1 ELSE f.failures + 1 END,
       updated_at = $2,
       locked_until = CASE
         WHEN f.updated_at >= $2::timestamptz - make_interval(mins => $3)
              AND f.failures + 1 > (CASE WHEN f.key LIKE 'ip:%' THEN $6::int ELSE $4::int END)
         THEN $2::timestamptz + make_interval(secs =>
                LEAST(power(2, f.failures - (CASE WHEN f.key LIKE 'ip:%' THEN $6::int ELSE $4::int END)), $5))
         ELSE f.locked_until END`,
    [keys, now, WINDOW_MINUTES, MAX_FREE_FAILURES, MAX_LOCK_SECONDS, MAX_FREE_FAILURES_PER_ADDRESS],
  );
}

/** A success clears the account's count (not the address's). */
async function clearFailures(db: Queryable, accountKey: string): Promise<void> {
  await db.query('DELETE FROM sign_in_failures WHERE key = $1', [accountKey]);
}

export type SignInResult<T> =
  | { ok: true; account: T }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfterSeconds: number };

/**
 * A password sign-in behind the lockout, for players and moderators alike: refused while the
 * account (`accountKey`) or the address is locked; `find` returns the account with its hash, or
 * undefined when there is none or it may not sign in, which costs the same scrypt time as a wrong
 * password. A success clears the account's failures; a failure counts for both keys.
 */
export async function passwordSignIn<T>(
  db: Queryable,
  input: { accountKey: string; password: string; address: string; now: Date },
  find: () => Promise<{ account: T; passwordHash: string | null } | undefined>,
): Promise<SignInResult<T>> {
  const keys = [input.accountKey, `ip:${input.address}`];
  const wait = await lockedForSeconds(db, keys, input.now);
  if (wait) return { ok: false, reason: 'locked', retryAfterSeconds: wait };
  const found = await find();
  if (await verifyPasswordOrDummy(input.password, found?.passwordHash)) {
    await clearFailures(db, input.accountKey);
    return { ok: true, account: found!.account };
  }
  await recordFailure(db, keys, input.now);
  return { ok: false, reason: 'invalid' };
}

/**
 * Sign-up answers whether a gamer tag is taken (gamer tags are public), so guessing tags there is
 * behind the address's lockout too: a sign-up is refused while the address is locked, and one that
 * finds the tag taken counts as a failure of the address (never of the account, which is not the
 * caller's).
 */
export async function addressLockedForSeconds(db: Queryable, address: string, now: Date) {
  return lockedForSeconds(db, [`ip:${address}`], now);
}

export async function recordAddressFailure(db: Queryable, address: string, now: Date): Promise<void> {
  await recordFailure(db, [`ip:${address}`], now);
}
