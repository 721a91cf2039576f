import type { Queryable } from '../db.js';
import type { MeasureRow } from '../shapes/misuse.js';

/**
 * Reads of the misuse records (docs/moderators.md "Notices"); common/lifecycles/misuse.ts is the only code that
 * writes them.
 */

/**
 * Who sent a report or a notice (the studio and its reporter, or the notice's sender) and its case's
 * outcome, under the offense's row lock; undefined when there is no such offense.
 */
export async function lockOffenseSender(db: Queryable, offenseId: string) {
  const { rows } = await db.query<{
    studio_id: string;
    reporter_id: string | null;
    sender_key: string | null;
    case_id: string | null;
    outcome: string | null;
  }>(
    `SELECT o.studio_id, o.reporter_id, n.sender_key, co.case_id, c.outcome
       FROM offenses o LEFT JOIN notices n ON n.offense_id = o.id
       LEFT JOIN case_offenses co ON co.offense_id = o.id LEFT JOIN review_cases c ON c.id = co.case_id
      WHERE o.id = $1 FOR UPDATE OF o`,
    [offenseId],
  );
  const r = rows[0];
  return (
    r && {
      studioId: r.studio_id,
      reporterId: r.reporter_id,
      senderKey: r.sender_key,
      caseId: r.case_id,
      outcome: r.outcome,
    }
  );
}

const MEASURE_SELECT = `m.id, m.sender_key, m.kind, m.marks, m.created_at, m.ends_at, m.lifted_at,
  (SELECT f.name FROM trusted_flaggers f
    WHERE m.sender_key LIKE 'notice:tf-%' AND f.id::text = substr(m.sender_key, 11)) AS flagger_name
  FROM misuse_measures m`;

/** Warnings and suspensions, newest first; `inForce` for the suspensions in force at `now` only. */
export async function measureRows(db: Queryable, inForce: boolean, now: Date, limit: number) {
  const { rows } = await db.query<MeasureRow & { flagger_name: string | null }>(
    `SELECT ${MEASURE_SELECT}
      WHERE NOT $1 OR (m.kind = 'suspension' AND m.lifted_at IS NULL AND m.ends_at > $2)
      ORDER BY m.created_at DESC, m.id LIMIT $3`,
    [inForce, now, limit],
  );
  return rows;
}

export async function measureExists(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM misuse_measures WHERE id = $1', [id]);
  return Boolean(rowCount);
}
