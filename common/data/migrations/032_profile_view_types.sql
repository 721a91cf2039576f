-- Up Migration
-- The profile as a studio reads it (issue 34: its answers were formatted unlike every other, with
-- json_build_object's `"key" : value` and json_agg's `, \n ` between items), as row types whose field
-- names are the API's keys: to_json of a row and of an array of rows writes compact JSON, as the API
-- does everywhere else, and on PostgreSQL's fast path (the same as pt_offense_summary, migration 029).
-- common/data/repos/offenses.ts (renderProfiles) builds them; a test holds the rendering equal to the
-- JavaScript view and compact.
CREATE TYPE pt_game_link AS ("gameTitle" text, "linkedAt" text);
CREATE TYPE pt_sanction_brief AS (id uuid, type text, scope text, "startsAt" text, "expiresAt" text);
CREATE TYPE pt_profile AS (
  "serviceId" text, "fullName" text, "gamerTag" text, "trustScore" integer, "isKycVerified" boolean,
  games json, offenses json, "offenseCount" integer, "offensesNextCursor" text, "activeSanctions" json
);

-- Down Migration
DROP TYPE pt_profile;
DROP TYPE pt_sanction_brief;
DROP TYPE pt_game_link;
