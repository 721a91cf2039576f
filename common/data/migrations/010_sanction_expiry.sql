-- Up Migration
-- When sanction.expired was recorded for a sanction (once): the delayed expiry job checks it, so a
-- job that runs twice announces the expiry once.
ALTER TABLE sanctions ADD COLUMN expiry_announced_at timestamptz;

-- Down Migration
ALTER TABLE sanctions DROP COLUMN expiry_announced_at;
