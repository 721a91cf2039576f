-- Up Migration
-- Every housekeeping delete finds its rows through an index, so it costs what it deletes, not the
-- size of the table (test/integration/housekeeping.test.ts checks each plan).
CREATE INDEX outbox_sent_idx ON outbox (sent_at) WHERE sent_at IS NOT NULL;
CREATE INDEX access_tokens_expiry_idx ON access_tokens (expires_at);
CREATE INDEX refresh_tokens_unused_expiry_idx ON refresh_tokens (expires_at) WHERE used_at IS NULL;
CREATE INDEX sign_in_failures_updated_idx ON sign_in_failures (updated_at);
CREATE INDEX webhook_deliveries_finished_idx
  ON webhook_deliveries ((coalesce(delivered_at, last_attempt_at, created_at))) WHERE status <> 'pending';

-- Down Migration
DROP INDEX webhook_deliveries_finished_idx;
DROP INDEX sign_in_failures_updated_idx;
DROP INDEX refresh_tokens_unused_expiry_idx;
DROP INDEX access_tokens_expiry_idx;
DROP INDEX outbox_sent_idx;
