-- Up Migration
-- Contract step of the set-based filing (expand: migration 016 added pt_file_reports beside
-- pt_record_reports). Every release since 016 files through pt_file_reports, so no process that can
-- run against this schema calls the row-by-row function any more. Its text stays in migration 006
-- for the record, and the equivalence test keeps its own copy
-- (test/integration/reference/pt_record_reports.sql).
DROP FUNCTION IF EXISTS pt_record_reports(jsonb);

-- Down Migration
-- Not needed to roll back a release: 016 and 017, the releases this would go back to, never call the
-- function. Going back before 016 is a restore of a backup taken before it (README "Upgrades"), so
-- this step refuses rather than leave a schema that an older release would find half there.
DO $$ BEGIN
  RAISE EXCEPTION 'migration 018 (drop pt_record_reports) is not reversible: restore a backup taken before migration 016 to go back that far';
END $$;
