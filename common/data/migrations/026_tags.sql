-- Up Migration
-- Tags on cases and players (issue 25): short labels a team files work under ("raid-0412",
-- "vip", "needs-voice-log"), for moderators only, and a filter of the queue.
CREATE TABLE tags (
  subject_kind text NOT NULL CHECK (subject_kind IN ('case', 'player')),
  subject_id uuid NOT NULL,
  tag text NOT NULL CHECK (tag ~ '^[a-z0-9][a-z0-9_-]{0,31}$'),
  added_by uuid NOT NULL REFERENCES moderators (id),
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subject_kind, subject_id, tag)
);
CREATE INDEX tags_by_tag_idx ON tags (subject_kind, tag, subject_id);

-- Down Migration
DROP TABLE tags;
