/** The reasons a player may give for an appeal (the appeals table's check holds the same list). */
export const APPEAL_REASONS = ['incorrect', 'compromised_account', 'unfair', 'forgiveness'] as const;
export type AppealReason = (typeof APPEAL_REASONS)[number];
