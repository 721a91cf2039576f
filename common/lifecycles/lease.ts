import type { Queryable } from '../data/db.js';

/**
 * The one lease helper for what moderators claim (issue 33): review cases and appeals. A claim is a
 * lease on the database's clock (`claimed_by`, `claim_expires_at`): its holder works the thing alone
 * until it runs out; claiming again renews it; the holder gives it up early, or an admin frees it for
 * someone who left. This module is the only code that writes those two columns (a test holds it to
 * that); the use cases ask it what a claim or a release does, and the statements that end a case or
 * an appeal end its lease with ENDS_LEASE.
 *
 * The one difference between the two, stated here: an admin's claim takes over another moderator's
 * live claim of an **appeal** (audited with the previous holder), because an appeal has a deadline
 * the player is waiting on and a single reviewer; a live claim of a **case** is refused to everyone
 * (409 case_claimed), admins included, because its holder may be writing its decision now: an admin
 * releases it first, which the holder sees.
 */
export const LEASED = {
  case: { table: 'review_cases', adminTakesOver: false },
  appeal: { table: 'appeals', adminTakesOver: true },
} as const;
export type LeasedKind = keyof typeof LEASED;

export interface Lease {
  holderId: string;
  expiresAt: Date;
}

interface Claimant {
  id: string;
  role: string;
}

/** What a claim by `actor` does to the live lease `current` (null: none, or it ran out). */
export type ClaimVerdict =
  | { verdict: 'take' }
  | { verdict: 'renew' }
  | { verdict: 'take_over'; from: Lease }
  | { verdict: 'refused'; holder: Lease };

export function claimVerdict(kind: LeasedKind, current: Lease | null, actor: Claimant): ClaimVerdict {
  if (!current) return { verdict: 'take' };
  if (current.holderId === actor.id) return { verdict: 'renew' };
  if (actor.role === 'admin' && LEASED[kind].adminTakesOver) return { verdict: 'take_over', from: current };
  return { verdict: 'refused', holder: current };
}

/** What a release by `actor` does: its holder gives it up, an admin frees anyone's. */
export type ReleaseVerdict =
  { verdict: 'release'; of: Lease } | { verdict: 'not_claimed' } | { verdict: 'refused'; holder: Lease };

export function releaseVerdict(current: Lease | null, actor: Claimant): ReleaseVerdict {
  if (!current) return { verdict: 'not_claimed' };
  if (current.holderId !== actor.id && actor.role !== 'admin') return { verdict: 'refused', holder: current };
  return { verdict: 'release', of: current };
}

/** Grants (or renews) the lease to `holderId` for `seconds`, on the database's clock; its end. */
export async function grantLease(
  db: Queryable,
  kind: LeasedKind,
  id: string,
  holderId: string,
  seconds: number,
): Promise<Date> {
  const { rows } = await db.query<{ expires_at: Date }>(
    `UPDATE ${LEASED[kind].table} SET claimed_by = $2, claim_expires_at = now() + make_interval(secs => $3)
      WHERE id = $1 RETURNING claim_expires_at AS expires_at`,
    [id, holderId, seconds],
  );
  return rows[0]!.expires_at;
}

/** Gives the lease up: nobody holds it any more. */
export async function dropLease(db: Queryable, kind: LeasedKind, id: string): Promise<void> {
  await db.query(
    `UPDATE ${LEASED[kind].table} SET claimed_by = NULL, claim_expires_at = NULL WHERE id = $1`,
    [id],
  );
}

/**
 * SQL for a statement that ends a case or an appeal (resolved, decided): the lease ends with it, and
 * `claimed_by` stays as the record of who last held it.
 */
export const ENDS_LEASE = 'claim_expires_at = NULL';

/** SQL for a statement that moves a case away from whoever held it (an escalation, a move): no holder. */
export const DROPS_LEASE = 'claimed_by = NULL, claim_expires_at = NULL';
