import type { Queryable } from '../db.js';
import type { Outcome } from './moderation.js';
import {
  BURST_MAX_REPORTS,
  LEFT_EARLY_MAX_MATCHES,
  type CaseFacts,
  type RuleActions,
  type RuleConditions,
  type RuleMode,
} from '../../domain/rules.js';
import { SEVERITY_ORDER_SQL } from '../render.js';
import type { RuleRow } from '../shapes/rule.js';
import { ACTIVE } from './sanctions.js';

/** Reads of rules and their matches (the writes are common/lifecycles/rule.ts). */

/** SQL: how many studios' games reported in the case `c`. */
const DISTINCT_STUDIOS = `SELECT count(DISTINCT g.studio_id)::int FROM case_games cg JOIN games g ON g.id = cg.game_id
                           WHERE cg.case_id = c.id`;

/** SQL: the highest credibility of the case `c`'s named reporters (null when none is named). */
const BEST_CREDIBILITY = `SELECT max((rp.upheld + 1)::float8 / (rp.upheld + rp.dismissed + 2))
                            FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
                            JOIN reporters rp ON rp.studio_id = o.studio_id AND rp.reporter_id = o.reporter_id
                           WHERE co.case_id = c.id`;

/** SQL: the strike `st` is in force now (not removed, not expired). */
const STRIKE_IN_FORCE = 'st.removed_at IS NULL AND st.expires_at > now()';
/**
 * SQL: whether an evasion suspicion of the player `player` (an expression naming players.id) is open.
 * An index range of evasion_suspicions' (player_id, sanction_id) key.
 */
const OPEN_SUSPICION = (player: string) =>
  `EXISTS (SELECT 1 FROM evasion_suspicions e WHERE e.player_id = ${player} AND e.cleared_at IS NULL)`;

export interface RuleInsights {
  matches_day: number;
  matches_week: number;
  acted_week: number;
  last_match_at: Date | null;
  /** Of the cases it matched (in the last 30 days) that a moderator decided: upheld, dismissed. */
  upheld: number;
  dismissed: number;
}

const INSIGHTS = `
  (SELECT count(*)::int FROM rule_matches m WHERE m.rule_id = r.id AND m.created_at > now() - interval '1 day') AS matches_day,
  (SELECT count(*)::int FROM rule_matches m WHERE m.rule_id = r.id AND m.created_at > now() - interval '7 days') AS matches_week,
  (SELECT count(*)::int FROM rule_matches m WHERE m.rule_id = r.id AND m.mode = 'live'
      AND m.created_at > now() - interval '7 days') AS acted_week,
  (SELECT max(m.created_at) FROM rule_matches m WHERE m.rule_id = r.id) AS last_match_at,
  (SELECT count(DISTINCT c.id)::int FROM rule_matches m JOIN review_cases c ON c.id = m.case_id
    WHERE m.rule_id = r.id AND m.created_at > now() - interval '30 days' AND c.outcome = 'upheld') AS upheld,
  (SELECT count(DISTINCT c.id)::int FROM rule_matches m JOIN review_cases c ON c.id = m.case_id
    WHERE m.rule_id = r.id AND m.created_at > now() - interval '30 days' AND c.outcome = 'dismissed') AS dismissed`;

export async function listRules(db: Queryable): Promise<(RuleRow & RuleInsights)[]> {
  const { rows } = await db.query<RuleRow & RuleInsights>(
    `SELECT r.*, ${INSIGHTS} FROM rules r ORDER BY r.created_at DESC, r.id DESC LIMIT 500`,
  );
  return rows;
}

export async function findRule(db: Queryable, id: string): Promise<(RuleRow & RuleInsights) | undefined> {
  const { rows } = await db.query<RuleRow & RuleInsights>(
    `SELECT r.*, ${INSIGHTS} FROM rules r WHERE r.id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * The open cases a scheduled rule weighs this round: those its conditions match now, oldest first, at
 * most `limit` (the next round takes the rest; a rule's cooldown keeps it from a player again).
 */
export async function openCasesMatching(
  db: Queryable,
  conditions: RuleConditions,
  limit: number,
): Promise<string[]> {
  const values: unknown[] = [];
  const where = conditionsSql(conditions, values);
  const { rows } = await db.query<{ id: string }>(
    `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
      WHERE c.status = 'open' AND ${where} ORDER BY c.opened_at, c.id LIMIT ${Math.floor(limit)}`,
    values,
  );
  return rows.map((r) => r.id);
}

/** The studios that filed reports in a case (who hears a rule's rule.matched). */
export async function studiosOfCase(db: Queryable, caseId: string): Promise<string[]> {
  const { rows } = await db.query<{ studio_id: string }>(
    `SELECT DISTINCT o.studio_id FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
      WHERE co.case_id = $1`,
    [caseId],
  );
  return rows.map((r) => r.studio_id);
}

/** A player's open cases (what a rule triggered by a sanction placed weighs). */
export async function openCasesOfPlayer(db: Queryable, playerId: string): Promise<string[]> {
  return openCasesOfPlayers(db, [playerId]);
}

/** The open cases of these players (row ids), oldest first. */
export async function openCasesOfPlayers(db: Queryable, playerIds: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM review_cases WHERE player_id = ANY($1::uuid[]) AND status = 'open' ORDER BY opened_at, id`,
    [playerIds],
  );
  return rows.map((r) => r.id);
}

