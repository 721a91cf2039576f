-- Up Migration
-- Notices from anyone (DSA Art. 16) and trusted flaggers (Art. 22): issue 37; README "Notices".
-- A notice is filed as an offense whose points are held for a moderator (status_reason 'notice'):
-- it takes nothing by itself, and an upheld case takes its points by the penalty rule.
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice'));

-- Organisations a Digital Services Coordinator awarded the status (Art. 22), registered by an admin.
CREATE TABLE trusted_flaggers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- The Transparency Database categories it is trusted for.
  areas text[] NOT NULL CHECK (cardinality(areas) >= 1),
  coordinator text NOT NULL CHECK (length(coordinator) BETWEEN 1 AND 200),
  -- sha256 of its API key: the key itself is shown once.
  key_hash bytea NOT NULL UNIQUE,
  created_by uuid REFERENCES moderators (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  suspended_at timestamptz,
  suspended_by uuid REFERENCES moderators (id),
  suspend_reason text CHECK (length(suspend_reason) BETWEEN 1 AND 2000),
  CHECK ((suspended_at IS NULL) = (suspend_reason IS NULL))
);

-- One notice: who sent it (a person's contact, or a trusted flagger), about whom, and the offense it
-- was filed as (its words and evidence are the offense's). The secret of the receipt is kept hashed.
CREATE TABLE notices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  secret_hash bytea NOT NULL,
  offense_id uuid NOT NULL UNIQUE REFERENCES offenses (id),
  player_id uuid NOT NULL REFERENCES players (id),
  game_id uuid NOT NULL REFERENCES games (id),
  category text NOT NULL CHECK (category ~ '^STATEMENT_CATEGORY_[A-Z_]+$'),
  source text NOT NULL CHECK (source IN ('notice', 'trusted_flagger')),
  trusted_flagger_id uuid REFERENCES trusted_flaggers (id),
  notifier_name text CHECK (length(notifier_name) BETWEEN 1 AND 200),
  notifier_email text CHECK (length(notifier_email) BETWEEN 3 AND 254),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((source = 'trusted_flagger') = (trusted_flagger_id IS NOT NULL))
);
CREATE INDEX notices_player_idx ON notices (player_id, created_at DESC);
CREATE INDEX notices_flagger_idx ON notices (trusted_flagger_id, created_at DESC) WHERE trusted_flagger_id IS NOT NULL;
CREATE INDEX notices_created_idx ON notices (created_at);
-- Retention of the notifiers' contacts (common/data/retention.ts): loses a row once reduced.
CREATE INDEX notices_contact_held_idx ON notices (created_at) WHERE notifier_name IS NOT NULL OR notifier_email IS NOT NULL;

-- The bounds of the public channel: notices a day per sender address and per e-mail (keyed by an HMAC
-- of either, never the address or e-mail itself), the window starting at the first.
CREATE TABLE notice_quota (
  key text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  used integer NOT NULL CHECK (used >= 0)
);
CREATE INDEX notice_quota_window_idx ON notice_quota (window_start);

-- A case holding a trusted flagger's notice goes ahead of others (README "Notices": its priority and
-- deadline).
ALTER TABLE review_cases ADD COLUMN flagged_by_trusted boolean NOT NULL DEFAULT false;

-- Registering, suspending and reinstating a trusted flagger are audited.
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('register_flagger', 'suspend_flagger', 'reinstate_flagger');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing'));
ALTER TABLE review_cases DROP COLUMN flagged_by_trusted;
DROP TABLE notice_quota;
DROP TABLE notices;
DROP TABLE trusted_flaggers;
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding'));
