import type { Queryable } from '../data/db.js';
import type { KeptSanction } from '../data/repos/appeals.js';
import type { AppealReason } from '../domain/appeals.js';
import { ENDS_LEASE } from './lease.js';
import { ERASED_WORDS_SQL } from '../domain/players.js';
import { type AppealStatus } from '../data/shapes/appeal.js';

/**
 * An appeal's life, in one table (issue 33): filed `open`, then decided once, `granted` or
 * `denied`; both are final (another appeal of the same subject is a new appeal). A notifier's
 * complaint about the dismissal of a notice (DSA Art. 20) is an appeal of the notice: the same life,
 * one a notice. Its claim is a
 * lease (lease.ts). This module is the only code that writes an appeal (a test holds it to that):
 * its filing, and its decision under the row lock its caller took (usecases/appeals.ts,
 * lockOpenAppeal).
 *
 *   open --grant--> granted
 *   open --deny-->  denied
 */

export type AppealEvent = 'grant' | 'deny';

const TRANSITIONS: Readonly<Record<AppealStatus, Partial<Record<AppealEvent, AppealStatus>>>> = {
  open: { grant: 'granted', deny: 'denied' },
  granted: {},
  denied: {},
};

/** Where `event` takes an appeal in `status`; undefined when it does not move it. */
export const nextAppealStatus = (status: AppealStatus, event: AppealEvent): AppealStatus | undefined =>
  TRANSITIONS[status][event];

/**
 * Files an appeal, `open`: its id. One open appeal a subject (a unique index): a second one is a
 * unique violation the caller answers with 409 appeal_open.
 */
export async function recordFiling(
  db: Queryable,
  filing: {
    playerRowId: string;
    sanctionId: string | null;
    offenseId: string | null;
    noticeId?: string | null;
    reason: AppealReason;
    statement: string;
    filedByStudio: string | null;
    at: Date;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO appeals (player_id, sanction_id, offense_id, notice_id, reason, statement, filed_by_studio, created_at)
     VALUES ($1, $2, $3, $8, $4, $5, $6, $7) RETURNING id`,
    [
      filing.playerRowId,
      filing.sanctionId,
      filing.offenseId,
      filing.reason,
      filing.statement,
      filing.filedByStudio,
      filing.at,
      filing.noticeId ?? null,
    ],
  );
  return rows[0]!.id;
}

/**
 * Records the decision of an open appeal whose row the caller holds locked: its status, who decided
 * and when, the note, what the grant gave back, revoked and kept; its lease ends. A decided appeal is
 * not moved again (the caller answered 409 appeal_decided before getting here).
 */
export async function recordAppealDecision(
  db: Queryable,
  appeal: { id: string; status: AppealStatus },
  decision: {
    event: AppealEvent;
    by: string;
    at: Date;
    note: string;
    pointsRefunded: number;
    sanctionsRevoked: string[];
    sanctionsKept: KeptSanction[];
    /** A notifier's complaint granted: the case open again with the notice. */
    reopenedCaseId?: string | null;
  },
): Promise<AppealStatus> {
  const next = nextAppealStatus(appeal.status, decision.event);
  if (!next) throw new Error(`appeal ${appeal.id} is ${appeal.status}: ${decision.event} does not move it`);
  await db.query(
    `UPDATE appeals SET status = $2, decided_by = $3, decided_at = $4, decision_note = $5, points_refunded = $6,
            sanctions_revoked = $7, sanctions_kept = $8, reopened_case_id = $9, ${ENDS_LEASE}
      WHERE id = $1 AND status = 'open'`,
    [
      appeal.id,
      next,
      decision.by,
      decision.at,
      decision.note,
      decision.pointsRefunded,
      decision.sanctionsRevoked,
      JSON.stringify(decision.sanctionsKept),
      decision.reopenedCaseId ?? null,
    ],
  );
  return next;
}

/**
 * Erasure (common/lifecycles/erasure.ts): the words of a player's (`$1`, internal id) appeals,
 * replaced; the appeal, its reason code and its outcome stay (DSA Art. 20 records).
 */
export const ERASE_APPEAL_WORDS = `UPDATE appeals SET statement = ${ERASED_WORDS_SQL}, decision_note = NULL
  WHERE player_id = $1 AND statement <> ${ERASED_WORDS_SQL}`;

export { APPEAL_STATUSES, type AppealStatus } from '../data/shapes/appeal.js';
