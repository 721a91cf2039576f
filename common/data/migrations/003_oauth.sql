-- Up Migration
CREATE TABLE authorization_codes (
  -- sha256 of the code: the code itself is never stored.
  code_hash bytea PRIMARY KEY,
  game_id uuid NOT NULL REFERENCES games (id),
  player_id uuid NOT NULL REFERENCES players (id),
  redirect_uri text NOT NULL,
  -- Whether the authorization request named redirect_uri (RFC 6749 4.1.3: then the token request must too).
  redirect_uri_explicit boolean NOT NULL,
  code_challenge text,
  scope text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX authorization_codes_expiry_idx ON authorization_codes (expires_at);

-- One row per issued access token, for revocation (a replayed code revokes what it issued).
CREATE TABLE access_tokens (
  jti uuid PRIMARY KEY,
  code_hash bytea NOT NULL,
  game_id uuid NOT NULL REFERENCES games (id),
  player_id uuid NOT NULL REFERENCES players (id),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX access_tokens_code_idx ON access_tokens (code_hash);

-- Failed sign-ins per account and per address, for lockout with a growing delay.
CREATE TABLE sign_in_failures (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  locked_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE sign_in_failures;
DROP TABLE access_tokens;
DROP TABLE authorization_codes;
