-- Up Migration
-- Commendations, honor and the recovery credit of finished matches (issue 54; docs/studios.md
-- "Commendations and honor"). common/lifecycles/honor.ts is the only writer of these rows;
-- common/lifecycles/matches.ts creates and drops the month partitions with the matches'.

-- One player commending another after a match they both played, with the weight it was given in
-- quarters of a commendation: 4 (a whole one), 1 (from the commender's own party), 0 (ignored: the
-- same pair within 7 days, a commendation returned within 7 days, or strongly linked accounts), and
-- why. Partitioned like the matches, a month a partition, dropped whole after MATCH_RETENTION_DAYS.
CREATE TABLE commendations (
  recipient_id uuid NOT NULL,
  ended_at timestamptz NOT NULL,
  studio_id uuid NOT NULL,
  match_id text NOT NULL,
  commender_id uuid NOT NULL,
  weight smallint NOT NULL CHECK (weight IN (0, 1, 4)),
  why text NOT NULL CHECK (why IN ('counted', 'own_party', 'repeat', 'returned', 'linked')),
  CHECK ((weight = 4) = (why = 'counted') AND (weight = 1) = (why = 'own_party')),
  CHECK (recipient_id <> commender_id),
  PRIMARY KEY (recipient_id, ended_at, studio_id, match_id, commender_id)
) PARTITION BY RANGE (ended_at);
-- A player's commendations given (the erasure, a pair's repeats are read by the recipient's key).
CREATE INDEX commendations_commender_idx ON commendations (commender_id, ended_at);

-- A player's honor (0 to 5, starting at 2) and what moves it: `progress` in quarters toward the
-- next level (100 quarters a level); the matches and the commendations counted. `recovery_credit_s`
-- is how far finished matches and commendations moved the recovery clock back since it last
-- started (`credited_from`: the clock as the credit left it; another value means it started again).
CREATE TABLE player_honor (
  player_id uuid PRIMARY KEY REFERENCES players (id),
  level smallint NOT NULL DEFAULT 2 CHECK (level BETWEEN 0 AND 5),
  progress smallint NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 99),
  matches_finished integer NOT NULL DEFAULT 0 CHECK (matches_finished >= 0),
  matches_left_early integer NOT NULL DEFAULT 0 CHECK (matches_left_early >= 0),
  commendations integer NOT NULL DEFAULT 0 CHECK (commendations >= 0),
  recovery_credit_s integer NOT NULL DEFAULT 0 CHECK (recovery_credit_s >= 0),
  credited_from timestamptz,
  updated_at timestamptz NOT NULL
);

-- What a sanction took off its player's honor, so revoking it gives exactly that back.
ALTER TABLE sanctions ADD COLUMN honor_taken smallint NOT NULL DEFAULT 0 CHECK (honor_taken BETWEEN 0 AND 5);

-- The profile says the player's honor level.
ALTER TYPE pt_profile ADD ATTRIBUTE "honorLevel" smallint;

-- Down Migration
ALTER TYPE pt_profile DROP ATTRIBUTE "honorLevel";
ALTER TABLE sanctions DROP COLUMN honor_taken;
DROP TABLE player_honor;
DROP TABLE commendations;
