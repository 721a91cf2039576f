import type { Queryable } from '../data/db.js';
import type { Outcome } from '../data/repos/moderation.js';
import { ENDS_LEASE } from './lease.js';

/**
 * A review case's status, in one table (issue 33): a case is `open` while reports gather in it (the
 * review worker opens one per player and kind, worker/processors/review.ts), then `resolved` once,
 * upheld or dismissed; a new report of the same kind opens a new case. Its claim is a lease
 * (lease.ts). This module is the only code that moves a case's status after it opened (a test holds
 * it to that), under the row lock its caller took (usecases/moderation.ts, lockOpenCase).
 *
 *   open --resolve--> resolved
 */
export const CASE_STATUSES = ['open', 'resolved'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

const TRANSITIONS: Readonly<Record<CaseStatus, Partial<Record<'resolve', CaseStatus>>>> = {
  open: { resolve: 'resolved' },
  resolved: {},
};

export const nextCaseStatus = (status: CaseStatus, event: 'resolve'): CaseStatus | undefined =>
  TRANSITIONS[status][event];

/** Records the resolution of an open case whose row the caller holds locked; its lease ends. */
export async function recordResolution(
  db: Queryable,
  c: { id: string; status: CaseStatus },
  resolution: { outcome: Outcome; note: string; by: string; pointsRestored: number },
): Promise<void> {
  if (!nextCaseStatus(c.status, 'resolve'))
    throw new Error(`case ${c.id} is ${c.status}: it cannot be resolved`);
  await db.query(
    `UPDATE review_cases SET status = 'resolved', outcome = $2, resolution_note = $3, resolved_by = $4,
            resolved_at = now(), points_restored = $5, ${ENDS_LEASE}, updated_at = now()
      WHERE id = $1 AND status = 'open'`,
    [c.id, resolution.outcome, resolution.note, resolution.by, resolution.pointsRestored],
  );
}
