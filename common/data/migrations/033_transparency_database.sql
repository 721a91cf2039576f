-- Up Migration
-- The EU's DSA Transparency Database (issue 35, Art. 24(5) DSA). An account a platform: `operator`
-- for global decisions, or a studio's id for the decisions scoped to its games (README "Regulation
-- (EU DSA)"); mode `submit` sends to base_url with the sealed token (AES-GCM under the pepper, as
-- webhook secrets), `dry-run` writes the statements as JSON lines for review instead.
CREATE TABLE transparency_accounts (
  platform text PRIMARY KEY CHECK (platform = 'operator' OR platform ~ '^[0-9a-f-]{36}$'),
  mode text NOT NULL CHECK (mode IN ('submit', 'dry-run')),
  base_url text,
  token_sealed bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (mode = 'dry-run' OR (base_url IS NOT NULL AND token_sealed IS NOT NULL))
);

-- One statement a restriction (a sanction), owed to the platform whose account was configured when
-- it was placed (common/lifecycles/transparency-statement.ts, its only writer):
--   pending --(201, or the database already holds its puid)--> sent
--   pending --(422 naming it)--> refused --(an admin retries it)--> pending
-- A pending one whose attempt failed for a passing reason (429, 5xx, network) waits for next_attempt_at.
CREATE TABLE transparency_statements (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sanction_id uuid NOT NULL UNIQUE REFERENCES sanctions(id) ON DELETE CASCADE,
  platform text NOT NULL,
  puid text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'refused')),
  -- The statement as last sent (or written in a dry run).
  body jsonb,
  tdb_uuid text,
  permalink text,
  dry_run boolean NOT NULL DEFAULT false,
  -- The database's own words when it refused it.
  refusal jsonb,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A submission in flight holds it until then (a worker that dies lets it go).
  claimed_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  refused_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (platform, puid)
);
CREATE INDEX transparency_statements_pending ON transparency_statements (platform, next_attempt_at, created_at)
  WHERE state = 'pending';
CREATE INDEX transparency_statements_refused ON transparency_statements (refused_at DESC) WHERE state = 'refused';

-- Down Migration
DROP TABLE transparency_statements;
DROP TABLE transparency_accounts;
