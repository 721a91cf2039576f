-- Up Migration
-- Rules on matches (issue 54, part 6; docs/moderators.md "Rules"): a rule may weigh when a match is
-- recorded in which the player left early or that counted down one of their restrictions counted
-- in matches (the trigger match_recorded). Its conditions read the player's matches by the primary
-- key of player_matches and their sanctions by player: no index is new.
ALTER TABLE rules DROP CONSTRAINT rules_trigger_check,
  ADD CONSTRAINT rules_trigger_check
    CHECK (trigger IN ('filing', 'sanction_placed', 'schedule', 'evasion_suspected', 'match_recorded'));

-- Down Migration
UPDATE rules SET trigger = 'filing', mode = 'draft' WHERE trigger = 'match_recorded';
ALTER TABLE rules DROP CONSTRAINT rules_trigger_check,
  ADD CONSTRAINT rules_trigger_check CHECK (trigger IN ('filing', 'sanction_placed', 'schedule', 'evasion_suspected'));
