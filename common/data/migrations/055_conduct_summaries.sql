-- Up Migration
-- Conduct summaries (issue 54, part 4; docs/studios.md "Conduct summaries"): every
-- CONDUCT_SUMMARY_EVERY_MATCHES matches of a studio's, and when a restriction begins, a player gets
-- a summary of their conduct in that studio's games since the last one. common/lifecycles/conduct.ts
-- is the only writer of these rows.

-- What a player did in a studio's matches since their last summary there, counted as each match is
-- recorded (in its transaction, so once): the matches, those finished and left early, and the
-- commendations counted (weight above 0). A summary takes the row (deletes it); the next match
-- starts another.
CREATE TABLE player_conduct (
  player_id uuid NOT NULL REFERENCES players (id),
  studio_id uuid NOT NULL REFERENCES studios (id),
  matches integer NOT NULL DEFAULT 0 CHECK (matches >= 0),
  finished integer NOT NULL DEFAULT 0 CHECK (finished >= 0),
  left_early integer NOT NULL DEFAULT 0 CHECK (left_early >= 0),
  commendations integer NOT NULL DEFAULT 0 CHECK (commendations >= 0),
  PRIMARY KEY (player_id, studio_id)
);

-- A summary as it was made: why (`matches`: the N-th match; `restriction`: a sanction other than a
-- warning began, `sanction_id`), its window (`since`: the previous summary; null, none before), the counts, the reports of the studio about the player in
-- the window (`reports`) and the same counted one per party of a match (`reporting_parties`), the
-- strikes in force, the strike ladder's next step and, when one more upheld report would reach it,
-- the warning the player is shown.
CREATE TABLE conduct_summaries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  studio_id uuid NOT NULL REFERENCES studios (id),
  trigger text NOT NULL CHECK (trigger IN ('matches', 'restriction')),
  sanction_id uuid REFERENCES sanctions (id),
  CHECK ((trigger = 'restriction') = (sanction_id IS NOT NULL)),
  since timestamptz,
  created_at timestamptz NOT NULL,
  matches integer NOT NULL CHECK (matches >= 0),
  finished integer NOT NULL CHECK (finished >= 0),
  left_early integer NOT NULL CHECK (left_early >= 0),
  commendations integer NOT NULL CHECK (commendations >= 0),
  reports integer NOT NULL CHECK (reports >= 0),
  reporting_parties integer NOT NULL CHECK (reporting_parties >= 0 AND reporting_parties <= reports),
  active_strikes integer NOT NULL CHECK (active_strikes >= 0),
  next_step jsonb,
  warning text
);
-- A player's summaries, newest first (the standing page, the export, the erasure).
CREATE INDEX conduct_summaries_player_idx ON conduct_summaries (player_id, created_at DESC);
-- Retention: summaries older than MATCH_RETENTION_DAYS go (housekeeping).
CREATE INDEX conduct_summaries_created_idx ON conduct_summaries (created_at);
-- A restriction's summary is made once for each studio, however often its job runs.
CREATE UNIQUE INDEX conduct_summaries_sanction_idx ON conduct_summaries (sanction_id, studio_id)
  WHERE sanction_id IS NOT NULL;

-- The restrictions whose summaries were made (the job that makes them is then done, whether it
-- made one or, for a player in no studio's games or a sanction revoked first, none).
CREATE TABLE conduct_restrictions (
  sanction_id uuid PRIMARY KEY REFERENCES sanctions (id),
  summaries integer NOT NULL CHECK (summaries >= 0),
  done_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE conduct_restrictions;
DROP TABLE conduct_summaries;
DROP TABLE player_conduct;
