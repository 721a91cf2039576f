import type { Queryable } from '../db.js';
import type { KindResult } from '../shapes/retention.js';

/** Who asked for a retention run: its schedule, the admin tool, or an admin (API or console). */
export type RetentionRequester = 'schedule' | 'operator' | 'admin';

export interface RetentionRunRow {
  id: string;
  requested_by: RetentionRequester;
  moderator: { id: string; displayName: string } | null;
  started_at: Date;
  finished_at: Date;
  results: KindResult[];
}

/**
 * Records a run that changed what it found due (a dry run is never recorded), and lets runs older than
 * `keepDays` go (the audit log's window: a run is accountability, like the audit log).
 */
export async function recordRetentionRun(
  db: Queryable,
  run: {
    requestedBy: RetentionRequester;
    moderatorId: string | null;
    startedAt: Date;
    results: KindResult[];
    keepDays: number;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `WITH gone AS (DELETE FROM retention_runs WHERE started_at < now() - make_interval(days => $5))
     INSERT INTO retention_runs (requested_by, moderator_id, started_at, results)
     VALUES ($1, $2, $3, $4) RETURNING id::text`,
    [run.requestedBy, run.moderatorId, run.startedAt, JSON.stringify(run.results), run.keepDays],
  );
  return rows[0]!.id;
}

/** The latest runs, newest first, or (`id`) one run. */
export async function retentionRuns(
  db: Queryable,
  which: { limit: number } | { id: string },
): Promise<RetentionRunRow[]> {
  const { rows } = await db.query<RetentionRunRow>(
    `SELECT r.id::text, r.requested_by, r.started_at, r.finished_at, r.results,
            CASE WHEN m.id IS NULL THEN NULL
                 ELSE jsonb_build_object('id', m.id, 'displayName', m.display_name) END AS moderator
       FROM retention_runs r LEFT JOIN moderators m ON m.id = r.moderator_id
      WHERE $2::bigint IS NULL OR r.id = $2::bigint
      ORDER BY r.started_at DESC, r.id DESC LIMIT $1`,
    'id' in which ? [1, which.id] : [which.limit, null],
  );
  return rows;
}
