import type { Queryable } from '../data/db.js';
import {
  needsApproval,
  type RuleActions,
  type RuleConditions,
  type RuleMode,
  type RuleTrigger,
} from '../domain/rules.js';
import { type RuleRow } from '../data/shapes/rule.js';
import { actedInWindow } from '../data/repos/rules.js';

/**
 * A rule's life (issue 38; docs/moderators.md "Rules"), the only code that writes `rules`, `rule_versions` and
 * `rule_matches` (a test holds it to that):
 *
 *   saved (version 1, 2, ...: each save a new version, kept) in a mode: draft | background | live
 *   background | live --(acted cap_count times within cap_window_seconds)--> stopped (until saved again)
 *   live with a sanction action: awaiting approval (acts as background) --approve (another admin)--> live
 *
 * A match is recorded once a rule in background or live mode matched a case and its actions would
 * change something, at most once a player within the rule's cooldown.
 */

export interface RuleInput {
  name: string;
  mode: RuleMode;
  trigger: RuleTrigger;
  conditions: RuleConditions;
  actions: RuleActions;
  cooldownSeconds: number;
  capCount: number;
  capWindowSeconds: number;
}

const KEEP_VERSION = `INSERT INTO rule_versions (rule_id, version, name, mode, conditions, actions, cooldown_seconds,
                                                 cap_count, cap_window_seconds, saved_by, trigger)
  SELECT id, version, name, mode, conditions, actions, cooldown_seconds, cap_count, cap_window_seconds, updated_by,
         trigger
    FROM r`;

/** A version's values, $1.. in this order: what recordRule and recordSave both write. */
const versionValues = (r: RuleInput, by: string) => [
  r.name,
  r.mode,
  r.conditions,
  r.actions,
  r.cooldownSeconds,
  r.capCount,
  r.capWindowSeconds,
  by,
  needsApproval(r.mode, r.actions),
  r.trigger,
];

/** A new rule, version 1. */
export async function recordRule(db: Queryable, r: RuleInput, by: string): Promise<RuleRow> {
  const { rows } = await db.query<RuleRow>(
    `WITH r AS (
       INSERT INTO rules (name, mode, conditions, actions, cooldown_seconds, cap_count, cap_window_seconds,
                          created_by, updated_by, awaiting_approval, trigger)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10) RETURNING *),
     v AS (${KEEP_VERSION})
     SELECT * FROM r`,
    versionValues(r, by),
  );
  return rows[0]!;
}

/** A rule saved again: the next version, kept; a stopped rule runs again (and waits for approval again). */
export async function recordSave(db: Queryable, id: string, r: RuleInput, by: string): Promise<RuleRow> {
  const { rows } = await db.query<RuleRow>(
    `WITH r AS (
       UPDATE rules SET name = $1, mode = $2, conditions = $3, actions = $4, cooldown_seconds = $5,
              cap_count = $6, cap_window_seconds = $7, updated_by = $8, version = version + 1,
              stopped_at = NULL, stop_reason = NULL, updated_at = now(),
              awaiting_approval = $9, approved_by = NULL, approved_at = NULL, trigger = $10
        WHERE id = $11 RETURNING *),
     v AS (${KEEP_VERSION})
     SELECT * FROM r`,
    [...versionValues(r, by), id],
  );
  return rows[0]!;
}

/** A rule locked for the caller's transaction (its matches take turns: the cooldown and the cap hold). */
export async function lockRule(db: Queryable, id: string): Promise<RuleRow | undefined> {
  const { rows } = await db.query<RuleRow>('SELECT * FROM rules WHERE id = $1 FOR UPDATE', [id]);
  return rows[0];
}

/** A second admin approves the version awaiting approval: from now it acts (live). */
export async function recordApproval(db: Queryable, rule: RuleRow, by: string): Promise<RuleRow> {
  const { rows } = await db.query<RuleRow>(
    `WITH r AS (
       UPDATE rules SET awaiting_approval = false, approved_by = $2, approved_at = now()
        WHERE id = $1 AND awaiting_approval RETURNING *),
     v AS (UPDATE rule_versions v SET approved_by = $2 FROM r WHERE v.rule_id = r.id AND v.version = r.version)
     SELECT * FROM r`,
    [rule.id, by],
  );
  return rows[0]!;
}

/** Stops a rule that reached its cap; it runs again once saved. */
async function recordStop(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query('UPDATE rules SET stopped_at = now(), stop_reason = $2 WHERE id = $1', [id, reason]);
}

/**
 * The cap's condition, the arrow live --> stopped above: a live rule that already acted `cap_count`
 * times within `cap_window_seconds` stops (with the reason in words) instead of acting again; a rule
 * in background never stops (it acts on nothing). Under the rule's row lock (lockRule), so the count
 * holds across workers. True when it stopped.
 */
export async function stopAtCap(db: Queryable, rule: RuleRow, mode: RuleMode): Promise<boolean> {
  if (mode !== 'live' || (await actedInWindow(db, rule)) < rule.cap_count) return false;
  await recordStop(
    db,
    rule.id,
    `acted ${rule.cap_count} times within ${rule.cap_window_seconds} s (its cap)`,
  );
  return true;
}

export async function recordMatch(
  db: Queryable,
  m: { rule: RuleRow; caseId: string; playerId: string; actions: RuleActions },
): Promise<void> {
  await db.query(
    `INSERT INTO rule_matches (rule_id, rule_version, mode, case_id, player_id, actions)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [m.rule.id, m.rule.version, m.rule.mode, m.caseId, m.playerId, m.actions],
  );
}

export { type RuleRow } from '../data/shapes/rule.js';
