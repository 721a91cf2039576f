/**
 * Shapes of the `wave` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
import type { SanctionType } from '../../domain/sanctions.js';

/** A wave's and a member's states, and a wave's row (common/lifecycles/wave.ts moves them). */
export const WAVE_STATES = [
  'awaiting_approval',
  'scheduled',
  'running',
  'done',
  'cancelled',
  'rolling_back',
  'rolled_back',
] as const;
export type WaveState = (typeof WAVE_STATES)[number];

export const MEMBER_STATES = ['pending', 'placed', 'skipped', 'revoked'] as const;
export type MemberState = (typeof MEMBER_STATES)[number];

export interface WaveRow {
  id: string;
  name: string;
  state: WaveState;
  run_at: Date;
  sanction_type: SanctionType;
  scope_studio_id: string | null;
  reason: string;
  duration_seconds: number | null;
  dsa_category: string | null;
  created_by_moderator: string | null;
  created_by_studio: string | null;
  approved_by_moderator: string | null;
  approved_at: Date | null;
  cancelled_by_moderator: string | null;
  cancelled_by_studio: string | null;
  cancelled_at: Date | null;
  cancel_reason: string | null;
  rolled_back_by_moderator: string | null;
  rolled_back_by_studio: string | null;
  rollback_requested_at: Date | null;
  rollback_reason: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  size: number;
  placed: number;
  skipped: number;
  revoked: number;
  created_at: Date;
}
