-- Up Migration
-- Fair webhook delivery (issue 34): one studio's failing endpoint must not delay another's. A webhook
-- counts its failed attempts in a row (any of its deliveries); past WEBHOOK_BREAKER_FAILURES it is
-- parked until parked_until, and its deliveries wait for that without taking a worker's slot
-- (worker/processors/webhook.ts), each parking twice as long as the last (parks) until an attempt
-- succeeds. consecutive_failures still counts deliveries failed for good.
ALTER TABLE webhooks
  ADD COLUMN attempt_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN parked_until timestamptz,
  ADD COLUMN parks integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE webhooks DROP COLUMN parks, DROP COLUMN parked_until, DROP COLUMN attempt_failures;
