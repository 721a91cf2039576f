-- Up Migration
-- Internal notes (issue 25): a thread on every case and every player, written by moderators for
-- moderators, never sent to a studio or a player. Each note is audited (add_note), with its player.
CREATE TABLE notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  -- null: a note on the player; otherwise on this case of the player.
  case_id uuid REFERENCES review_cases (id),
  author_id uuid NOT NULL REFERENCES moderators (id),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notes_player_idx ON notes (player_id, created_at);
CREATE INDEX notes_case_idx ON notes (case_id, created_at) WHERE case_id IS NOT NULL;

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note'));

-- Down Migration
DELETE FROM moderation_audit WHERE action = 'add_note';
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal'));
DROP TABLE notes;