/**
 * Whether a running rule weighs on this trigger (so a sanction placed or a suspicion recorded asks for
 * a weighing only when one does).
 */
export async function triggerRunning(
  db: Queryable,
  trigger: 'sanction_placed' | 'evasion_suspected' | 'match_recorded',
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM rules WHERE trigger = $1 AND mode <> 'draft' AND stopped_at IS NULL LIMIT 1`,
    [trigger],
  );
  return rows.length > 0;
}

/** The rules that weigh cases now: background or live, not stopped. */
export async function runningRules(db: Queryable): Promise<RuleRow[]> {
  const { rows } = await db.query<RuleRow>(
    `SELECT * FROM rules WHERE mode <> 'draft' AND stopped_at IS NULL ORDER BY created_at, id`,
  );
  return rows;
}

export interface MatchRow {
  id: string;
  rule_version: number;
  mode: Exclude<RuleMode, 'draft'>;
  case_id: string;
  service_id: string;
  actions: RuleActions;
  created_at: Date;
}

/** A rule's matches, newest first (keyset on the id). */
export async function listMatches(
  db: Queryable,
  ruleId: string,
  q: { limit: number; before?: string },
): Promise<MatchRow[]> {
  const { rows } = await db.query<MatchRow>(
    `SELECT m.id::text, m.rule_version, m.mode, m.case_id, p.service_id, m.actions, m.created_at
       FROM rule_matches m JOIN players p ON p.id = m.player_id
      WHERE m.rule_id = $1 AND ($2::bigint IS NULL OR m.id < $2::bigint)
      ORDER BY m.id DESC LIMIT $3`,
    [ruleId, q.before ?? null, q.limit + 1],
  );
  return rows;
}

/** Whether the rule matched the player within its cooldown. */
export async function inCooldown(db: Queryable, rule: RuleRow, playerId: string): Promise<boolean> {
  if (rule.cooldown_seconds === 0) return false;
  const { rows } = await db.query(
    `SELECT 1 FROM rule_matches WHERE rule_id = $1 AND player_id = $2
        AND created_at > now() - make_interval(secs => $3) LIMIT 1`,
    [rule.id, playerId, rule.cooldown_seconds],
  );
  return rows.length > 0;
}

/** How many times the rule acted (live) within its cap's window. */
export async function actedInWindow(db: Queryable, rule: RuleRow): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rule_matches WHERE rule_id = $1 AND mode = 'live'
        AND created_at > now() - make_interval(secs => $2)`,
    [rule.id, rule.cap_window_seconds],
  );
  return rows[0]!.n;
}

/**
 * SQL: the fewest matches left of the player's restrictions counted in matches in force, 0 for one
 * that ran out within 24 hours, null for neither (`player`: their row id). By the player's sanctions.
 */
const RESTRICTION_MATCHES_LEFT = (player: string) =>
  `SELECT min(CASE WHEN s.expires_at IS NULL OR s.expires_at > now() THEN s.matches_left ELSE 0 END)::int
     FROM sanctions s WHERE s.player_id = ${player} AND s.matches_total IS NOT NULL AND s.revoked_at IS NULL
      AND s.starts_at <= now() AND (s.expires_at IS NULL OR s.expires_at > now() - interval '24 hours')`;

