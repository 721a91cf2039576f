import { UnrecoverableError, type Job } from 'bullmq';
import { withTransaction, type PoolClient } from '../../common/data/db.js';
import { findOffenses } from '../../common/data/repos/offenses.js';
import { emitEvent, studiosOfPlayer } from '../../common/data/repos/webhooks.js';
import type { OutboxRow } from '../../common/queues/outbox.js';
import { presentOffense } from '../../common/views.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';

/**
 * Admin review: files the offense into the open case of its player and type (opening one when
 * needed) and recomputes the case's figures from its offenses, so a repeated job changes nothing.
 * Priority = 25 x severity rank (low 0 .. critical 3) + 10 x highest confidence + 5 x distinct games
 * (at most 5) + 3 x distinct reporters (at most 5) + 2 x the player's earlier offenses (at most 10).
 */
export const reviewProcessor = (deps: ProcessorDeps) => async (job: Job) => {
  const { offenseId } = parseOffenseJob(job);
  const result = await withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{ player_id: string; type: string; case_id: string | null }>(
      `SELECT o.player_id, o.type, co.case_id FROM offenses o LEFT JOIN case_offenses co ON co.offense_id = o.id
        WHERE o.id = $1 FOR UPDATE OF o`,
      [offenseId],
    );
    const offense = rows[0];
    if (!offense) throw new UnrecoverableError(`offense ${offenseId} does not exist`);
    if (offense.case_id) return { offenseId, caseId: offense.case_id, filed: false, outbox: [] };
    // The unique partial index makes concurrent openers converge on one open case.
    const opened = await client.query<{ id: string }>(
      `INSERT INTO review_cases (player_id, type) VALUES ($1, $2)
       ON CONFLICT (player_id, type) WHERE status = 'open' DO UPDATE SET updated_at = now()
       RETURNING id`,
      [offense.player_id, offense.type],
    );
    const caseId = opened.rows[0]!.id;
    await client.query('INSERT INTO case_offenses (case_id, offense_id) VALUES ($1, $2)', [
      caseId,
      offenseId,
    ]);
    await client.query(
      `UPDATE review_cases c SET
         reports_count = a.n, total_penalty = a.penalty, highest_severity = a.sev,
         distinct_games = a.games, distinct_reporters = a.reporters, updated_at = now(),
         priority = 25 * a.sev_rank + 10 * a.confidence + 5 * LEAST(a.games, 5) + 3 * LEAST(a.reporters, 5)
                    + 2 * LEAST((SELECT count(*) FROM offenses p WHERE p.player_id = c.player_id
                                   AND p.id NOT IN (SELECT offense_id FROM case_offenses WHERE case_id = c.id)), 10)
       FROM (
         SELECT count(*)::int AS n, sum(o.penalty_points)::int AS penalty,
                max(array_position(ARRAY['low','medium','high','critical'], o.severity)) - 1 AS sev_rank,
                (ARRAY['low','medium','high','critical'])[max(array_position(ARRAY['low','medium','high','critical'], o.severity))] AS sev,
                count(DISTINCT o.game_id)::int AS games,
                count(DISTINCT coalesce(o.context->>'reporterId', o.game_id::text))::int AS reporters,
                coalesce(max((o.details->>'confidence')::numeric), 0) AS confidence
           FROM case_offenses co JOIN offenses o ON o.id = co.offense_id WHERE co.case_id = $1
       ) a
       WHERE c.id = $1`,
      [caseId],
    );
    return { offenseId, caseId, filed: true, outbox: await emitOffenseEvents(client, offenseId, caseId) };
  });
  deps.dispatch(result.outbox);
  return { offenseId: result.offenseId, caseId: result.caseId, filed: result.filed };
};

/**
 * offense.created and, when points were deducted, trust.changed, to the studio that filed the offense
 * and every studio whose games the player is linked to; each sees the offense as its profile view
 * would show it (full to the filing studio, a summary to the others). Emitted with the filing, so
 * once per offense.
 */
async function emitOffenseEvents(
  client: PoolClient,
  offenseId: string,
  caseId: string,
): Promise<OutboxRow[]> {
  const [offense] = await findOffenses(client, [offenseId]);
  if (!offense) return [];
  const playerId = offense.playerServiceId;
  const audience = new Set([offense.studioId, ...(await studiosOfPlayer(client, playerId))]);
  const per = <T>(data: (studio: string) => T) => new Map([...audience].map((s) => [s, data(s)]));
  const outbox = await emitEvent(
    client,
    'offense.created',
    per((studio) => ({ playerId, caseId, offense: presentOffense(offense, studio) })),
  );
  if (offense.penaltyPoints > 0 && offense.trustScoreAfter !== null) {
    const change = {
      playerId,
      trustScoreBefore: offense.trustScoreAfter + offense.penaltyPoints,
      trustScoreAfter: offense.trustScoreAfter,
      reason: 'offense',
      offenseId,
    };
    outbox.push(
      ...(await emitEvent(
        client,
        'trust.changed',
        per(() => change),
      )),
    );
  }
  return outbox;
}
