/**
 * Shapes of the `erasure` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
/** An erasure's states and row (common/lifecycles/erasure.ts moves them). */
export const ERASURE_STATES = ['awaiting_confirmation', 'pending', 'done', 'cancelled'] as const;
export type ErasureState = (typeof ERASURE_STATES)[number];

/** What an erasure removed, by part of the record: its receipt. */
export type ErasureReceipt = Record<string, number>;

export interface ErasureRow {
  id: string;
  player_id: string;
  state: ErasureState;
  requested_by_studio: string | null;
  requested_by_moderator: string | null;
  requested_by_operator: boolean;
  decided_by_moderator: string | null;
  receipt: ErasureReceipt | null;
  requested_at: Date;
  confirmed_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
}
