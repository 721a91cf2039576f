-- Up Migration
-- A sanction extended to a strongly linked account (issue 53; docs/linked-accounts.md): the alt's
-- own sanction names the one it extends, so extending twice places nothing twice. The player reads
-- the link and the decision as its ground, never the other account's identity.
ALTER TABLE sanctions ADD COLUMN extended_from uuid REFERENCES sanctions (id);
CREATE INDEX sanctions_extended_from_idx ON sanctions (extended_from) WHERE extended_from IS NOT NULL;

-- Down Migration
DROP INDEX sanctions_extended_from_idx;
ALTER TABLE sanctions DROP COLUMN extended_from;
