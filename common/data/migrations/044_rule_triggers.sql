-- Up Migration
-- What makes a rule weigh (issue 38; README "Rules"): reports filed into a case (as before), a
-- sanction placed on the player (the player's open cases), or a schedule (open cases, every
-- RULES_SCHEDULE_INTERVAL_MS).
ALTER TABLE rules ADD COLUMN trigger text NOT NULL DEFAULT 'filing'
  CHECK (trigger IN ('filing', 'sanction_placed', 'schedule'));
ALTER TABLE rule_versions ADD COLUMN trigger text NOT NULL DEFAULT 'filing';

-- Down Migration
ALTER TABLE rule_versions DROP COLUMN trigger;
ALTER TABLE rules DROP COLUMN trigger;
