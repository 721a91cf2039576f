-- Up Migration
-- A team's workflow on cases (issue 25): a case can be assigned to a moderator (by an admin) and
-- escalated to the senior role with a note (by anyone); an escalated open case is seen and worked
-- by admins only. Both are audited.
ALTER TABLE review_cases
  ADD COLUMN assigned_to uuid REFERENCES moderators (id),
  ADD COLUMN escalated_at timestamptz,
  ADD COLUMN escalation_note text CHECK (escalation_note IS NULL OR length(escalation_note) BETWEEN 1 AND 2000);
CREATE INDEX review_cases_assigned_idx ON review_cases (assigned_to) WHERE status = 'open' AND assigned_to IS NOT NULL;

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('assign', 'escalate');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note'));
DROP INDEX review_cases_assigned_idx;
ALTER TABLE review_cases DROP COLUMN escalation_note, DROP COLUMN escalated_at, DROP COLUMN assigned_to;
