-- Up Migration
-- The audit log names whom each action was about (issue 25: a moderator filters it by player, not by
-- pasted ids): the player of the case, the appeal or the sanction, written by insertAudit in the same
-- statement as the row, with an index for the filter. Rows of actions about no player (muting a
-- reporter) keep null. Existing rows are filled once here; a process of the previous release writes
-- rows without it during a rolling deploy (they are found by case and moderator as before).
ALTER TABLE moderation_audit ADD COLUMN player_id uuid REFERENCES players (id);

UPDATE moderation_audit a
   SET player_id = coalesce(
         (SELECT c.player_id FROM review_cases c WHERE c.id = a.case_id),
         (SELECT ap.player_id FROM appeals ap WHERE ap.id = (a.details->>'appealId')::uuid),
         (SELECT p.id FROM players p WHERE p.service_id = a.details->>'playerId'))
 WHERE a.player_id IS NULL;

CREATE INDEX moderation_audit_player_idx ON moderation_audit (player_id, id);

-- Down Migration
DROP INDEX moderation_audit_player_idx;
ALTER TABLE moderation_audit DROP COLUMN player_id;
