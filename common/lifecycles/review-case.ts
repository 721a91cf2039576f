import { SEVERITY_ORDER_SQL } from '../data/render.js';
import { prioritySql } from '../domain/priority.js';
import type { PoolClient, Queryable } from '../data/db.js';
import { findOffensesWithListeners } from '../data/repos/offenses.js';
import type { EventType } from '../data/repos/webhooks.js';
import { emitEvents } from './webhook-delivery.js';
import type { Outcome } from '../data/repos/moderation.js';
import { routeSql } from '../data/repos/review-queues.js';
import type { OutboxRow } from '../queues/outbox.js';
import { presentOffense } from '../views.js';
import { DROPS_LEASE, ENDS_LEASE } from './lease.js';

/**
 * A review case's life (issue 33), and the only code that writes a case (a test holds it to that):
 *
 * - **filed into**: the review worker files each new offense into the open case of its player and
 *   kind, opening one when there is none, and updates the case's figures, priority, due time and
 *   queue (fileOffenses);
 * - **claimed** and released: a lease (lease.ts);
 * - **assigned** to a moderator, or the assignment taken back (assign);
 * - **escalated** to the senior role, or **moved** to another queue (escalateToSenior, moveToQueue):
 *   its claim and assignment go;
 * - **re-routed** when the routing rules change (rerouteOpenCases), unless a moderator moved it;
 * - **resolved**, upheld or dismissed (recordResolution); a new report of the same kind then
 *   opens a new case;
 * - **reopened** when a notifier's complaint against its dismissal is granted (reopenForNotice):
 *   back in its queue with the notice's points held, unless the player has another open case of
 *   that kind, which then takes the notice.
 *
 *   open --resolve--> resolved --reopen (a dismissed case only)--> open
 *
 * Each write runs under the row lock its caller took (usecases/moderation.ts, lockOpenCase; the
 * filing takes its own, in a fixed order).
 */
