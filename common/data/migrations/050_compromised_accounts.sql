-- Up Migration
-- A stolen account given back (issue 53; README "Appeals"): granting a compromised-account appeal
-- ends every session of the player. Tokens are rows and are revoked as such; the standing page's
-- sessions are stateless signed cookies, so the player's row says since when they are refused.
ALTER TABLE players ADD COLUMN sessions_revoked_at timestamptz;

-- Down Migration
ALTER TABLE players DROP COLUMN sessions_revoked_at;
