import { SEVERITY_ORDER_SQL } from '../../common/data/render.js';
import { UnrecoverableError, type Job } from 'bullmq';
import DataLoader from 'dataloader';
import { batchedLoads } from '../../common/data/batching.js';
import { withTransaction, type PoolClient } from '../../common/data/db.js';
import { findOffensesWithListeners } from '../../common/data/repos/offenses.js';
import { emitEvents, type EventType } from '../../common/data/repos/webhooks.js';
import type { OutboxRow } from '../../common/queues/outbox.js';
import { JOB_NAMES } from '../../common/queues/index.js';
import { recoverTrust } from '../../common/usecases/trust.js';
import { announceExpiry } from '../../common/usecases/sanctions.js';
import { isUuid } from '../../common/data/repos/accounts.js';
import { presentOffense } from '../../common/views.js';
import { routeSql } from '../../common/data/repos/queues.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';

const OFFENSE_EVENTS: EventType[] = ['offense.created', 'trust.changed'];

/** Most offenses filed in one transaction (a job of a full report statement's batch in one). */
export const FILING_BATCH_MAX = 100;

export interface Filing {
  offenseId: string;
  /** null for an offense that opens no case (no finding, or a muted reporter). */
  caseId: string | null;
  /** false when the offense was already filed (a repeated job) or is not filed at all: nothing changed. */
  filed: boolean;
}

/**
 * Admin review: files each offense into the open case of its player and type (opening one when
 * needed) and updates the case's figures by the offenses filed, so a filing costs the same however
 * many reports the case holds; an offense already filed is left alone, so a repeated job changes
 * nothing. Priority = 25 x severity rank (low 0 .. critical 3) + 10 x highest confidence + 5 x
 * distinct games (at most 5) + 3 x distinct reporters (at most 5) + 2 x the player's offenses before
 * the case's first report (at most 10) + half the points held for the case (at most 25). Each filing
 * routes the case into its queue by the routing rules (common/data/repos/queues.ts), unless a
 * moderator moved it by hand. A report
 * without a finding or from a muted reporter opens no case (its events are still sent).
 *
 * A job names the offenses of a batch of reports (one, for a job of an earlier release). The
 * offenses of the jobs a worker runs at once are filed together: collected until the event loop has
 * nothing else ready (at most FILING_BATCH_MAX) and filed by one transaction of a fixed number of
 * statements, so a busy review worker commits once per batch, not once per offense. A transaction
 * that fails fails each job with an offense in it, which BullMQ retries on their own (what was filed
 * stays filed). An offense that does not exist fails a one-offense job for good; in a batch's job
 * (whose offenses were written with it) it is skipped and named in the job's result.
 */
export const reviewProcessor = (deps: ProcessorDeps) => {
  const filings = new DataLoader<string, Filing>(async (ids) => {
    const { filed, outbox, acceptedAt } = await withTransaction(deps.pool, (client) =>
      fileOffenses(client, ids, deps.config.caseDueHours),
    );
    deps.dispatch(outbox);
    // The service level "from 201 to a filed case": each offense this batch filed, once.
    const now = Date.now();
    for (const at of acceptedAt) deps.metrics?.reportToCase.observe(Math.max(0, now - at.getTime()) / 1000);
    return ids.map((id) => filed.get(id) ?? new UnrecoverableError(`offense ${id} does not exist`));
  }, batchedLoads(FILING_BATCH_MAX));
  return async (job: Job): Promise<unknown> => {
    if (job.name === JOB_NAMES.sanctionExpiry) {
      const id = (job.data as { sanctionId?: unknown }).sanctionId;
      if (typeof id !== 'string' || !isUuid(id))
        throw new UnrecoverableError(`job ${job.id} has no sanctionId`);
      const { announced, outbox } = await announceExpiry(deps.pool, id, new Date());
      deps.dispatch(outbox);
      return { announced };
    }
    if (job.name === JOB_NAMES.trustRecovery) {
      const done = await recoverTrust(deps.pool, {
        now: new Date(),
        daysPerPoint: deps.config.trustRecoveryDaysPerPoint,
      });
      deps.dispatch(done.outbox);
      const figures = { players: done.players, points: done.points };
      if (done.players > 0) deps.log.info(figures, 'trust recovered for players with a clean record');
      return figures;
    }
    const { offenseIds, batch } = parseOffenseJob(job);
    const results = await filings.loadMany(offenseIds);
    const missing: string[] = [];
    let filed = 0;
    for (const [i, result] of results.entries()) {
      if (result instanceof UnrecoverableError) missing.push(offenseIds[i]!);
      else if (result instanceof Error) throw result;
      else if (result.filed) filed++;
    }
    if (missing.length === offenseIds.length || (!batch && missing.length))
      throw new UnrecoverableError(`offense ${missing.join(', ')} does not exist`);
    if (missing.length) deps.log.warn({ job: job.id, missing }, 'offenses of a review job no longer exist');
    return batch ? { offenses: offenseIds.length, filed, missing } : results[0];
  };
};

