-- Up Migration
-- E-mail to the people who send notices (DSA Art. 16(4), 16(5), 20(5)): issue 51; README "Notices":
-- "E-mail to the notifier". common/lifecycles/notifier-mail.ts is the only writer.

-- The receipt's secret, sealed with the server secret (AES-256-GCM, as webhook secrets are), kept only
-- for a notifier who gave an e-mail: the mails' links open the notice's status with it. It goes with
-- the notifier's name and e-mail (RETENTION_NOTIFIER_DAYS).
ALTER TABLE notices ADD COLUMN secret_sealed bytea;

-- One mail owed to a notifier: what it tells (`kind`, and the facts of the decision it tells, never
-- the player's data), and its delivery. The address is read from the notice when it is sent, so the
-- notifier's e-mail is kept in one place and goes with it.
--
--   pending --(the SMTP server took it)--> sent
--   pending --(5xx to the recipient or the message: a bounce)--> rejected
--   pending --(4xx, or the server unreachable, until MAIL_RETRY_HOURS)--> failed
--   pending --(the notice holds no e-mail any more: retention)--> withdrawn
CREATE TABLE notifier_mails (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  notice_id uuid NOT NULL REFERENCES notices (id),
  kind text NOT NULL CHECK (kind IN ('notice_received', 'notice_decided', 'complaint_received', 'complaint_decided')),
  facts jsonb NOT NULL DEFAULT '{}'::jsonb,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'rejected', 'failed', 'withdrawn')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A sending worker's claim: one that dies mid-call lets the mail go when it ends.
  claimed_until timestamptz,
  last_error text CHECK (length(last_error) <= 1000),
  -- The Message-ID it was sent under (the same on every attempt: `<id@domain>`).
  message_id text CHECK (length(message_id) <= 300),
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifier_mails_notice_idx ON notifier_mails (notice_id, created_at DESC);
-- The metrics read the pending ones; retention walks the oldest first.
CREATE INDEX notifier_mails_pending_idx ON notifier_mails (created_at) WHERE state = 'pending';
CREATE INDEX notifier_mails_created_idx ON notifier_mails (created_at);

-- Down Migration
DROP TABLE notifier_mails;
ALTER TABLE notices DROP COLUMN secret_sealed;
