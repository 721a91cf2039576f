import type { Queryable } from '../db.js';

/** The sign-in failure counters of the lockout (common/usecases/lockout.ts), keyed `<kind>:<name>`. */

/**
 * Lockout against credential stuffing, over counters keyed `<kind>:<name>` (`ip:` keys are
 * addresses, any other an account): after 5 failures within 15 minutes on an account (50 from one
 * address), each further failure locks it for twice as long as the last (1 s, 2 s, 4 s ... at most
 * 15 minutes).
 */
export async function lockedForSeconds(
  db: Queryable,
  keys: string[],
  now: Date,
): Promise<number | undefined> {
  const { rows } = await db.query<{ wait: number | null }>(
    `SELECT ceil(extract(epoch FROM max(locked_until) - $2::timestamptz))::int AS wait
       FROM sign_in_failures WHERE key = ANY($1) AND locked_until > $2`,
    [keys, now],
  );
  const wait = rows[0]?.wait;
  return wait && wait > 0 ? wait : undefined;
}

/** The lockout's rule: the window, the failures each kind of key has free, the longest lock. */
export interface LockoutPolicy {
  windowMinutes: number;
  freeFailures: number;
  freeFailuresPerAddress: number;
  maxLockSeconds: number;
}

export async function recordFailure(
  db: Queryable,
  keys: string[],
  now: Date,
  policy: LockoutPolicy,
): Promise<void> {
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
    [
      keys,
      now,
      policy.windowMinutes,
      policy.freeFailures,
      policy.maxLockSeconds,
      policy.freeFailuresPerAddress,
    ],
  );
}

/** A success clears the account's count (not the address's). */
export async function clearFailures(db: Queryable, accountKey: string): Promise<void> {
  await db.query('DELETE FROM sign_in_failures WHERE key = $1', [accountKey]);
}
