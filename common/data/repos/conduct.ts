import type { Queryable } from '../db.js';
import type { ConductSummary, NextStep } from '../../domain/conduct.js';

/**
 * Reading conduct summaries (docs/studios.md "Conduct summaries"); common/lifecycles/conduct.ts
 * writes them. A player's newest summaries, in every studio's games, with the studio's name.
 */
export const latestConductSummaries = (db: Queryable, playerRowId: string, limit: number) =>
  conductSummariesOf(db, playerRowId, null, limit);

/** A player's summaries, newest first: in one studio's games (`studioId`) or all (null). */
export async function conductSummariesOf(
  db: Queryable,
  playerRowId: string,
  studioId: string | null,
  limit = 100_000,
): Promise<(ConductSummary & { studioName: string })[]> {
  const { rows } = await db.query<{
    id: string;
    player_id: string;
    service_id: string;
    studio_id: string;
    studio_name: string;
    trigger: 'matches' | 'restriction';
    sanction_id: string | null;
    since: Date | null;
    created_at: Date;
    matches: number;
    finished: number;
    left_early: number;
    commendations: number;
    reports: number;
    reporting_parties: number;
    active_strikes: number;
    next_step: NextStep | null;
    warning: string | null;
  }>({
    name: 'conduct-latest',
    text: `SELECT k.*, p.service_id, s.name AS studio_name
             FROM conduct_summaries k JOIN players p ON p.id = k.player_id JOIN studios s ON s.id = k.studio_id
            WHERE k.player_id = $1 AND ($3::uuid IS NULL OR k.studio_id = $3)
            ORDER BY k.created_at DESC, k.id LIMIT $2`,
    values: [playerRowId, limit, studioId],
  });
  return rows.map((r) => ({
    id: r.id,
    playerRowId: r.player_id,
    playerId: r.service_id,
    studioId: r.studio_id,
    studioName: r.studio_name,
    trigger: r.trigger,
    sanctionId: r.sanction_id,
    since: r.since,
    createdAt: r.created_at,
    matches: r.matches,
    finished: r.finished,
    leftEarly: r.left_early,
    commendations: r.commendations,
    reports: r.reports,
    reportingParties: r.reporting_parties,
    activeStrikes: r.active_strikes,
    nextStep: r.next_step,
    warning: r.warning,
  }));
}
