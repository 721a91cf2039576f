-- Up Migration
-- A granted appeal undoes the whole decision it contests (issue 34): every sanction that decision
-- placed is revoked unless the deciding moderator keeps it, with the ground the player reads. The
-- appeal records both, so the player's statement can say what went and what stays, and why.
ALTER TABLE appeals
  ADD COLUMN sanctions_revoked uuid[] NOT NULL DEFAULT '{}',
  ADD COLUMN sanctions_kept jsonb NOT NULL DEFAULT '[]';

-- Down Migration
ALTER TABLE appeals DROP COLUMN sanctions_kept, DROP COLUMN sanctions_revoked;
