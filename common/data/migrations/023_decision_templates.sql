-- Up Migration
-- Canned reasons (issue 25): decision templates an admin keeps (the outcome, a sanction's type and
-- duration, and the reason the player reads), one key away in the console's decision panel. A
-- template is archived, never deleted, so what was decided with it stays explained.
CREATE TABLE decision_templates (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 100),
  outcome text NOT NULL CHECK (outcome IN ('upheld', 'dismissed')),
  sanction_type text CHECK (sanction_type IN ('warning', 'chat_restriction', 'matchmaking_restriction',
                                              'temporary_ban', 'permanent_ban')),
  duration_seconds integer CHECK (duration_seconds BETWEEN 60 AND 315360000),
  player_reason text NOT NULL CHECK (length(player_reason) BETWEEN 1 AND 2000),
  created_by uuid NOT NULL REFERENCES moderators (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz,
  CHECK (sanction_type IS NULL OR outcome = 'upheld'),
  CHECK (duration_seconds IS NULL OR sanction_type IS NOT NULL)
);
CREATE INDEX decision_templates_active_idx ON decision_templates (created_at) WHERE archived_at IS NULL;

-- Down Migration
DROP TABLE decision_templates;
