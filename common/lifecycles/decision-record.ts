import type { Queryable } from '../data/db.js';
import { composeSanctionDecision } from '../data/repos/transparency.js';
import type { SanctionDecision } from '../domain/decision-record.js';

/**
 * The stored decision records (issue 49, migration 059), the only code that writes them (a test
 * holds it to that). A record is written once, in the transaction that makes the decision, and never
 * changed (a trigger refuses an update): every message about the decision is made from it
 * (common/domain/decision-record.ts and its projections), so what it says cannot drift from what was
 * decided when the rows change later (an erasure, a rule renamed, a case that took more reports).
 *
 *   (decision made) --record--> recorded    (once: a second record of the same decision is refused)
 */

/**
 * Records the decision of a sanction just placed, in the placing transaction, and returns it: who
 * decided (a moderator, a studio, the strike ladder, a rule) and what it extends are the placer's
 * own word, the rest is read from the rows just written.
 */
export async function recordSanctionDecision(
  db: Queryable,
  sanctionId: string,
  placer: {
    decidedBy: SanctionDecision['decidedBy'];
    extendedFrom?: SanctionDecision['extendedFrom'];
  },
): Promise<SanctionDecision> {
  const decision: SanctionDecision = {
    ...(await composeSanctionDecision(db, sanctionId, placer.decidedBy)),
    extendedFrom: placer.extendedFrom ?? null,
  };
  await db.query(
    `INSERT INTO decision_records (kind, subject_id, record, created_at) VALUES ('sanction', $1, $2, $3)`,
    [sanctionId, JSON.stringify(decision), decision.createdAt],
  );
  return decision;
}
