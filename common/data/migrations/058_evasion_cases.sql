-- Up Migration
-- Evasion cases (issue 53, part 3; docs/linked-accounts.md "Evasion at the door"): each suspicion the
-- sign-in check records files one offense on the suspect (source evasion_check, its points held for
-- a moderator: statusReason evasion_check, pt_file_reports Version 11), which opens or joins a review
-- case like any report. The suspicion names its offense, so the case's decision reaches it (a
-- dismissal clears the suspicion). Both are written in the transaction that records the signals.
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice',
                             'rule_hold', 'party_report', 'brigading', 'evasion_check'));
ALTER TABLE evasion_suspicions ADD COLUMN offense_id uuid REFERENCES offenses (id);
CREATE INDEX evasion_suspicions_offense_idx ON evasion_suspicions (offense_id) WHERE offense_id IS NOT NULL;

-- Down Migration
DROP INDEX evasion_suspicions_offense_idx;
ALTER TABLE evasion_suspicions DROP COLUMN offense_id;
UPDATE offenses SET status_reason = 'notice' WHERE status_reason = 'evasion_check';
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice',
                             'rule_hold', 'party_report', 'brigading'));