/** What rules weigh of open cases: their figures and their player's, in one statement. */
export async function caseFacts(
  db: Queryable,
  caseIds: string[],
  /** Read when a running rule has a burst condition: the case's latest report times. */
  withTimes = false,
  /** Read when a running rule has a leftEarly condition: the player's latest matches. */
  withMatches = false,
): Promise<(CaseFacts & { priority: number; serviceId: string })[]> {
  const { rows } = await db.query<CaseFacts & { priority: number; serviceId: string }>(
    `SELECT c.id AS "caseId", c.player_id AS "playerId", p.service_id AS "serviceId", c.type, c.highest_severity AS severity, c.sources,
            c.reports_count AS reports, c.distinct_reporters AS "distinctReporters",
            c.distinct_games AS "distinctGames", p.trust_score AS "trustScore", c.queue_key AS queue,
            c.escalated_at IS NOT NULL AS escalated, c.priority::float8 AS priority,
            ARRAY(SELECT t.tag FROM tags t WHERE t.subject_kind = 'player' AND t.subject_id = p.id) AS "playerTags",
            ARRAY(SELECT DISTINCT s.type FROM sanctions s WHERE s.player_id = p.id AND ${ACTIVE('now()')}) AS "activeSanctionTypes",
            CASE WHEN $2 THEN ARRAY(
              SELECT (extract(epoch FROM co.reported_at) * 1000)::float8 FROM case_offenses co
               WHERE co.case_id = c.id ORDER BY co.reported_at DESC LIMIT ${BURST_MAX_REPORTS})
            ELSE '{}'::float8[] END AS "reportTimes",
            extract(epoch FROM now() - c.opened_at)::float8 / 3600 AS "openHours",
            ARRAY(SELECT m.wave_id FROM wave_members m WHERE m.player_id = p.id) AS waves,
            c.max_confidence::float8 AS confidence,
            (SELECT count(*)::int FROM strikes st WHERE st.player_id = p.id AND ${STRIKE_IN_FORCE}) AS "activeStrikes",
            (extract(epoch FROM p.points_held_until) * 1000)::float8 AS "pointsHeldUntil",
            (${OPEN_SUSPICION('p.id')}) AS "evasionSuspected",
            (${DISTINCT_STUDIOS}) AS "distinctStudios", (${BEST_CREDIBILITY}) AS "bestCredibility",
            CASE WHEN $3 THEN ARRAY(
              SELECT pm.left_early FROM player_matches pm WHERE pm.player_id = p.id
               ORDER BY pm.ended_at DESC LIMIT ${LEFT_EARLY_MAX_MATCHES})
            ELSE '{}'::boolean[] END AS "recentLeftEarly",
            (${RESTRICTION_MATCHES_LEFT('p.id')}) AS "restrictionMatchesLeft",
            (extract(epoch FROM now()) * 1000)::float8 AS "readAt"
       FROM review_cases c JOIN players p ON p.id = c.player_id
      WHERE c.id = ANY($1::uuid[]) AND c.status = 'open'`,
    [caseIds, withTimes, withMatches],
  );
  return rows;
}

/**
 * SQL: whether the case `c` (with its player `p`) meets `conditions`, its values appended to `values`
 * ($n placeholders): the SQL reading of ruleMatches (common/domain/rules.ts), for a backtest.
 */
