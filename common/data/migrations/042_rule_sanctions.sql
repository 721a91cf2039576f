-- Up Migration
-- A rule that places a sanction (issue 38; README "Rules"): the sanction carries the rule and its
-- version; a live rule that sanctions waits for a second admin's approval of each version it is saved
-- in (four eyes), and acts as a background rule until then.
ALTER TABLE rules
  ADD COLUMN awaiting_approval boolean NOT NULL DEFAULT false,
  ADD COLUMN approved_by uuid REFERENCES moderators (id),
  ADD COLUMN approved_at timestamptz;
ALTER TABLE rule_versions ADD COLUMN approved_by uuid REFERENCES moderators (id);

ALTER TABLE sanctions
  ADD COLUMN rule_id uuid REFERENCES rules (id),
  ADD COLUMN rule_version integer,
  ADD CONSTRAINT sanctions_rule_version_check CHECK ((rule_id IS NULL) = (rule_version IS NULL));
CREATE INDEX sanctions_rule_idx ON sanctions (rule_id) WHERE rule_id IS NOT NULL;

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave', 'save_rule', 'rule_action', 'approve_rule'));

-- Down Migration
DELETE FROM moderation_audit WHERE action = 'approve_rule';
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave', 'save_rule', 'rule_action'));
DROP INDEX sanctions_rule_idx;
ALTER TABLE sanctions DROP CONSTRAINT sanctions_rule_version_check, DROP COLUMN rule_version, DROP COLUMN rule_id;
ALTER TABLE rule_versions DROP COLUMN approved_by;
ALTER TABLE rules DROP COLUMN approved_at, DROP COLUMN approved_by, DROP COLUMN awaiting_approval;
