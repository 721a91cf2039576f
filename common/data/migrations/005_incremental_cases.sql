-- Up Migration
-- Case figures are kept up to date one filing at a time instead of being recomputed from all of a
-- case's offenses on every filing, which grew with the case (a brigaded player's case can hold
-- thousands of reports).

-- How many offenses the player has: the report statement counts them as it updates the player row.
ALTER TABLE players ADD COLUMN offense_count integer NOT NULL DEFAULT 0;
UPDATE players p SET offense_count = x.n
  FROM (SELECT player_id, count(*)::int AS n FROM offenses GROUP BY player_id) x
 WHERE x.player_id = p.id;

ALTER TABLE review_cases ADD COLUMN max_confidence numeric NOT NULL DEFAULT 0;
UPDATE review_cases c SET max_confidence = x.conf
  FROM (SELECT co.case_id, coalesce(max((o.details->>'confidence')::numeric), 0) AS conf
          FROM case_offenses co JOIN offenses o ON o.id = co.offense_id GROUP BY co.case_id) x
 WHERE x.case_id = c.id;

-- The distinct games and reporters of each case: an insert that conflicts is one already counted.
CREATE TABLE case_games (
  case_id uuid NOT NULL REFERENCES review_cases (id),
  game_id uuid NOT NULL,
  PRIMARY KEY (case_id, game_id)
);
INSERT INTO case_games
SELECT DISTINCT co.case_id, o.game_id FROM case_offenses co JOIN offenses o ON o.id = co.offense_id;

CREATE TABLE case_reporters (
  case_id uuid NOT NULL REFERENCES review_cases (id),
  reporter text NOT NULL,
  PRIMARY KEY (case_id, reporter)
);
INSERT INTO case_reporters
SELECT DISTINCT co.case_id, coalesce(o.context->>'reporterId', o.game_id::text)
  FROM case_offenses co JOIN offenses o ON o.id = co.offense_id;

-- Down Migration
DROP TABLE case_reporters;
DROP TABLE case_games;
ALTER TABLE review_cases DROP COLUMN max_confidence;
ALTER TABLE players DROP COLUMN offense_count;
