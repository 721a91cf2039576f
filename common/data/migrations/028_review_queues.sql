-- Up Migration
-- Named review queues and the rules that route cases into them (issue 25). Every case is in one
-- queue: the first rule (by position) its kind, highest severity and first report's game (and that
-- game's studio) match, else the default queue `general`. A case is routed again at each filing
-- and when an admin saves the rules, unless a moderator moved it to a queue by hand (pinned). A
-- queue is seen and worked by every moderator or by admins only. A queue is archived, never
-- deleted, so the cases it held still say where they were.
CREATE TABLE review_queues (
  key text PRIMARY KEY CHECK (key ~ '^[a-z0-9][a-z0-9-]{0,39}$'),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  visible_to text NOT NULL DEFAULT 'moderator' CHECK (visible_to IN ('moderator', 'admin')),
  created_at timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz,
  CHECK (key <> 'general' OR (archived_at IS NULL AND visible_to = 'moderator'))
);
CREATE UNIQUE INDEX review_queues_name_idx ON review_queues (lower(name)) WHERE archived_at IS NULL;
INSERT INTO review_queues (key, name, description)
VALUES ('general', 'General', 'Every case no routing rule sends elsewhere.');

CREATE TABLE queue_rules (
  position integer PRIMARY KEY CHECK (position >= 1),
  queue_key text NOT NULL REFERENCES review_queues (key),
  -- Each criterion null matches anything.
  types text[] CHECK (types IS NULL OR (cardinality(types) >= 1
                      AND types <@ ARRAY['cheating', 'toxicity', 'afk', 'griefing'])),
  min_severity text CHECK (min_severity IN ('low', 'medium', 'high', 'critical')),
  studio_ids uuid[] CHECK (studio_ids IS NULL OR cardinality(studio_ids) >= 1),
  game_ids uuid[] CHECK (game_ids IS NULL OR cardinality(game_ids) >= 1)
);

ALTER TABLE review_cases
  ADD COLUMN queue_key text NOT NULL DEFAULT 'general' REFERENCES review_queues (key),
  ADD COLUMN queue_pinned boolean NOT NULL DEFAULT false,
  ADD COLUMN first_game_id uuid;
UPDATE review_cases c SET first_game_id = (
  SELECT o.game_id FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
   WHERE co.case_id = c.id ORDER BY o.created_at, o.id LIMIT 1)
 WHERE c.status = 'open';
CREATE INDEX review_cases_queue_key_idx ON review_cases (queue_key, priority DESC, opened_at) WHERE status = 'open';
CREATE INDEX review_cases_queue_opened_idx ON review_cases (queue_key, opened_at);

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing'));

-- Down Migration
DELETE FROM moderation_audit WHERE action = 'edit_routing';
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate'));
DROP INDEX review_cases_queue_opened_idx;
DROP INDEX review_cases_queue_key_idx;
ALTER TABLE review_cases DROP COLUMN first_game_id, DROP COLUMN queue_pinned, DROP COLUMN queue_key;
DROP TABLE queue_rules;
DROP TABLE review_queues;
