-- Up Migration
-- The score right after this offense's deduction: what trust.changed events report, without re-reading.
ALTER TABLE offenses ADD COLUMN trust_score_after integer;

CREATE TABLE moderators (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username text NOT NULL CHECK (username ~ '^[a-z0-9_.-]{3,64}$'),
  display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  role text NOT NULL CHECK (role IN ('moderator', 'admin')),
  password_hash text NOT NULL,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX moderators_username_idx ON moderators (username);

-- A claim is a lease: it holds while claim_expires_at is in the future.
ALTER TABLE review_cases
  ADD COLUMN claimed_by uuid REFERENCES moderators (id),
  ADD COLUMN claim_expires_at timestamptz,
  ADD COLUMN outcome text CHECK (outcome IN ('upheld', 'dismissed')),
  ADD COLUMN resolution_note text,
  ADD COLUMN resolved_by uuid REFERENCES moderators (id),
  ADD COLUMN resolved_at timestamptz,
  ADD COLUMN points_restored integer NOT NULL DEFAULT 0,
  ADD CONSTRAINT review_cases_resolution_check CHECK ((status = 'open') = (outcome IS NULL));
CREATE INDEX review_cases_resolved_idx ON review_cases (resolved_at DESC, id) WHERE status = 'resolved';

-- Every moderator action, with the player's trust score before and after it.
CREATE TABLE moderation_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  moderator_id uuid NOT NULL REFERENCES moderators (id),
  case_id uuid NOT NULL REFERENCES review_cases (id),
  action text NOT NULL CHECK (action IN ('claim', 'release', 'resolve')),
  outcome text CHECK (outcome IN ('upheld', 'dismissed')),
  note text,
  trust_score_before integer NOT NULL,
  trust_score_after integer NOT NULL,
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX moderation_audit_case_idx ON moderation_audit (case_id, id);
CREATE INDEX moderation_audit_moderator_idx ON moderation_audit (moderator_id, id);

CREATE TABLE webhooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  studio_id uuid NOT NULL REFERENCES studios (id),
  url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  -- The signing secret, AES-256-GCM under a key derived from the server pepper: the worker needs
  -- the secret itself to sign, so it cannot be a one-way hash.
  secret_ciphertext bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);
CREATE INDEX webhooks_studio_idx ON webhooks (studio_id) WHERE disabled_at IS NULL;

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id uuid NOT NULL REFERENCES webhooks (id),
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);

-- Down Migration
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
DROP TABLE moderation_audit;
ALTER TABLE review_cases
  DROP CONSTRAINT review_cases_resolution_check,
  DROP COLUMN points_restored,
  DROP COLUMN resolved_at,
  DROP COLUMN resolved_by,
  DROP COLUMN resolution_note,
  DROP COLUMN outcome,
  DROP COLUMN claim_expires_at,
  DROP COLUMN claimed_by;
DROP TABLE moderators;
ALTER TABLE offenses DROP COLUMN trust_score_after;
