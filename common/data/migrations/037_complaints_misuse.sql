-- Up Migration
-- Complaints by notifiers (DSA Art. 20) and measures against misuse (Art. 23): issue 37; README
-- "Notices".

-- A notifier's complaint is an appeal whose subject is the notice (its decision "no action"): in the
-- appeals queue, decided by a moderator other than the one who dismissed it. It names no player's
-- own words, and is not the player's: it is filed by whoever holds the notice's receipt.
ALTER TABLE appeals
  ADD COLUMN notice_id uuid REFERENCES notices (id),
  DROP CONSTRAINT appeals_check,
  ADD CONSTRAINT appeals_subject_check CHECK (num_nonnulls(sanction_id, offense_id, notice_id) = 1),
  -- A granted complaint reopened the case that had dismissed the notice (or filed the notice into the
  -- player's open case of that kind): which one.
  ADD COLUMN reopened_case_id uuid REFERENCES review_cases (id);
-- One complaint a notice, ever: its decision is final here (Art. 21 and the courts remain).
CREATE UNIQUE INDEX appeals_notice_idx ON appeals (notice_id) WHERE notice_id IS NOT NULL;

-- A case a notifier's granted complaint reopened: when, and how many times (the figures of its first
-- decision stay in the audit log).
ALTER TABLE review_cases
  ADD COLUMN reopened_at timestamptz,
  ADD COLUMN reopen_count integer NOT NULL DEFAULT 0;

-- Who sent a notice, as the misuse rules count senders (never the e-mail or address itself): the
-- HMAC of the notifier's e-mail (or, without one, of the address the notice came from), or the
-- trusted flagger.
ALTER TABLE notices ADD COLUMN sender_key text;
UPDATE notices n SET sender_key = 'notice:' || (o.context->>'reporterId')
  FROM offenses o WHERE o.id = n.offense_id;
ALTER TABLE notices ALTER COLUMN sender_key SET NOT NULL;

-- A moderator's finding that a notice, a complaint or a game's report (one with a reporterId) was
-- manifestly unfounded (Art. 23(1)), against its sender.
CREATE TABLE misuse_marks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- 'notice:<notice sender>' or 'reporter:<studio id>:<reporterId>'.
  sender_key text NOT NULL CHECK (length(sender_key) BETWEEN 3 AND 400),
  offense_id uuid REFERENCES offenses (id),
  appeal_id uuid REFERENCES appeals (id),
  moderator_id uuid NOT NULL REFERENCES moderators (id),
  note text NOT NULL CHECK (length(note) BETWEEN 1 AND 2000),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (num_nonnulls(offense_id, appeal_id) = 1)
);
CREATE UNIQUE INDEX misuse_marks_offense_idx ON misuse_marks (offense_id) WHERE offense_id IS NOT NULL;
CREATE UNIQUE INDEX misuse_marks_appeal_idx ON misuse_marks (appeal_id) WHERE appeal_id IS NOT NULL;
CREATE INDEX misuse_marks_sender_idx ON misuse_marks (sender_key, created_at DESC);
-- Retention (common/data/retention.ts) walks the oldest first.
CREATE INDEX misuse_marks_created_idx ON misuse_marks (created_at);

-- The measures the marks led to: a warning, then a suspension for a period (Art. 23(1) and (3)).
CREATE TABLE misuse_measures (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sender_key text NOT NULL CHECK (length(sender_key) BETWEEN 3 AND 400),
  kind text NOT NULL CHECK (kind IN ('warning', 'suspension')),
  -- The marks in the window when it was taken.
  marks integer NOT NULL CHECK (marks >= 1),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- A suspension's end; null for a warning.
  ends_at timestamptz,
  lifted_at timestamptz,
  lifted_by uuid REFERENCES moderators (id),
  lift_note text CHECK (length(lift_note) BETWEEN 1 AND 2000),
  CHECK ((kind = 'suspension') = (ends_at IS NOT NULL)),
  CHECK ((lifted_at IS NULL) = (lifted_by IS NULL))
);
CREATE INDEX misuse_measures_sender_idx ON misuse_measures (sender_key, created_at DESC);
CREATE INDEX misuse_measures_created_idx ON misuse_measures (created_at);

-- An in-game reporter's suspension is a mute for a period: its reports are stored, weigh nothing and
-- open no case until then (pt_file_reports, version 5).
ALTER TABLE reporters ADD COLUMN muted_until timestamptz;

ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger', 'mark_unfounded', 'warn_sender', 'suspend_sender',
                      'lift_suspension'));

-- Down Migration
DELETE FROM moderation_audit WHERE action IN ('mark_unfounded', 'warn_sender', 'suspend_sender', 'lift_suspension');
ALTER TABLE moderation_audit
  DROP CONSTRAINT moderation_audit_action_check,
  ADD CONSTRAINT moderation_audit_action_check
    CHECK (action IN ('claim', 'release', 'resolve', 'mute_reporter', 'unmute_reporter', 'place_sanction',
                      'revoke_sanction', 'claim_appeal', 'decide_appeal', 'release_appeal', 'add_note',
                      'assign', 'escalate', 'edit_routing', 'register_flagger', 'suspend_flagger',
                      'reinstate_flagger'));
ALTER TABLE reporters DROP COLUMN muted_until;
DROP TABLE misuse_measures;
DROP TABLE misuse_marks;
ALTER TABLE notices DROP COLUMN sender_key;
ALTER TABLE review_cases DROP COLUMN reopen_count, DROP COLUMN reopened_at;
DELETE FROM appeals WHERE notice_id IS NOT NULL;
DROP INDEX appeals_notice_idx;
ALTER TABLE appeals
  DROP COLUMN reopened_case_id,
  DROP CONSTRAINT appeals_subject_check,
  ADD CONSTRAINT appeals_check CHECK (num_nonnulls(sanction_id, offense_id) = 1),
  DROP COLUMN notice_id;
