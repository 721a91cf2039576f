-- Up Migration
-- Database functions are source files (common/data/functions/<name>.sql), applied by migrate after
-- the numbered migrations whenever a file's content changed (the repeatable migrations of Flyway).
-- This table remembers the version and hash of what was applied, so an unchanged file is not applied
-- again and an older release's file (a process of it restarting during a rolling deploy) never
-- replaces a newer one.
CREATE TABLE pt_source_functions (
  name text PRIMARY KEY,
  version int NOT NULL,
  sha256 text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE pt_source_functions;
