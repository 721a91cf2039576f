-- Up Migration
-- The offense as a studio reads it (issue 27), as row types whose field names are the API's keys:
-- PostgreSQL renders a row of a named type to JSON on its fast path (to_json), about a third cheaper
-- than json_build_object with the same keys. A summary for any studio but the one that filed it; in
-- full for that studio and for moderators. common/data/repos/offenses.ts (offenseViewSql) builds the
-- rows; a test holds them equal to presentOffense (common/views.ts). Timestamps are text already
-- written as JavaScript's toISOString writes them.
CREATE TYPE pt_offense_summary AS (
  "_id" uuid, player text, type text, severity text, "penaltyPoints" integer, "penaltyHeld" integer,
  status text, "penaltyRestored" integer, "restoredBy" text, "restoredAt" text, "reviewedByAdmin" boolean,
  resolved boolean, "resolvedAt" text, "createdAt" text, "updatedAt" text, visibility text
);
CREATE TYPE pt_offense_full AS (
  "_id" uuid, player text, type text, severity text, "penaltyPoints" integer, "penaltyHeld" integer,
  status text, "penaltyRestored" integer, "restoredBy" text, "restoredAt" text, "reviewedByAdmin" boolean,
  resolved boolean, "resolvedAt" text, "createdAt" text, "updatedAt" text, visibility text,
  game uuid, studio uuid, description text, evidence jsonb, details jsonb, context jsonb, "statusReason" text
);

-- Down Migration
DROP TYPE pt_offense_full;
DROP TYPE pt_offense_summary;
