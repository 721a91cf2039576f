-- Up Migration
-- Sanctions: what a trust decision leads to. Active means started, not expired and not revoked,
-- computed from the clock on every read (never dependent on a job having run).
CREATE TABLE sanctions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  type text NOT NULL
    CHECK (type IN ('warning', 'chat_restriction', 'matchmaking_restriction', 'temporary_ban', 'permanent_ban')),
  -- null: global; otherwise the one studio whose games it applies to
  scope_studio_id uuid REFERENCES studios (id),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
  case_id uuid REFERENCES review_cases (id),
  issued_by_moderator uuid REFERENCES moderators (id),
  issued_by_studio uuid REFERENCES studios (id),
  starts_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  revoked_by_moderator uuid REFERENCES moderators (id),
  revoked_by_studio uuid REFERENCES studios (id),
  revoke_reason text CHECK (length(revoke_reason) BETWEEN 1 AND 2000),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (num_nonnulls(issued_by_moderator, issued_by_studio) = 1),
  -- a permanent ban never expires; a warning may; every restriction and temporary ban does
  CHECK (CASE type WHEN 'permanent_ban' THEN expires_at IS NULL
                   WHEN 'warning' THEN true
                   ELSE expires_at IS NOT NULL END),
  CHECK (expires_at IS NULL OR expires_at > starts_at),
  CHECK ((revoked_at IS NULL) = (revoke_reason IS NULL))
);
CREATE INDEX sanctions_player_idx ON sanctions (player_id, created_at DESC, id DESC);
-- What the lobby check reads: the not-revoked sanctions of a few players.
CREATE INDEX sanctions_unrevoked_idx ON sanctions (player_id) WHERE revoked_at IS NULL;

-- Studios place and revoke sanctions too: the audit log records who, a moderator or a studio.
ALTER TABLE moderation_audit
  ALTER COLUMN moderator_id DROP NOT NULL,
  ADD COLUMN studio_id uuid REFERENCES studios (id),
  ADD CONSTRAINT moderation_audit_actor_check CHECK (num_nonnulls(moderator_id, studio_id) = 1),
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('place_sanction', 'revoke_sanction');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter')),
  DROP CONSTRAINT moderation_audit_actor_check,
  DROP COLUMN studio_id,
  ALTER COLUMN moderator_id SET NOT NULL;
DROP TABLE sanctions;
