import type { Queryable } from '../db.js';

/** A studio's reporter: how its reports ended, its smoothed credibility, and whether it is muted. */
export interface ReporterRecord {
  studioId: string;
  reporterId: string;
  upheld: number;
  dismissed: number;
  /** (upheld + 1) / (upheld + dismissed + 2): 0.5 with no history, towards the real ratio with more. */
  credibility: number;
  muted: boolean;
  mutedAt: Date | null;
  muteNote: string | null;
}

export interface ReporterRow {
  studio_id: string;
  reporter_id: string;
  upheld: number;
  dismissed: number;
  muted_at: Date | null;
  mute_note: string | null;
  /** An Art. 23 suspension's end (common/lifecycles/misuse.ts); past it the reporter is not muted. */
  muted_until?: Date | null;
}

export const reporterFromRow = (r: ReporterRow): ReporterRecord => ({
  studioId: r.studio_id,
  reporterId: r.reporter_id,
  upheld: r.upheld,
  dismissed: r.dismissed,
  credibility: (r.upheld + 1) / (r.upheld + r.dismissed + 2),
  muted: r.muted_at !== null && !(r.muted_until && r.muted_until.getTime() <= Date.now()),
  mutedAt: r.muted_until && r.muted_until.getTime() <= Date.now() ? null : r.muted_at,
  muteNote: r.muted_until && r.muted_until.getTime() <= Date.now() ? null : r.mute_note,
});

/** The reporters of a case's offenses (one per studio and reporterId), those with no row as new. */
export async function findCaseReporters(db: Queryable, caseId: string): Promise<ReporterRecord[]> {
  const { rows } = await db.query<ReporterRow>(
    `SELECT DISTINCT o.studio_id, o.reporter_id, coalesce(r.upheld, 0) AS upheld,
            coalesce(r.dismissed, 0) AS dismissed, r.muted_at, r.mute_note, r.muted_until
       FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
       LEFT JOIN reporters r ON r.studio_id = o.studio_id AND r.reporter_id = o.reporter_id
      WHERE co.case_id = $1 AND o.reporter_id IS NOT NULL
      ORDER BY o.studio_id, o.reporter_id`,
    [caseId],
  );
  return rows.map(reporterFromRow);
}

/**
 * Counts a case's decision for each of its reporters (`column`: upheld or dismissed), `n` reports
 * each, in one statement, in the order given (the caller sorts, so concurrent resolutions lock the
 * rows in one order).
 */
export async function countReporterDecisions(
  db: Queryable,
  column: 'upheld' | 'dismissed',
  list: { studio: string; reporter: string; n: number }[],
): Promise<void> {
  await db.query(
    `INSERT INTO reporters (studio_id, reporter_id, ${column})
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[])
     ON CONFLICT (studio_id, reporter_id)
     DO UPDATE SET ${column} = reporters.${column} + excluded.${column}, updated_at = now()`,
    [list.map((e) => e.studio), list.map((e) => e.reporter), list.map((e) => e.n)],
  );
}
