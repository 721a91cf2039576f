-- Up Migration
-- Linked accounts and ban evasion (issue 53; README "Linked accounts"). common/lifecycles/signals.ts
-- is the only writer of these tables.

-- One value a studio sent about one of its players: never the value, only its keyed hash
-- (HMAC-SHA256 under the deployment's signal key, over the studio, the kind and the normal form;
-- an IP address as its /24 or /48 network), the key's public id, and when it was first and last
-- seen. A value is the studio's own: the same device sent by two studios is two values.
CREATE TABLE signals (
  studio_id uuid NOT NULL REFERENCES studios (id),
  kind text NOT NULL CHECK (kind IN ('hardware_id', 'install_id', 'ip_address', 'payment_fingerprint',
                                     'phone', 'email', 'platform_account')),
  digest bytea NOT NULL CHECK (length(digest) = 32),
  key_id text NOT NULL CHECK (length(key_id) BETWEEN 1 AND 16),
  player_id uuid NOT NULL REFERENCES players (id),
  first_seen_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL CHECK (last_seen_at >= first_seen_at),
  PRIMARY KEY (studio_id, kind, digest, player_id)
);
-- A player's values (links, export, erasure); and what retention deletes, oldest first per kind.
CREATE INDEX signals_player_idx ON signals (player_id, studio_id);
CREATE INDEX signals_expiry_idx ON signals (kind, last_seen_at);

-- Two accounts a studio's signals link: stored in both directions, so a player's links are one
-- index range. The kinds they share (values held by more accounts than the kind's cap excluded),
-- the strength those kinds give, and since when (the later first sighting of the first value they
-- shared). Derived from signals whenever a value arrives or leaves; never edited by hand.
CREATE TABLE account_links (
  player_id uuid NOT NULL REFERENCES players (id),
  studio_id uuid NOT NULL REFERENCES studios (id),
  other_id uuid NOT NULL REFERENCES players (id),
  kinds text[] NOT NULL CHECK (cardinality(kinds) >= 1),
  strength numeric(3, 2) NOT NULL CHECK (strength > 0 AND strength <= 1),
  linked_since timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (player_id, studio_id, other_id),
  CHECK (player_id <> other_id)
);
CREATE INDEX account_links_other_idx ON account_links (other_id);

-- An account that signed in strongly linked to an account under an active ban of the same scope
-- (global, or the studio whose signals link them): one row per suspect and ban. It says
-- evasionSuspected while the ban is in force and no moderator cleared it.
CREATE TABLE evasion_suspicions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  studio_id uuid NOT NULL REFERENCES studios (id),
  banned_player_id uuid NOT NULL REFERENCES players (id),
  sanction_id uuid NOT NULL REFERENCES sanctions (id),
  kinds text[] NOT NULL CHECK (cardinality(kinds) >= 1),
  strength numeric(3, 2) NOT NULL,
  detected_at timestamptz NOT NULL,
  cleared_at timestamptz,
  cleared_by uuid REFERENCES moderators (id),
  clear_reason text CHECK (length(clear_reason) BETWEEN 1 AND 2000),
  CHECK ((cleared_at IS NULL) = (clear_reason IS NULL)),
  UNIQUE (player_id, sanction_id)
);
CREATE INDEX evasion_suspicions_open_idx ON evasion_suspicions (player_id) WHERE cleared_at IS NULL;
CREATE INDEX evasion_suspicions_banned_idx ON evasion_suspicions (banned_player_id);
CREATE INDEX evasion_suspicions_list_idx ON evasion_suspicions (detected_at DESC, id DESC) WHERE cleared_at IS NULL;

-- The profile says whether the player is suspected of evading a ban (for the viewing studio).
ALTER TYPE pt_profile ADD ATTRIBUTE "evasionSuspected" boolean;

-- A moderator clearing a suspicion is audited.
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave', 'save_rule', 'rule_action', 'approve_rule', 'clear_evasion'));

-- Down Migration
DELETE FROM moderation_audit WHERE action = 'clear_evasion';
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension', 'run_retention', 'create_wave', 'approve_wave', 'cancel_wave',
                      'roll_back_wave', 'save_rule', 'rule_action', 'approve_rule'));
ALTER TYPE pt_profile DROP ATTRIBUTE "evasionSuspected";
DROP TABLE evasion_suspicions;
DROP TABLE account_links;
DROP TABLE signals;
