-- Up Migration
-- Ban waves (issue 38; README "Waves"): a named, scheduled set of sanctions of one kind, placed at
-- its time exactly once per player (wave_members: one row a player, marked placed in the transaction
-- that places its sanction), cancelled before it runs or rolled back after (each of its sanctions
-- revoked with the reason). A wave a moderator makes that is large or bans for good waits for a second
-- moderator (an admin) to approve it; both are in the audit log.
CREATE TABLE waves (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  state text NOT NULL CHECK (state IN ('awaiting_approval', 'scheduled', 'running', 'done', 'cancelled',
                                       'rolling_back', 'rolled_back')),
  run_at timestamptz NOT NULL,
  sanction_type text NOT NULL CHECK (sanction_type IN ('warning', 'chat_restriction', 'matchmaking_restriction',
                                                       'temporary_ban', 'permanent_ban')),
  scope_studio_id uuid REFERENCES studios (id),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
  duration_seconds integer CHECK (duration_seconds IS NULL OR duration_seconds > 0),
  dsa_category text,
  created_by_moderator uuid REFERENCES moderators (id),
  created_by_studio uuid REFERENCES studios (id),
  approved_by_moderator uuid REFERENCES moderators (id),
  approved_at timestamptz,
  cancelled_by_moderator uuid REFERENCES moderators (id),
  cancelled_by_studio uuid REFERENCES studios (id),
  cancelled_at timestamptz,
  cancel_reason text,
  rolled_back_by_moderator uuid REFERENCES moderators (id),
  rolled_back_by_studio uuid REFERENCES studios (id),
  rollback_requested_at timestamptz,
  rollback_reason text,
  started_at timestamptz,
  finished_at timestamptz,
  size integer NOT NULL CHECK (size >= 1),
  -- Kept with each batch, in its transaction: the progress without counting the members.
  placed integer NOT NULL DEFAULT 0,
  skipped integer NOT NULL DEFAULT 0,
  revoked integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((created_by_moderator IS NULL) <> (created_by_studio IS NULL))
);
CREATE INDEX waves_created_idx ON waves (created_at DESC, id DESC);
CREATE INDEX waves_studio_idx ON waves (created_by_studio, created_at DESC) WHERE created_by_studio IS NOT NULL;
CREATE INDEX waves_active_idx ON waves (run_at) WHERE state IN ('scheduled', 'running', 'rolling_back');

CREATE TABLE wave_members (
  wave_id uuid NOT NULL REFERENCES waves (id),
  player_id uuid NOT NULL REFERENCES players (id),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'placed', 'skipped', 'revoked')),
  sanction_id uuid REFERENCES sanctions (id),
  skip_reason text,
  done_at timestamptz,
  PRIMARY KEY (wave_id, player_id)
);
CREATE INDEX wave_members_pending_idx ON wave_members (wave_id) WHERE state = 'pending';
CREATE INDEX wave_members_placed_idx ON wave_members (wave_id) WHERE state = 'placed';
CREATE INDEX wave_members_player_idx ON wave_members (player_id);

-- A sanction a wave placed names it (the statement of reasons says so; a rollback finds them).
ALTER TABLE sanctions ADD COLUMN wave_id uuid REFERENCES waves (id);

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('create_wave', 'approve_wave', 'cancel_wave', 'roll_back_wave');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention'));
ALTER TABLE sanctions DROP COLUMN wave_id;
DROP TABLE wave_members;
DROP TABLE waves;
