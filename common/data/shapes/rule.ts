/**
 * Shapes of the `rule` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
import type { RuleActions, RuleConditions, RuleMode, RuleTrigger } from '../../domain/rules.js';

/** A rule's row (common/lifecycles/rule.ts writes it). */
export interface RuleRow {
  id: string;
  name: string;
  version: number;
  mode: RuleMode;
  trigger: RuleTrigger;
  conditions: RuleConditions;
  actions: RuleActions;
  cooldown_seconds: number;
  cap_count: number;
  cap_window_seconds: number;
  stopped_at: Date | null;
  stop_reason: string | null;
  /** A live rule that sanctions, saved and not yet approved by a second admin: it acts as background. */
  awaiting_approval: boolean;
  approved_by: string | null;
  approved_at: Date | null;
  created_by: string;
  updated_by: string;
  created_at: Date;
  updated_at: Date;
}
