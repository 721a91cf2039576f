/**
 * Shapes of the `notice` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
import type { OffenseStatus } from './offense.js';

/**
 * What decides where a notice (or a game's report) stands: its offense and its case, as the columns
 * STANDING_COLUMNS reads (with STANDING_JOINS on the offense `o`).
 */
export interface StandingFacts {
  offense_status: OffenseStatus;
  restored_by: 'dismissal' | 'appeal' | null;
  restored_at: Date | null;
  case_status: 'open' | 'resolved' | null;
  case_outcome: string | null;
  resolved_at: Date | null;
  claimed: boolean;
}
export const STANDING_COLUMNS = `o.status AS offense_status, o.restored_by, o.restored_at, c.status AS case_status,
  c.outcome AS case_outcome, c.resolved_at, (c.claimed_by IS NOT NULL AND c.claim_expires_at > now()) AS claimed`;
export const STANDING_JOINS = `LEFT JOIN case_offenses co ON co.offense_id = o.id
  LEFT JOIN review_cases c ON c.id = co.case_id`;
