-- Up Migration
-- Each retention run, scheduled or asked for (issue 36; README "Personal data"): when,
-- by whom (the schedule, the admin tool, an admin through the API or the console) and what each kind
-- lost. It names no player; runs older than the audit log's window go with the next run.
CREATE TABLE retention_runs (
  id bigserial PRIMARY KEY,
  requested_by text NOT NULL CHECK (requested_by IN ('schedule', 'operator', 'admin')),
  moderator_id uuid REFERENCES moderators (id) ON DELETE SET NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now(),
  results jsonb NOT NULL
);
CREATE INDEX retention_runs_started_idx ON retention_runs (started_at DESC);

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention'));

-- Down Migration
DELETE FROM moderation_audit WHERE action = 'run_retention';
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension'));
DROP TABLE retention_runs;
