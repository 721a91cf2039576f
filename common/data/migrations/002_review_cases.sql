-- Up Migration
-- One open case per player and offense type gathers every report of that kind until a moderator resolves it.
CREATE TABLE review_cases (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  type text NOT NULL CHECK (type IN ('cheating', 'toxicity', 'afk', 'griefing')),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  reports_count integer NOT NULL DEFAULT 0,
  highest_severity text NOT NULL DEFAULT 'low',
  total_penalty integer NOT NULL DEFAULT 0,
  distinct_games integer NOT NULL DEFAULT 0,
  distinct_reporters integer NOT NULL DEFAULT 0,
  priority numeric(8, 2) NOT NULL DEFAULT 0,
  opened_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX review_cases_one_open_idx ON review_cases (player_id, type) WHERE status = 'open';
CREATE INDEX review_cases_queue_idx ON review_cases (priority DESC, opened_at) WHERE status = 'open';

CREATE TABLE case_offenses (
  case_id uuid NOT NULL REFERENCES review_cases (id),
  offense_id uuid NOT NULL UNIQUE REFERENCES offenses (id),
  PRIMARY KEY (case_id, offense_id)
);

-- Down Migration
DROP TABLE case_offenses;
DROP TABLE review_cases;
