/**
 * Shapes of the `offense` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
/** An offense's statuses (common/lifecycles/offense.ts moves them), and who gave its points back. */
export const OFFENSE_STATUSES = ['applied', 'held', 'released', 'dropped', 'recorded', 'restored'] as const;
export type OffenseStatus = (typeof OFFENSE_STATUSES)[number];

export type RestoredBy = 'dismissal' | 'appeal';

/** Whether a report was a person's (a player's report) or a system's, kept for the transparency report. */
export const KEEP_SOURCE = `jsonb_strip_nulls(jsonb_build_object('source', coalesce(o.context->>'source',
    CASE WHEN o.reporter_id IS NOT NULL THEN 'player' END)))`;
