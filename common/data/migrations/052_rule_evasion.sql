-- Up Migration
-- Rules that act on ban evasion (issue 53; docs/moderators.md "Rules"): a rule may weigh when an
-- evasion suspicion is recorded for a player (the player's open cases). The condition
-- evasionSuspected reads evasion_suspicions by its (player_id, sanction_id) key, so no index is new.
ALTER TABLE rules DROP CONSTRAINT rules_trigger_check,
  ADD CONSTRAINT rules_trigger_check CHECK (trigger IN ('filing', 'sanction_placed', 'schedule', 'evasion_suspected'));

-- Down Migration
UPDATE rules SET trigger = 'filing', mode = 'draft' WHERE trigger = 'evasion_suspected';
ALTER TABLE rules DROP CONSTRAINT rules_trigger_check,
  ADD CONSTRAINT rules_trigger_check CHECK (trigger IN ('filing', 'sanction_placed', 'schedule'));
