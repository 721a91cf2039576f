-- Up Migration
-- Webhooks a studio manages as it expects to: enabled or not (by the studio, or automatically after
-- many deliveries in a row failed for the whole retry window), a secret rotated with an overlap
-- (both signatures sent during it), test events, redeliveries and the next attempt of each delivery.
-- What was "disabled_at" (the studio deleted the webhook) is now "deleted_at".
ALTER TABLE webhooks RENAME COLUMN disabled_at TO deleted_at;
DROP INDEX webhooks_studio_idx;
CREATE INDEX webhooks_studio_idx ON webhooks (studio_id) WHERE deleted_at IS NULL;

ALTER TABLE webhooks
  ADD COLUMN enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN disabled_at timestamptz,
  ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('studio', 'failing')),
  -- The secret before the last rotation, signed with too until it expires.
  ADD COLUMN previous_secret_ciphertext bytea,
  ADD COLUMN previous_secret_expires_at timestamptz,
  -- Deliveries in a row that failed for good (reset by any success): the automatic disable counts these.
  ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD CHECK (enabled = (disabled_at IS NULL) AND enabled = (disabled_reason IS NULL));

ALTER TABLE webhook_deliveries
  ADD COLUMN next_attempt_at timestamptz,
  -- A studio's redelivery: a new delivery of the same event (same id, so receivers de-duplicate).
  ADD COLUMN redelivery_of uuid;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_event_id_key;
CREATE UNIQUE INDEX webhook_deliveries_event_once ON webhook_deliveries (webhook_id, event_id)
  WHERE redelivery_of IS NULL;

-- Down Migration
DROP INDEX webhook_deliveries_event_once;
DELETE FROM webhook_deliveries WHERE redelivery_of IS NOT NULL;
ALTER TABLE webhook_deliveries ADD UNIQUE (webhook_id, event_id);
ALTER TABLE webhook_deliveries DROP COLUMN redelivery_of, DROP COLUMN next_attempt_at;
ALTER TABLE webhooks DROP COLUMN enabled, DROP COLUMN disabled_at, DROP COLUMN disabled_reason,
  DROP COLUMN previous_secret_ciphertext, DROP COLUMN previous_secret_expires_at,
  DROP COLUMN consecutive_failures, DROP COLUMN updated_at;
DROP INDEX webhooks_studio_idx;
ALTER TABLE webhooks RENAME COLUMN deleted_at TO disabled_at;
CREATE INDEX webhooks_studio_idx ON webhooks (studio_id) WHERE disabled_at IS NULL;
