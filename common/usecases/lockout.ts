import type { Queryable } from '../data/db.js';
import { verifyPasswordOrDummy } from '../security/secrets.js';
import { clearFailures, lockedForSeconds, recordFailure, type LockoutPolicy } from '../data/repos/lockout.js';

export const MAX_FREE_FAILURES = 5;
// An address may be shared by many people (NAT, a LAN party): it gets more room than one account.
export const MAX_FREE_FAILURES_PER_ADDRESS = 50;
const WINDOW_MINUTES = 15;
const MAX_LOCK_SECONDS = 15 * 60;
const POLICY: LockoutPolicy = {
  windowMinutes: WINDOW_MINUTES,
  freeFailures: MAX_FREE_FAILURES,
  freeFailuresPerAddress: MAX_FREE_FAILURES_PER_ADDRESS,
  maxLockSeconds: MAX_LOCK_SECONDS,
};

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
  await recordFailure(db, keys, input.now, POLICY);
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
  await recordFailure(db, [`ip:${address}`], now, POLICY);
}
