-- Up Migration
-- Saved filters (issue 25): each moderator's named views of the queue (its filters as a query
-- string), one click away in the console.
CREATE TABLE saved_filters (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  moderator_id uuid NOT NULL REFERENCES moderators (id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
  query text NOT NULL CHECK (length(query) <= 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (moderator_id, name)
);

-- Down Migration
DROP TABLE saved_filters;
