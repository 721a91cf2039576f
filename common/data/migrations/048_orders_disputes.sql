-- Up Migration
-- Orders from authorities (DSA Art. 9 orders to act against illegal content, Art. 10 orders to
-- provide information) and out-of-court disputes (Art. 21), recorded by admins and counted in the
-- transparency report (Art. 15(1)(a), 24(1)(a)): issue 51; README "Orders and disputes".
-- common/lifecycles/compliance-record.ts is the only writer.

-- One order: who issued it, from which Member State, about what kind of illegal content, when it was
-- received, when the authority was told of its receipt, and when and how effect was given to it. A
-- platform is `operator` or a studio's id (whose games it concerns). Nothing of a player: the
-- order's own reference points to it in the authority's file and in the studio's.
CREATE TABLE authority_orders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  platform text NOT NULL CHECK (length(platform) BETWEEN 1 AND 64),
  kind text NOT NULL CHECK (kind IN ('act', 'information')),
  authority text NOT NULL CHECK (length(authority) BETWEEN 1 AND 200),
  member_state text NOT NULL CHECK (member_state ~ '^[A-Z]{2}$'),
  category text NOT NULL CHECK (category ~ '^STATEMENT_CATEGORY_[A-Z_]+$'),
  reference text CHECK (length(reference) BETWEEN 1 AND 200),
  received_at timestamptz NOT NULL,
  acknowledged_at timestamptz CHECK (acknowledged_at >= received_at),
  acted_at timestamptz CHECK (acted_at >= received_at),
  action text CHECK (length(action) BETWEEN 1 AND 2000),
  recorded_by uuid NOT NULL REFERENCES moderators (id),
  updated_by uuid REFERENCES moderators (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((acted_at IS NULL) = (action IS NULL))
);
CREATE INDEX authority_orders_received_idx ON authority_orders (received_at, id);
CREATE INDEX authority_orders_list_idx ON authority_orders (created_at DESC, id DESC);

-- One dispute brought to a certified out-of-court dispute settlement body: which body, about what,
-- when it was submitted and closed, how it ended, and whether the platform implemented the body's
-- decision.
CREATE TABLE disputes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  platform text NOT NULL CHECK (length(platform) BETWEEN 1 AND 64),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 200),
  subject text NOT NULL CHECK (subject IN ('sanction', 'notice', 'complaint', 'other')),
  reference text CHECK (length(reference) BETWEEN 1 AND 200),
  submitted_at timestamptz NOT NULL,
  closed_at timestamptz CHECK (closed_at >= submitted_at),
  outcome text CHECK (outcome IN ('for_recipient', 'for_platform', 'settled', 'withdrawn')),
  implemented boolean,
  recorded_by uuid NOT NULL REFERENCES moderators (id),
  updated_by uuid REFERENCES moderators (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((closed_at IS NULL) = (outcome IS NULL))
);
CREATE INDEX disputes_submitted_idx ON disputes (submitted_at, id);
CREATE INDEX disputes_list_idx ON disputes (created_at DESC, id DESC);

-- Down Migration
DROP TABLE disputes;
DROP TABLE authority_orders;
