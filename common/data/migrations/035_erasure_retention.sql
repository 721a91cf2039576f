-- Up Migration
-- Players' data rights (issue 36; README "Personal data"): erasure and retention.

-- When a player's personal data was erased: the row stays as a skeleton (its counts, its score) that
-- names nobody; null for everyone else.
ALTER TABLE players ADD COLUMN erased_at timestamptz;

-- One request to erase a player, its state and its receipt (what was removed, table by table). It
-- holds nothing personal: the player's internal id (which names nobody once erased), who asked, when.
CREATE TABLE erasures (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  player_id uuid NOT NULL REFERENCES players (id),
  state text NOT NULL CHECK (state IN ('awaiting_confirmation', 'pending', 'done', 'cancelled')),
  requested_by_studio uuid REFERENCES studios (id),
  requested_by_moderator uuid REFERENCES moderators (id),
  -- The admin tool (an operator at the shell, no moderator account).
  requested_by_operator boolean NOT NULL DEFAULT false,
  decided_by_moderator uuid REFERENCES moderators (id),
  receipt jsonb,
  requested_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one open request a player: a second request answers the first.
CREATE UNIQUE INDEX erasures_open_idx ON erasures (player_id) WHERE state IN ('awaiting_confirmation', 'pending');
CREATE INDEX erasures_requested_idx ON erasures (requested_at DESC, id DESC);
CREATE INDEX erasures_studio_idx ON erasures (requested_by_studio, requested_at DESC) WHERE requested_by_studio IS NOT NULL;

-- Retention (common/data/retention.ts). Each kind's purge finds what it still holds past its window by
-- a partial index that loses a row once reduced, so a run costs what is due, not the table's size.
-- Evidence content and links: evidence, details, context (all but its `source`), match id.
CREATE INDEX offenses_evidence_held_idx ON offenses (created_at)
  WHERE evidence <> '[]'::jsonb OR details <> '{}'::jsonb OR (context - 'source') <> '{}'::jsonb OR match_id IS NOT NULL;
-- Report free text and the reporter the studio named.
CREATE INDEX offenses_text_held_idx ON offenses (created_at)
  WHERE description <> '' OR reporter_id IS NOT NULL;
-- Resolved cases reduced to their skeleton (notes, reporters) once past their window.
ALTER TABLE review_cases ADD COLUMN reduced_at timestamptz;
CREATE INDEX review_cases_unreduced_idx ON review_cases (resolved_at) WHERE status = 'resolved' AND reduced_at IS NULL;
-- The payloads of statements the Transparency Database holds.
CREATE INDEX transparency_statements_body_held_idx ON transparency_statements (sent_at)
  WHERE state = 'sent' AND body IS NOT NULL;

-- Down Migration
DROP INDEX transparency_statements_body_held_idx;
DROP INDEX review_cases_unreduced_idx;
ALTER TABLE review_cases DROP COLUMN reduced_at;
DROP INDEX offenses_text_held_idx;
DROP INDEX offenses_evidence_held_idx;
DROP TABLE erasures;
ALTER TABLE players DROP COLUMN erased_at;