interface OffenseToFile {
  id: string;
  created_at: Date;
  player_id: string;
  type: string;
  game_id: string;
  severity: string;
  penalty_points: number;
  penalty_held: number;
  status: string;
  reporter: string;
  confidence: string;
  case_id: string | null;
}

/**
 * Files the offenses with these ids in the caller's transaction: two statements for the filing
 * whatever the number of offenses, one more to find who listens for their events and, when someone
 * does, one to record them. Locks are taken in a fixed order (offenses by id, then cases by player
 * and type), so concurrent batches wait rather than deadlock.
 */
export async function fileOffenses(
  client: PoolClient,
  ids: readonly string[],
  /** Hours to review a case by its highest severity: low, medium, high, critical (CASE_DUE_HOURS). */
  dueHours: readonly number[],
): Promise<{
  filed: Map<string, Filing>;
  outbox: OutboxRow[];
  /** When each offense this call filed was accepted (its 201): for the report-to-case time. */
  acceptedAt: Date[];
}> {
  // Locks the offenses in id order, then opens or touches the open case of each (player, type) not
  // yet filed, in that order. The unique partial index makes concurrent openers converge on one open
  // case; the upsert locks the case rows, so concurrent filings into one case take turns from here.
  const { rows } = await client.query<OffenseToFile & { open_case: string | null }>({
    name: 'review-lock-and-open',
    text: `WITH o AS (
         SELECT o.id, o.player_id, o.type, o.game_id, o.severity, o.penalty_points, o.penalty_held, o.status,
                o.created_at, coalesce(o.context->>'reporterId', o.game_id::text) AS reporter,
                coalesce((o.details->>'confidence')::numeric, 0)::text AS confidence, co.case_id
           FROM offenses o LEFT JOIN case_offenses co ON co.offense_id = o.id
          WHERE o.id = ANY($1::uuid[]) ORDER BY o.id FOR UPDATE OF o),
       c AS (
         INSERT INTO review_cases (player_id, type, first_game_id, earlier_offenses)
         SELECT f.player_id, f.type, f.first_game,
                -- Offenses of the case's own type not filed anywhere yet are this case's own, their
                -- jobs merely behind this one (jobs run out of order): not history.
                (SELECT count(*)::int FROM (
                   SELECT 1 FROM offenses x WHERE x.player_id = f.player_id AND x.created_at < f.first
                      AND x.status <> 'recorded'
                      AND NOT (x.type = f.type
                               AND NOT EXISTS (SELECT 1 FROM case_offenses cx WHERE cx.offense_id = x.id))
                    LIMIT 10) e)
           FROM (SELECT player_id, type, min(created_at) AS first,
                        (array_agg(game_id ORDER BY created_at, id))[1] AS first_game FROM o
                  WHERE case_id IS NULL AND status <> 'recorded' GROUP BY player_id, type) f
          ORDER BY f.player_id, f.type
         ON CONFLICT (player_id, type) WHERE status = 'open' DO UPDATE SET updated_at = now()
         RETURNING id, player_id, type)
     SELECT o.*, c.id AS open_case FROM o LEFT JOIN c ON c.player_id = o.player_id AND c.type = o.type
                                                     AND o.case_id IS NULL AND o.status <> 'recorded'`,
    values: [[...new Set(ids)]],
  });
  const filed = new Map<string, Filing>();
  for (const o of rows) if (o.case_id) filed.set(o.id, { offenseId: o.id, caseId: o.case_id, filed: false });
  // A report without a finding, or from a muted reporter, is kept but opens no case: nothing to review.
  const unfiled = rows.filter((o) => !o.case_id && o.status === 'recorded');
  for (const o of unfiled) filed.set(o.id, { offenseId: o.id, caseId: null, filed: false });
  const filing = rows
    .filter((o) => !o.case_id && o.status !== 'recorded')
    .map((o) => ({ ...o, case_id: o.open_case! }));
  const fresh = unfiled.map((o) => ({ id: o.id, case_id: null }));
  if (filing.length === 0) return { filed, outbox: await emitOffenseEvents(client, fresh), acceptedAt: [] };

  await client.query(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::numeric[], $7::int[],
                            $8::int[])
         AS t(case_id, offense_id, game_id, reporter, severity, confidence, penalty, held)),
     link AS (INSERT INTO case_offenses (case_id, offense_id) SELECT case_id, offense_id FROM input),
     g AS (INSERT INTO case_games SELECT DISTINCT case_id, game_id FROM input ON CONFLICT DO NOTHING
           RETURNING case_id),
     r AS (INSERT INTO case_reporters SELECT DISTINCT case_id, reporter FROM input ON CONFLICT DO NOTHING
           RETURNING case_id),
     added AS (
       SELECT case_id, count(*)::int AS reports, sum(penalty)::int AS penalty, max(confidence) AS confidence,
              sum(held)::int AS held, max(array_position(${SEVERITY_ORDER_SQL}, severity)) AS sev
         FROM input GROUP BY case_id),
     n AS (
       SELECT c.id, c.reports_count + a.reports AS reports, c.total_penalty + a.penalty AS penalty,
              GREATEST(array_position(${SEVERITY_ORDER_SQL}, c.highest_severity), a.sev) AS sev,
              c.distinct_games + (SELECT count(*) FROM g WHERE g.case_id = c.id)::int AS games,
              c.distinct_reporters + (SELECT count(*) FROM r WHERE r.case_id = c.id)::int AS reporters,
              GREATEST(c.max_confidence, a.confidence) AS confidence, c.held_points + a.held AS held,
              c.earlier_offenses
         FROM review_cases c JOIN added a ON a.case_id = c.id)
     UPDATE review_cases c SET
       reports_count = n.reports, total_penalty = n.penalty,
       highest_severity = (${SEVERITY_ORDER_SQL})[n.sev], distinct_games = n.games,
       distinct_reporters = n.reporters, max_confidence = n.confidence, held_points = n.held, updated_at = now(),
       due_at = c.opened_at + make_interval(hours => ($9::int[])[n.sev]),
       priority = 25 * (n.sev - 1) + 10 * n.confidence + 5 * LEAST(n.games, 5) + 3 * LEAST(n.reporters, 5)
                  + 2 * LEAST(n.earlier_offenses, 10) + LEAST(n.held, 50) / 2.0,
       queue_key = CASE WHEN c.queue_pinned THEN c.queue_key ELSE ${routeSql('c.type', 'n.sev', 'c.first_game_id')} END
       FROM n WHERE c.id = n.id`,
    [
      filing.map((o) => o.case_id),
      filing.map((o) => o.id),
      filing.map((o) => o.game_id),
      filing.map((o) => o.reporter),
      filing.map((o) => o.severity),
      filing.map((o) => o.confidence),
      filing.map((o) => o.penalty_points),
      filing.map((o) => (o.status === 'held' ? o.penalty_held : 0)),
      dueHours,
    ],
  );
  for (const o of filing) filed.set(o.id, { offenseId: o.id, caseId: o.case_id, filed: true });
  return {
    filed,
    outbox: await emitOffenseEvents(client, [...filing, ...fresh]),
    acceptedAt: filing.map((o) => o.created_at),
  };
}

/**
 * offense.created and, when points were deducted, trust.changed, to the studio that filed the offense
 * and every studio whose games the player is linked to; each sees the offense as its profile view
 * would show it (full to the filing studio, a summary to the others). Emitted with the filing, so
 * once per offense; only offenses some studio listens for are read at all.
 */
async function emitOffenseEvents(
  client: PoolClient,
  filing: { id: string; case_id: string | null }[],
): Promise<OutboxRow[]> {
  const listened = await findOffensesWithListeners(
    client,
    filing.map((f) => f.id),
    OFFENSE_EVENTS,
  );
  if (listened.length === 0) return [];
  const caseOf = new Map(filing.map((f) => [f.id, f.case_id]));
  const events: { type: EventType; dataByStudio: Map<string, unknown> }[] = [];
  for (const { offense, audience } of listened) {
    const playerId = offense.playerServiceId;
    const per = (data: (studio: string) => unknown) => new Map(audience.map((s) => [s, data(s)]));
    const caseId = caseOf.get(offense.id);
    events.push({
      type: 'offense.created',
      dataByStudio: per((studio) => ({ playerId, caseId, offense: presentOffense(offense, studio) })),
    });
    if (offense.penaltyPoints > 0 && offense.trustScoreAfter !== null) {
      const change = {
        playerId,
        trustScoreBefore: offense.trustScoreAfter + offense.penaltyPoints,
        trustScoreAfter: offense.trustScoreAfter,
        reason: 'offense',
        offenseId: offense.id,
      };
      events.push({ type: 'trust.changed', dataByStudio: per(() => change) });
    }
  }
  return emitEvents(client, events);
}
