-- Up Migration
-- A rule's burst condition (issue 38; README "Rules"): how many of a case's reports came within a
-- window up to its latest. Each case's link to an offense keeps when the report came, and the links
-- are indexed by case and that time, so a case's latest reports are read from the index alone (the
-- backtest reads them for every case in its window). The key moves to the offense (a report is in one
-- case), so the table keeps two indexes, as before.
ALTER TABLE case_offenses ADD COLUMN reported_at timestamptz;
UPDATE case_offenses co SET reported_at = o.created_at FROM offenses o WHERE o.id = co.offense_id;
UPDATE case_offenses SET reported_at = now() WHERE reported_at IS NULL;
ALTER TABLE case_offenses ALTER COLUMN reported_at SET NOT NULL, ALTER COLUMN reported_at SET DEFAULT now();
ALTER TABLE case_offenses DROP CONSTRAINT case_offenses_pkey;
ALTER TABLE case_offenses DROP CONSTRAINT case_offenses_offense_id_key, ADD PRIMARY KEY (offense_id);
CREATE INDEX case_offenses_case_idx ON case_offenses (case_id, reported_at DESC);

-- Down Migration
DROP INDEX case_offenses_case_idx;
ALTER TABLE case_offenses DROP CONSTRAINT case_offenses_pkey;
ALTER TABLE case_offenses ADD CONSTRAINT case_offenses_offense_id_key UNIQUE (offense_id),
  ADD PRIMARY KEY (case_id, offense_id);
ALTER TABLE case_offenses DROP COLUMN reported_at;
