-- Up Migration
-- Refresh tokens (RFC 6749 section 6) for grants with the offline_access scope: each refresh
-- rotates the token (the one used is spent), and a spent token presented again (a replay: stolen, or
-- a copy) revokes its whole family, every refresh and access token of that grant (RFC 9700 4.14).
CREATE TABLE token_families (
  id uuid PRIMARY KEY,
  -- The authorization code the grant came from: a replayed code revokes the family too.
  code_hash bytea NOT NULL,
  game_id uuid NOT NULL REFERENCES games (id),
  player_id uuid NOT NULL REFERENCES players (id),
  scope text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- No refresh beyond this, however often the tokens rotate: the player signs in again.
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text CHECK (revoked_reason IN ('reuse', 'revoked', 'code_replay'))
);
CREATE INDEX token_families_code_idx ON token_families (code_hash);
CREATE INDEX token_families_expiry_idx ON token_families (expires_at);

CREATE TABLE refresh_tokens (
  -- sha256 of the token: the token itself is never stored.
  token_hash bytea PRIMARY KEY,
  family_id uuid NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);

-- The family an access token belongs to (null for a grant without offline_access).
ALTER TABLE access_tokens ADD COLUMN family_id uuid;
CREATE INDEX access_tokens_family_idx ON access_tokens (family_id) WHERE family_id IS NOT NULL;

-- Down Migration
DROP INDEX access_tokens_family_idx;
ALTER TABLE access_tokens DROP COLUMN family_id;
DROP TABLE refresh_tokens;
DROP TABLE token_families;
