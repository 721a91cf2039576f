/**
 * The rules every report passes when it is filed, in the order a report meets them. They are
 * enforced inside PostgreSQL, in the report's own statement, so that they hold exactly under any
 * concurrency and while Redis is down: `common/data/functions/pt_file_reports.sql` is their code, and
 * its header names the same rules (a test holds the two lists equal), so a search for a rule's name
 * finds both. docs/studios.md "Trust integrity" documents them for clients.
 */
export const FILING_RULES = {
  unknown_player: { outcome: 'refused', answer: '404 not_found' },
  player_order: { outcome: 'ordering', answer: "each player's reports apply in the order they came" },
  duplicate_report: { outcome: 'refused', answer: '409 duplicate_report' },
  reporter_quota: { outcome: 'refused', answer: '429 reporter_quota_exceeded' },
  no_finding: { outcome: 'recorded', answer: 'status recorded, statusReason no_finding' },
  reporter_muted: { outcome: 'recorded', answer: 'status recorded, statusReason reporter_muted' },
  party_report: {
    outcome: 'recorded',
    answer:
      'status recorded, statusReason party_report (another member of the party reported it in the match)',
  },
  notice: {
    outcome: 'held',
    answer: 'status held, statusReason notice (a notice, docs/moderators.md "Notices")',
  },
  evasion_check: {
    outcome: 'held',
    answer:
      'status held, statusReason evasion_check (the sign-in check suspects evasion of a ban, docs/linked-accounts.md)',
  },
  rule_hold: {
    outcome: 'held',
    answer: "status held, statusReason rule_hold (a rule holds the player's points)",
  },
  brigading: {
    outcome: 'held',
    answer:
      'status held, statusReason brigading (the reporter or their party reported the player in 2 other matches within 7 days)',
  },
  reporter_credibility: { outcome: 'held', answer: 'status held, statusReason reporter_credibility' },
  after_loss: {
    outcome: 'applied',
    answer: 'penaltyApplied halved, rounded up (a reporter of the other team, within 30 minutes of losing)',
  },
  studio_budget: { outcome: 'held', answer: 'status held, statusReason studio_budget' },
  score_floor: { outcome: 'applied', answer: 'penaltyApplied never takes the score below 0' },
} as const;

export type FilingRule = keyof typeof FILING_RULES;

/** Why an offense took no points or fewer than its penalty: the rules whose outcome is held or recorded. */
export type StatusReason = {
  [K in FilingRule]: (typeof FILING_RULES)[K]['outcome'] extends 'held' | 'recorded' ? K : never;
}[FilingRule];

export const STATUS_REASONS = (Object.keys(FILING_RULES) as FilingRule[]).filter(
  (rule) => FILING_RULES[rule].outcome === 'held' || FILING_RULES[rule].outcome === 'recorded',
) as StatusReason[];
