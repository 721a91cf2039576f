-- Up Migration
-- Rules that act on their own (issue 38; README "Rules"): an admin writes a rule as data (conditions
-- over a case's figures and its player, actions on the case and the player), versioned (each save a
-- row of rule_versions) and in a mode: draft (nothing), background (each match recorded with what it
-- would have done, nothing changed) or live (it acts). A rule acts at most once a player within its
-- cooldown, and stops when it acted cap_count times within cap_window_seconds.
CREATE TABLE rules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  version integer NOT NULL DEFAULT 1,
  mode text NOT NULL CHECK (mode IN ('draft', 'background', 'live')),
  conditions jsonb NOT NULL,
  actions jsonb NOT NULL,
  cooldown_seconds integer NOT NULL CHECK (cooldown_seconds >= 0),
  cap_count integer NOT NULL CHECK (cap_count >= 1),
  cap_window_seconds integer NOT NULL CHECK (cap_window_seconds >= 60),
  stopped_at timestamptz,
  stop_reason text,
  created_by uuid NOT NULL REFERENCES moderators (id),
  updated_by uuid NOT NULL REFERENCES moderators (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rules_running_idx ON rules (id) WHERE mode <> 'draft' AND stopped_at IS NULL;

CREATE TABLE rule_versions (
  rule_id uuid NOT NULL REFERENCES rules (id),
  version integer NOT NULL,
  name text NOT NULL,
  mode text NOT NULL,
  conditions jsonb NOT NULL,
  actions jsonb NOT NULL,
  cooldown_seconds integer NOT NULL,
  cap_count integer NOT NULL,
  cap_window_seconds integer NOT NULL,
  saved_by uuid NOT NULL REFERENCES moderators (id),
  saved_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (rule_id, version)
);

-- Each match of a rule in background or live mode: what it did (live) or would have done.
CREATE TABLE rule_matches (
  id bigserial PRIMARY KEY,
  rule_id uuid NOT NULL REFERENCES rules (id),
  rule_version integer NOT NULL,
  mode text NOT NULL CHECK (mode IN ('background', 'live')),
  case_id uuid NOT NULL REFERENCES review_cases (id),
  player_id uuid NOT NULL REFERENCES players (id),
  actions jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rule_matches_rule_idx ON rule_matches (rule_id, created_at DESC);
CREATE INDEX rule_matches_player_idx ON rule_matches (rule_id, player_id, created_at DESC);
CREATE INDEX rule_matches_case_idx ON rule_matches (case_id);

-- A rule's priority: the case's priority is never below it while the case is open.
ALTER TABLE review_cases ADD COLUMN priority_floor numeric(8, 2);

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave', 'save_rule', 'rule_action'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('save_rule', 'rule_action');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave'));
ALTER TABLE review_cases DROP COLUMN priority_floor;
DROP TABLE rule_matches;
DROP TABLE rule_versions;
DROP TABLE rules;
