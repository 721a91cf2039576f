-- Up Migration
CREATE TABLE studios (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A game is an OAuth client of the service, owned by one studio.
CREATE TABLE games (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  studio_id uuid NOT NULL REFERENCES studios (id),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  client_id text NOT NULL UNIQUE,
  -- HMAC-SHA-256 of the secret under the server pepper; the secret itself is never stored.
  client_secret_hash bytea NOT NULL,
  secret_rotated_at timestamptz NOT NULL DEFAULT now(),
  redirect_uris text[] NOT NULL DEFAULT '{}',
  require_pkce boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX games_studio_idx ON games (studio_id);

CREATE TABLE players (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  service_id text NOT NULL UNIQUE CHECK (service_id ~ '^[A-Za-z0-9_-]{1,64}$'),
  full_name text NOT NULL CHECK (length(full_name) BETWEEN 1 AND 200),
  gamer_tag text NOT NULL CHECK (length(gamer_tag) BETWEEN 1 AND 64),
  trust_score integer NOT NULL DEFAULT 100 CHECK (trust_score BETWEEN 0 AND 100),
  is_kyc_verified boolean NOT NULL DEFAULT false,
  -- scrypt hash for the authorization page; null for players who never sign in here.
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX players_gamer_tag_idx ON players (lower(gamer_tag));

CREATE TABLE player_games (
  player_id uuid NOT NULL REFERENCES players (id),
  game_id uuid NOT NULL REFERENCES games (id),
  linked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (player_id, game_id)
);

CREATE TABLE offenses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  game_id uuid NOT NULL REFERENCES games (id),
  studio_id uuid NOT NULL REFERENCES studios (id),
  type text NOT NULL CHECK (type IN ('cheating', 'toxicity', 'afk', 'griefing')),
  description text NOT NULL DEFAULT '',
  severity text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
  detected boolean NOT NULL,
  -- What this offense actually took off the trust score (after the floor at 0).
  penalty_points integer NOT NULL CHECK (penalty_points >= 0),
  evidence jsonb NOT NULL DEFAULT '[]',
  details jsonb NOT NULL DEFAULT '{}',
  context jsonb NOT NULL DEFAULT '{}',
  reviewed_by_admin boolean NOT NULL DEFAULT false,
  resolved boolean NOT NULL DEFAULT false,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX offenses_player_newest_idx ON offenses (player_id, created_at DESC, id DESC);

-- Jobs owed to the queues, written in the same transaction as the offense that owes them.
CREATE TABLE outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue text NOT NULL,
  job_name text NOT NULL,
  job_id text NOT NULL UNIQUE,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL;

CREATE TABLE idempotency_keys (
  game_id uuid NOT NULL REFERENCES games (id),
  key text NOT NULL,
  request_hash bytea NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'done')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (game_id, key)
);
CREATE INDEX idempotency_expiry_idx ON idempotency_keys (expires_at);

-- Down Migration
DROP TABLE idempotency_keys;
DROP TABLE outbox;
DROP TABLE offenses;
DROP TABLE player_games;
DROP TABLE players;
DROP TABLE games;
DROP TABLE studios;