export function conditionsSql(c: RuleConditions, values: unknown[]): string {
  const $ = (v: unknown) => `$${values.push(v)}`;
  const parts: string[] = [];
  if (c.types) parts.push(`c.type = ANY(${$(c.types)}::text[])`);
  if (c.minSeverity)
    parts.push(
      `array_position(${SEVERITY_ORDER_SQL}, c.highest_severity) >= array_position(${SEVERITY_ORDER_SQL}, ${$(c.minSeverity)}::text)`,
    );
  if (c.sources) parts.push(`c.sources && ${$(c.sources)}::text[]`);
  if (c.minReports !== undefined) parts.push(`c.reports_count >= ${$(c.minReports)}::int`);
  if (c.minDistinctReporters !== undefined)
    parts.push(`c.distinct_reporters >= ${$(c.minDistinctReporters)}::int`);
  if (c.minDistinctGames !== undefined) parts.push(`c.distinct_games >= ${$(c.minDistinctGames)}::int`);
  if (c.maxTrustScore !== undefined) parts.push(`p.trust_score <= ${$(c.maxTrustScore)}::int`);
  if (c.playerTags)
    parts.push(`EXISTS (SELECT 1 FROM tags t WHERE t.subject_kind = 'player' AND t.subject_id = c.player_id
                          AND t.tag = ANY(${$(c.playerTags)}::text[]))`);
  if (c.queues) parts.push(`c.queue_key = ANY(${$(c.queues)}::text[])`);
  if (c.noActiveSanction)
    parts.push(
      `NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.player_id = c.player_id AND ${ACTIVE('now()')})`,
    );
  if (c.evasionSuspected !== undefined)
    parts.push(
      c.evasionSuspected ? `(${OPEN_SUSPICION('c.player_id')})` : `NOT (${OPEN_SUSPICION('c.player_id')})`,
    );
  if (c.minConfidence !== undefined) parts.push(`c.max_confidence >= ${$(c.minConfidence)}::numeric`);
  if (c.minActiveStrikes !== undefined)
    parts.push(`(SELECT count(*) FROM strikes st WHERE st.player_id = c.player_id AND ${STRIKE_IN_FORCE})
                >= ${$(c.minActiveStrikes)}::int`);
  if (c.minDistinctStudios !== undefined)
    parts.push(`(${DISTINCT_STUDIOS}) >= ${$(c.minDistinctStudios)}::int`);
  if (c.minReporterCredibility !== undefined)
    parts.push(`(${BEST_CREDIBILITY}) >= ${$(c.minReporterCredibility)}::float8`);
  if (c.minOpenHours !== undefined)
    parts.push(`c.opened_at <= now() - make_interval(hours => ${$(c.minOpenHours)}::int)`);
  if (c.leftEarly)
    parts.push(`(SELECT count(*) FILTER (WHERE l.left_early)
                   FROM (SELECT pm.left_early FROM player_matches pm WHERE pm.player_id = c.player_id
                          ORDER BY pm.ended_at DESC LIMIT ${$(c.leftEarly.matches)}::int) l)
                >= ${$(c.leftEarly.atLeast)}::int`);
  if (c.maxRestrictionMatchesLeft !== undefined)
    parts.push(`(${RESTRICTION_MATCHES_LEFT('c.player_id')}) <= ${$(c.maxRestrictionMatchesLeft)}::int`);
  if (c.burst) {
    // Of the case's latest BURST_MAX_REPORTS reports (from the index on case and time alone), those
    // within the window up to the newest, in one pass.
    parts.push(`(SELECT count(*) FILTER (WHERE l.at >= l.newest - make_interval(secs => ${$(c.burst.withinSeconds)}::int))
                   FROM (SELECT co.reported_at AS at, first_value(co.reported_at) OVER (ORDER BY co.reported_at DESC) AS newest
                           FROM case_offenses co WHERE co.case_id = c.id
                          ORDER BY co.reported_at DESC LIMIT ${BURST_MAX_REPORTS}) l)
                >= ${$(c.burst.reports)}::int`);
  }
  return parts.length ? parts.join(' AND ') : 'true';
}

export interface BacktestCounts {
  cases: number;
  matched: number;
  players: number;
  agree: number;
  dismissed: number;
  missed: number;
  open: number;
}

/**
 * A rule's conditions over the cases opened in the last `days` days, against what moderators decided:
 * counted in one statement over the window (the opened_at index bounds it by the window, not the
 * table), and the first `sample` matched cases. Under a statement timeout of `timeoutMs`.
 */
export async function backtestCases(
  db: { connect(): Promise<Queryable & { release(): void }> },
  conditions: RuleConditions,
  days: number,
  sample: number,
  timeoutMs: number,
): Promise<{
  counts: BacktestCounts;
  sample: { case_id: string; service_id: string; type: string; status: string; outcome: Outcome | null }[];
}> {
  const client = await db.connect();
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1000, Math.floor(timeoutMs))}`);
    const values: unknown[] = [days];
    const match = conditionsSql(conditions, values);
    const window = `FROM review_cases c JOIN players p ON p.id = c.player_id
      WHERE c.opened_at > now() - make_interval(days => $1::int)`;
    const { rows } = await client.query<BacktestCounts>(
      // OFFSET 0 keeps the subquery whole: without it the planner inlines `matched` into each
      // FILTER below and weighs the conditions once per count, not once per case.
      `WITH c AS (SELECT c.player_id, c.status, c.outcome, (${match}) AS matched ${window} OFFSET 0)
       SELECT count(*)::int AS cases, count(*) FILTER (WHERE matched)::int AS matched,
              count(DISTINCT player_id) FILTER (WHERE matched)::int AS players,
              count(*) FILTER (WHERE matched AND outcome = 'upheld')::int AS agree,
              count(*) FILTER (WHERE matched AND outcome = 'dismissed')::int AS dismissed,
              count(*) FILTER (WHERE NOT matched AND outcome = 'upheld')::int AS missed,
              count(*) FILTER (WHERE matched AND status = 'open')::int AS open
         FROM c`,
      values,
    );
    const { rows: first } = await client.query<{
      case_id: string;
      service_id: string;
      type: string;
      status: string;
      outcome: Outcome | null;
    }>(
      `SELECT c.id AS case_id, p.service_id, c.type, c.status, c.outcome ${window} AND ${match}
        ORDER BY c.opened_at DESC LIMIT ${Math.floor(sample)}`,
      values,
    );
    await client.query('COMMIT');
    return { counts: rows[0]!, sample: first };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
