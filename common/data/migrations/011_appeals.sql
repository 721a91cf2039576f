-- Up Migration
-- A player's appeal of a sanction or an offense: filed by the player (OAuth) or their game's studio,
-- claimed and decided by a moderator other than the one who decided what is appealed.
CREATE TABLE appeals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  sanction_id uuid REFERENCES sanctions (id),
  offense_id uuid REFERENCES offenses (id),
  reason text NOT NULL CHECK (reason IN ('incorrect', 'compromised_account', 'unfair', 'forgiveness')),
  statement text NOT NULL CHECK (length(statement) BETWEEN 1 AND 2000),
  filed_by_studio uuid REFERENCES studios (id),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'granted', 'denied')),
  claimed_by uuid REFERENCES moderators (id),
  claim_expires_at timestamptz,
  decided_by uuid REFERENCES moderators (id),
  decided_at timestamptz,
  decision_note text,
  points_refunded integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  CHECK (num_nonnulls(sanction_id, offense_id) = 1),
  CHECK ((status = 'open') = (decided_at IS NULL))
);
-- One open appeal per subject.
CREATE UNIQUE INDEX appeals_open_sanction_idx ON appeals (sanction_id) WHERE status = 'open';
CREATE UNIQUE INDEX appeals_open_offense_idx ON appeals (offense_id) WHERE status = 'open';
CREATE INDEX appeals_queue_idx ON appeals (created_at, id) WHERE status = 'open';
CREATE INDEX appeals_player_idx ON appeals (player_id, created_at DESC);

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('claim_appeal', 'decide_appeal');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction'));
DROP TABLE appeals;
