-- Up Migration
-- A strike for each upheld case; it counts until it expires (or an appeal removes it). The strike
-- ladder turns counts into sanctions.
CREATE TABLE strikes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  case_id uuid NOT NULL UNIQUE REFERENCES review_cases (id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  removed_at timestamptz,
  CHECK (expires_at > created_at)
);
CREATE INDEX strikes_player_idx ON strikes (player_id, expires_at) WHERE removed_at IS NULL;

-- Down Migration
DROP TABLE strikes;