export const CASE_STATUSES = ['open', 'resolved'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

const TRANSITIONS: Readonly<Record<CaseStatus, Partial<Record<'resolve' | 'reopen', CaseStatus>>>> = {
  open: { resolve: 'resolved' },
  resolved: { reopen: 'open' },
};

export const nextCaseStatus = (status: CaseStatus, event: 'resolve' | 'reopen'): CaseStatus | undefined =>
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

/**
 * A notifier's complaint granted against the dismissal of case `caseId` (DSA Art. 20): the notice's
 * offense, held again (offense.ts reopenDropped), is put back before a moderator. The dismissed case
 * itself reopens (its first decision stays in the audit log), due again as a new case of its
 * severity (or a trusted flagger's deadline) and in its queue; when the player already has another
 * open case of that kind, the notice moves into that one instead, with its figures. The caller holds
 * the player's row lock. Returns the case that is open with the notice.
 */
export async function reopenForNotice(
  db: Queryable,
  input: {
    caseId: string;
    offenseId: string;
    held: number;
    flagged: boolean;
    dueHours: readonly number[];
    flaggedDueHours: number;
    /** URGENT_NOTICE_DUE_HOURS: a reopened urgent case is due within them. */
    urgentDueHours?: number;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE review_cases c SET status = 'open', outcome = NULL, resolved_by = NULL, resolved_at = NULL,
            points_restored = 0, reopened_at = now(), reopen_count = c.reopen_count + 1,
            -- The dismissal dropped every offense of the case: the notice's, held again, is all it holds.
            held_points = $2, flagged_by_trusted = c.flagged_by_trusted OR $3,
            due_at = LEAST(now() + make_interval(hours => ($4::int[])[array_position(${SEVERITY_ORDER_SQL}, c.highest_severity)]),
                           CASE WHEN c.flagged_by_trusted OR $3 THEN now() + make_interval(hours => $5::int) END,
                           CASE WHEN c.urgent THEN now() + make_interval(hours => $6::int) END),
            ${DROPS_LEASE}, assigned_to = NULL, updated_at = now()
      WHERE c.id = $1 AND c.status = 'resolved' AND c.outcome = 'dismissed'
        AND NOT EXISTS (SELECT 1 FROM review_cases x WHERE x.player_id = c.player_id AND x.type = c.type
                          AND x.status = 'open')
      RETURNING c.id`,
    [
      input.caseId,
      input.held,
      input.flagged,
      input.dueHours,
      input.flaggedDueHours,
      input.urgentDueHours ?? 1,
    ],
  );
  if (rows[0]) return repriced(db, rows[0].id);
  // The player's open case of that kind takes the notice, with its figures.
  const { rows: open } = await db.query<{ id: string }>(
    `WITH target AS (
       SELECT x.id FROM review_cases x JOIN review_cases c ON c.id = $1
        WHERE x.player_id = c.player_id AND x.type = c.type AND x.status = 'open' FOR UPDATE OF x),
     moved AS (UPDATE case_offenses SET case_id = (SELECT id FROM target) WHERE offense_id = $2 RETURNING offense_id),
     o AS (SELECT o.game_id, coalesce(o.context->>'reporterId', o.game_id::text) AS reporter, o.severity,
                  CASE WHEN o.context->>'source' IN ('notice', 'trusted_flagger') THEN o.context->>'source'
                       ELSE 'game' END AS source, o.details->>'dsaCategory' AS category
             FROM offenses o WHERE o.id = $2),
     g AS (INSERT INTO case_games SELECT (SELECT id FROM target), game_id FROM o ON CONFLICT DO NOTHING RETURNING 1),
     r AS (INSERT INTO case_reporters SELECT (SELECT id FROM target), reporter FROM o ON CONFLICT DO NOTHING RETURNING 1)
     UPDATE review_cases c SET reports_count = c.reports_count + 1, held_points = c.held_points + $3,
            distinct_games = c.distinct_games + (SELECT count(*) FROM g)::int,
            distinct_reporters = c.distinct_reporters + (SELECT count(*) FROM r)::int,
            highest_severity = (${SEVERITY_ORDER_SQL})[GREATEST(array_position(${SEVERITY_ORDER_SQL}, c.highest_severity),
                                                               (SELECT array_position(${SEVERITY_ORDER_SQL}, severity) FROM o))],
            flagged_by_trusted = c.flagged_by_trusted OR $4,
            urgent = c.urgent OR (SELECT details ? 'urgency' FROM offenses WHERE id = $2),
            sources = ARRAY(SELECT DISTINCT x FROM unnest(c.sources || ARRAY[(SELECT source FROM o)]) x ORDER BY 1),
            categories = ARRAY(SELECT DISTINCT x FROM unnest(c.categories || ARRAY[(SELECT category FROM o)]) x
                                WHERE x IS NOT NULL ORDER BY 1),
            due_at = LEAST(c.due_at, CASE WHEN $4 THEN now() + make_interval(hours => $5::int) END),
            updated_at = now()
      WHERE c.id = (SELECT id FROM target) AND EXISTS (SELECT 1 FROM moved)
      RETURNING c.id`,
    [input.caseId, input.offenseId, input.held, input.flagged, input.flaggedDueHours],
  );
  if (!open[0]) throw new Error(`case ${input.caseId}: neither reopened nor another open case found`);
  return repriced(db, open[0].id);
}

/** The case's stored priority again from its figures as they are now (common/domain/priority.ts). */
async function repriced(db: Queryable, caseId: string): Promise<string> {
  await db.query(
    `UPDATE review_cases c SET priority = ${prioritySql({
      sev: `array_position(${SEVERITY_ORDER_SQL}, c.highest_severity)`,
      confidence: 'c.max_confidence',
      games: 'c.distinct_games',
      reporters: 'c.distinct_reporters',
      earlier: 'c.earlier_offenses',
      held: 'c.held_points',
      flagged: 'c.flagged_by_trusted',
      urgent: 'c.urgent',
      floor: 'c.priority_floor',
    })} WHERE c.id = $1`,
    [caseId],
  );
  return caseId;
}

/** Sends an open case to the senior role (admins) with a note: its claim and assignment go. */
export async function escalateToSenior(db: Queryable, caseId: string, note: string): Promise<void> {
  await db.query(
    `UPDATE review_cases SET escalated_at = now(), escalation_note = $2, assigned_to = NULL, ${DROPS_LEASE}
      WHERE id = $1`,
    [caseId, note],
  );
}

/** Moves an open case to a queue by hand (pinned: the routing rules leave it there); its claim and assignment go. */
export async function moveToQueue(db: Queryable, caseId: string, queueKey: string): Promise<void> {
  await db.query(
    `UPDATE review_cases SET queue_key = $2, queue_pinned = true, assigned_to = NULL, ${DROPS_LEASE}
      WHERE id = $1`,
    [caseId, queueKey],
  );
}

/** A rule's priority (issue 38): the case's priority is never below it while the case is open. */
export async function raisePriorityFloor(db: Queryable, caseId: string, floor: number): Promise<void> {
  await db.query(
    `UPDATE review_cases SET priority_floor = GREATEST(coalesce(priority_floor, 0), $2),
            priority = GREATEST(priority, $2) WHERE id = $1`,
    [caseId, floor],
  );
}

/** Assigns an open case to a moderator, or takes the assignment back (null). */
export async function assign(db: Queryable, caseId: string, moderatorId: string | null): Promise<void> {
  await db.query('UPDATE review_cases SET assigned_to = $2 WHERE id = $1', [caseId, moderatorId]);
}

/**
 * Routes every open case nobody moved by hand again by the rules (after the rules changed): the
 * number of cases that changed queue. Their claims stay: a moderator working one finishes it.
 */
export async function rerouteOpenCases(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE review_cases c SET queue_key = r.queue_key
       FROM (SELECT id, ${routeSql('x.type', `array_position(${SEVERITY_ORDER_SQL}, x.highest_severity)`, 'x.first_game_id', 'x.sources', 'x.categories')} AS queue_key
               FROM review_cases x WHERE x.status = 'open' AND NOT x.queue_pinned) r
      WHERE c.id = r.id AND c.queue_key <> r.queue_key`,
  );
  return rowCount ?? 0;
}

const OFFENSE_EVENTS: EventType[] = ['offense.created', 'trust.changed'];

export interface Filing {
  offenseId: string;
  /** null for an offense that opens no case (no finding, or a muted reporter). */
  caseId: string | null;
  /** false when the offense was already filed (a repeated job) or is not filed at all: nothing changed. */
  filed: boolean;
}

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
  /** A trusted flagger's notice (docs/moderators.md "Notices"): the case goes ahead. */
  flagged: boolean;
  urgent: boolean;
  case_id: string | null;
  /** Where it came from, as routing rules match it: game, notice or trusted_flagger. */
  source: string;
  /** A notice's Transparency Database category. */
  category: string | null;
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
  /** Hours at most to review a case holding a trusted flagger's notice (TRUSTED_FLAGGER_DUE_HOURS). */
  flaggedDueHours = 12,
  /** Hours at most to review a case once an urgent notice joins it (URGENT_NOTICE_DUE_HOURS). */
  urgentDueHours = 1,
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
                coalesce((o.details->>'confidence')::numeric, 0)::text AS confidence,
                coalesce(o.context->>'source' = 'trusted_flagger', false) AS flagged,
                o.details ? 'urgency' AS urgent, co.case_id,
                CASE WHEN o.context->>'source' IN ('notice', 'trusted_flagger') THEN o.context->>'source'
                     ELSE 'game' END AS source, o.details->>'dsaCategory' AS category
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
                            $8::int[], $10::boolean[], $12::text[], $13::text[], $14::timestamptz[], $15::boolean[])
         AS t(case_id, offense_id, game_id, reporter, severity, confidence, penalty, held, flagged, source, category,
              reported_at, urgent)),
     link AS (INSERT INTO case_offenses (case_id, offense_id, reported_at)
              SELECT case_id, offense_id, reported_at FROM input),
     g AS (INSERT INTO case_games SELECT DISTINCT case_id, game_id FROM input ON CONFLICT DO NOTHING
           RETURNING case_id),
     r AS (INSERT INTO case_reporters SELECT DISTINCT case_id, reporter FROM input ON CONFLICT DO NOTHING
           RETURNING case_id),
     added AS (
       SELECT case_id, count(*)::int AS reports, sum(penalty)::int AS penalty, max(confidence) AS confidence,
              sum(held)::int AS held, max(array_position(${SEVERITY_ORDER_SQL}, severity)) AS sev,
              bool_or(flagged) AS flagged, bool_or(urgent) AS urgent, array_agg(DISTINCT source) AS sources,
              coalesce(array_agg(DISTINCT category) FILTER (WHERE category IS NOT NULL), '{}') AS categories
         FROM input GROUP BY case_id),
     n AS (
       SELECT c.id, c.reports_count + a.reports AS reports, c.total_penalty + a.penalty AS penalty,
              GREATEST(array_position(${SEVERITY_ORDER_SQL}, c.highest_severity), a.sev) AS sev,
              c.distinct_games + (SELECT count(*) FROM g WHERE g.case_id = c.id)::int AS games,
              c.distinct_reporters + (SELECT count(*) FROM r WHERE r.case_id = c.id)::int AS reporters,
              GREATEST(c.max_confidence, a.confidence) AS confidence, c.held_points + a.held AS held,
              c.earlier_offenses, c.flagged_by_trusted OR a.flagged AS flagged, c.urgent OR a.urgent AS urgent,
              ARRAY(SELECT DISTINCT x FROM unnest(c.sources || a.sources) x ORDER BY 1) AS sources,
              ARRAY(SELECT DISTINCT x FROM unnest(c.categories || a.categories) x ORDER BY 1) AS categories
         FROM review_cases c JOIN added a ON a.case_id = c.id)
     UPDATE review_cases c SET
       reports_count = n.reports, total_penalty = n.penalty,
       highest_severity = (${SEVERITY_ORDER_SQL})[n.sev], distinct_games = n.games,
       distinct_reporters = n.reporters, max_confidence = n.confidence, held_points = n.held, updated_at = now(),
       flagged_by_trusted = n.flagged, urgent = n.urgent, sources = n.sources, categories = n.categories,
       -- LEAST skips the null of a case without a trusted flagger's or an urgent notice. An urgent one
       -- is due within the hours from when it joined (the earlier, once the case is urgent).
       due_at = LEAST(c.opened_at + make_interval(hours => ($9::int[])[n.sev]),
                      CASE WHEN n.flagged THEN c.opened_at + make_interval(hours => $11::int) END,
                      CASE WHEN n.urgent THEN LEAST(CASE WHEN c.urgent THEN c.due_at END,
                                                    now() + make_interval(hours => $16::int)) END),
       -- A rule's floor (raisePriorityFloor) holds however the figures move.
       priority = ${prioritySql({
         sev: 'n.sev',
         confidence: 'n.confidence',
         games: 'n.games',
         reporters: 'n.reporters',
         earlier: 'n.earlier_offenses',
         held: 'n.held',
         flagged: 'n.flagged',
         urgent: 'n.urgent',
         floor: 'c.priority_floor',
       })},
       queue_key = CASE WHEN c.queue_pinned THEN c.queue_key ELSE ${routeSql('c.type', 'n.sev', 'c.first_game_id', 'n.sources', 'n.categories')} END
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
      filing.map((o) => o.flagged),
      flaggedDueHours,
      filing.map((o) => o.source),
      filing.map((o) => o.category),
      filing.map((o) => o.created_at),
      filing.map((o) => o.urgent),
      urgentDueHours,
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

/** Erasure (common/lifecycles/erasure.ts): moderators' words on a player's (`$1`, internal id) cases. */
export const ERASE_CASE_NOTES = `UPDATE review_cases SET resolution_note = NULL, escalation_note = NULL
  WHERE player_id = $1 AND (resolution_note IS NOT NULL OR escalation_note IS NOT NULL)`;

/**
 * Retention (common/lifecycles/retention.ts): at most $1 cases resolved before $2 reduced to their skeleton
 * (their notes, the moderators' notes on them, their reporters' ids); `n` how many.
 */
export const REDUCE_RESOLVED_CASES = `WITH c AS (
      UPDATE review_cases SET resolution_note = NULL, escalation_note = NULL, reduced_at = now()
       WHERE ctid = ANY (ARRAY(SELECT ctid FROM review_cases WHERE status = 'resolved' AND reduced_at IS NULL
                                  AND resolved_at < $2 ORDER BY resolved_at LIMIT $1))
       RETURNING id),
     r AS (DELETE FROM case_reporters WHERE case_id IN (SELECT id FROM c)),
     n AS (DELETE FROM notes WHERE case_id IN (SELECT id FROM c))
     SELECT count(*)::int AS n FROM c`;
