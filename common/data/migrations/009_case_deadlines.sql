-- Up Migration
-- Every open case is due by a time that follows from its highest severity (CASE_DUE_HOURS); the
-- review worker keeps it as the severity rises.
ALTER TABLE review_cases ADD COLUMN due_at timestamptz;
UPDATE review_cases SET due_at = opened_at + make_interval(hours => CASE highest_severity
  WHEN 'critical' THEN 4 WHEN 'high' THEN 24 WHEN 'medium' THEN 72 ELSE 168 END);
CREATE INDEX review_cases_due_idx ON review_cases (due_at) WHERE status = 'open';
-- The review stats count cases by the day they were opened.
CREATE INDEX review_cases_opened_idx ON review_cases (opened_at);

-- Down Migration
DROP INDEX review_cases_opened_idx;
DROP INDEX review_cases_due_idx;
ALTER TABLE review_cases DROP COLUMN due_at;
