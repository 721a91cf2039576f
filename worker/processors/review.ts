import { UnrecoverableError, type Job } from 'bullmq';
import { withTransaction, type PoolClient } from '../../common/data/db.js';
import { findOffenses } from '../../common/data/repos/offenses.js';
import { emitEvent, studiosOfPlayer } from '../../common/data/repos/webhooks.js';
import type { OutboxRow } from '../../common/queues/outbox.js';
import { presentOffense } from '../../common/views.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';

const SEVERITY_ORDER = "ARRAY['low','medium','high','critical']";

/**
 * Admin review: files the offense into the open case of its player and type (opening one when
 * needed) and updates the case's figures by this one offense, so a filing costs the same however
 * many reports the case holds; an offense already filed is left alone, so a repeated job changes
 * nothing. Priority = 25 x severity rank (low 0 .. critical 3) + 10 x highest confidence + 5 x
 * distinct games (at most 5) + 3 x distinct reporters (at most 5) + 2 x the player's offenses
 * outside this case (at most 10).
 */
export const reviewProcessor = (deps: ProcessorDeps) => async (job: Job) => {
  const { offenseId } = parseOffenseJob(job);
  const result = await withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{
      player_id: string;
      type: string;
      game_id: string;
      severity: string;
      penalty_points: number;
      reporter: string;
      confidence: string;
      case_id: string | null;
    }>(
      `SELECT o.player_id, o.type, o.game_id, o.severity, o.penalty_points,
              coalesce(o.context->>'reporterId', o.game_id::text) AS reporter,
              coalesce((o.details->>'confidence')::numeric, 0)::text AS confidence, co.case_id
         FROM offenses o LEFT JOIN case_offenses co ON co.offense_id = o.id
        WHERE o.id = $1 FOR UPDATE OF o`,
      [offenseId],
    );
    const offense = rows[0];
    if (!offense) throw new UnrecoverableError(`offense ${offenseId} does not exist`);
    if (offense.case_id) return { offenseId, caseId: offense.case_id, filed: false, outbox: [] };
    // The unique partial index makes concurrent openers converge on one open case; the upsert
    // locks the case row, so concurrent filings into one case take turns from here on.
    const opened = await client.query<{ id: string }>(
      `INSERT INTO review_cases (player_id, type) VALUES ($1, $2)
       ON CONFLICT (player_id, type) WHERE status = 'open' DO UPDATE SET updated_at = now()
       RETURNING id`,
      [offense.player_id, offense.type],
    );
    const caseId = opened.rows[0]!.id;
    await client.query(
      `WITH link AS (INSERT INTO case_offenses (case_id, offense_id) VALUES ($1, $2)),
            g AS (INSERT INTO case_games VALUES ($1, $3) ON CONFLICT DO NOTHING RETURNING 1),
            r AS (INSERT INTO case_reporters VALUES ($1, $4) ON CONFLICT DO NOTHING RETURNING 1),
            n AS (
              SELECT c.reports_count + 1 AS reports,
                     GREATEST(array_position(${SEVERITY_ORDER}, c.highest_severity),
                              array_position(${SEVERITY_ORDER}, $5::text)) AS sev,
                     c.distinct_games + (SELECT count(*) FROM g)::int AS games,
                     c.distinct_reporters + (SELECT count(*) FROM r)::int AS reporters,
                     GREATEST(c.max_confidence, $6::numeric) AS confidence,
                     p.offense_count
                FROM review_cases c JOIN players p ON p.id = c.player_id WHERE c.id = $1)
       UPDATE review_cases c SET
         reports_count = n.reports, total_penalty = c.total_penalty + $7,
         highest_severity = (${SEVERITY_ORDER})[n.sev], distinct_games = n.games,
         distinct_reporters = n.reporters, max_confidence = n.confidence, updated_at = now(),
         priority = 25 * (n.sev - 1) + 10 * n.confidence + 5 * LEAST(n.games, 5) + 3 * LEAST(n.reporters, 5)
                    + 2 * LEAST(GREATEST(n.offense_count - n.reports, 0), 10)
         FROM n WHERE c.id = $1`,
      [
        caseId,
        offenseId,
        offense.game_id,
        offense.reporter,
        offense.severity,
        offense.confidence,
        offense.penalty_points,
      ],
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
