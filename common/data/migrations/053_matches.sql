-- Up Migration
-- Matches (issue 54; docs/studios.md "Matches"). common/lifecycles/matches.ts is the only writer of
-- these tables and of their partitions.

-- A finished match a studio sent: one row per (studio, match id), whatever partition it sits in
-- (the match-writing job locks the id, so a second row can never be written). `roster` is a digest
-- of who played and how (player, team, party, result, left early): a match sent again with the same
-- roster is a repeat, with another one a conflict. Partitioned by when the match ended, a month a
-- partition (matches_pYYYYMM): a month past MATCH_RETENTION_DAYS is dropped whole.
CREATE TABLE matches (
  studio_id uuid NOT NULL,
  match_id text NOT NULL CHECK (length(match_id) BETWEEN 1 AND 128),
  game_id uuid NOT NULL,
  mode text NOT NULL CHECK (length(mode) BETWEEN 1 AND 64),
  started_at timestamptz NOT NULL,
  ended_at timestamptz NOT NULL CHECK (ended_at >= started_at),
  players smallint NOT NULL CHECK (players >= 1),
  roster bytea NOT NULL CHECK (length(roster) = 32),
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (studio_id, match_id, ended_at)
) PARTITION BY RANGE (ended_at);
-- A repeat is found by its id alone (the job does not trust a repeat's end time).
CREATE INDEX matches_id_idx ON matches (studio_id, match_id);

-- One player's part in one match: their team, their party (the studio's id of a group that queued
-- together; null: alone), the result, and whether they left before the end. Partitioned like matches.
-- A player's matches are one index range (the conduct, the erasure); no foreign key to players, so
-- 100M rows are written without a lookup each (the job resolved every player before writing).
CREATE TABLE player_matches (
  player_id uuid NOT NULL,
  studio_id uuid NOT NULL,
  match_id text NOT NULL,
  ended_at timestamptz NOT NULL,
  team text NOT NULL CHECK (length(team) BETWEEN 1 AND 32),
  party text CHECK (length(party) BETWEEN 1 AND 64),
  result text NOT NULL CHECK (result IN ('win', 'loss', 'draw')),
  left_early boolean NOT NULL,
  PRIMARY KEY (player_id, ended_at, studio_id, match_id)
) PARTITION BY RANGE (ended_at);
CREATE INDEX player_matches_match_idx ON player_matches (studio_id, match_id);

-- Restrictions counted in matches (docs/moderators.md "Sanctions"): a chat or matchmaking
-- restriction may last a number of finished matches instead of a time. While matches are left it has
-- no end (expires_at null, so in force by the one ACTIVE definition); the match that brings the count
-- to zero sets its end, so it ends like any other sanction (and is announced once).
ALTER TABLE sanctions
  ADD COLUMN matches_total integer CHECK (matches_total BETWEEN 1 AND 1000),
  ADD COLUMN matches_left integer,
  ADD CONSTRAINT sanctions_matches_check CHECK (
    (matches_total IS NULL AND matches_left IS NULL)
    OR (type IN ('chat_restriction', 'matchmaking_restriction')
        AND matches_left BETWEEN 0 AND matches_total
        AND (matches_left = 0) = (expires_at IS NOT NULL)));
-- Every restriction and temporary ban ends, unless it is counted in matches.
DO $$
DECLARE c text;
BEGIN
  SELECT conname INTO c FROM pg_constraint
   WHERE conrelid = 'sanctions'::regclass AND contype = 'c'
     AND pg_get_constraintdef(oid) LIKE '%permanent_ban%' AND pg_get_constraintdef(oid) LIKE '%expires_at IS NOT NULL%';
  EXECUTE format('ALTER TABLE sanctions DROP CONSTRAINT %I', c);
END $$;
ALTER TABLE sanctions ADD CONSTRAINT sanctions_period_check CHECK (
  CASE type WHEN 'permanent_ban' THEN expires_at IS NULL
            WHEN 'warning' THEN true
            ELSE expires_at IS NOT NULL OR matches_total IS NOT NULL END);
-- What a finished match counts down: the counting restrictions of its players.
CREATE INDEX sanctions_counting_idx ON sanctions (player_id) WHERE matches_left > 0 AND revoked_at IS NULL;

-- The profile's sanctions in force say how many matches a counted one has left (null: it lasts a time).
ALTER TYPE pt_sanction_brief ADD ATTRIBUTE "matchesLeft" integer;

-- Down Migration
ALTER TYPE pt_sanction_brief DROP ATTRIBUTE "matchesLeft";
DROP INDEX sanctions_counting_idx;
UPDATE sanctions SET expires_at = coalesce(expires_at, greatest(now(), starts_at + interval '1 second'))
 WHERE matches_total IS NOT NULL;
ALTER TABLE sanctions DROP CONSTRAINT sanctions_period_check, DROP CONSTRAINT sanctions_matches_check,
  DROP COLUMN matches_left, DROP COLUMN matches_total;
ALTER TABLE sanctions ADD CONSTRAINT sanctions_check CHECK (
  CASE type WHEN 'permanent_ban' THEN expires_at IS NULL WHEN 'warning' THEN true ELSE expires_at IS NOT NULL END);
DROP TABLE player_matches;
DROP TABLE matches;
