/**
 * Shapes of the `appeal` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
/** An appeal's statuses (common/lifecycles/appeal.ts moves them). */
export const APPEAL_STATUSES = ['open', 'granted', 'denied'] as const;
export type AppealStatus = (typeof APPEAL_STATUSES)[number];
