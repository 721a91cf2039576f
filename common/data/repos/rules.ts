import type { Queryable } from '../db.js';
import type { CaseFacts, RuleActions, RuleMode } from '../../domain/rules.js';
import type { RuleRow } from '../../lifecycles/rule.js';
import { ACTIVE } from './sanctions.js';

/** Reads of rules and their matches (the writes are common/lifecycles/rule.ts). */

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

/** What rules weigh of open cases: their figures and their player's, in one statement. */
export async function caseFacts(
  db: Queryable,
  caseIds: string[],
): Promise<(CaseFacts & { priority: number; serviceId: string })[]> {
  const { rows } = await db.query<CaseFacts & { priority: number; serviceId: string }>(
    `SELECT c.id AS "caseId", c.player_id AS "playerId", p.service_id AS "serviceId", c.type, c.highest_severity AS severity, c.sources,
            c.reports_count AS reports, c.distinct_reporters AS "distinctReporters",
            c.distinct_games AS "distinctGames", p.trust_score AS "trustScore", c.queue_key AS queue,
            c.escalated_at IS NOT NULL AS escalated, c.priority::float8 AS priority,
            ARRAY(SELECT t.tag FROM tags t WHERE t.subject_kind = 'player' AND t.subject_id = p.id) AS "playerTags",
            (SELECT count(*)::int FROM sanctions s WHERE s.player_id = p.id AND ${ACTIVE('now()')}) AS "activeSanctions"
       FROM review_cases c JOIN players p ON p.id = c.player_id
      WHERE c.id = ANY($1::uuid[]) AND c.status = 'open'`,
    [caseIds],
  );
  return rows;
}
