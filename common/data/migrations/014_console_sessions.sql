-- Up Migration
-- Moderator console sessions: a browser holds the session id in an HttpOnly cookie (never a token a
-- script can read); the row holds its hash, the CSRF token writes must echo, and the idle clock.
CREATE TABLE console_sessions (
  id_hash bytea PRIMARY KEY,
  moderator_id uuid NOT NULL REFERENCES moderators (id),
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  -- However busy the moderator, the session ends here; idleness ends it sooner.
  expires_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_expiry_idx ON console_sessions (expires_at);
CREATE INDEX console_sessions_moderator_idx ON console_sessions (moderator_id);

-- Down Migration
DROP TABLE console_sessions;
