import type { Queryable } from '../data/db.js';
import { isRestriction } from '../domain/transparency-statement.js';
import type { SanctionType } from '../domain/sanctions.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import type { OutboxRow } from '../queues/outbox.js';
import { traceFields } from '../tracing/spans.js';

/**
 * A restriction's statement to the EU's DSA Transparency Database (issue 35), the only code that
 * writes transparency_statements (a test holds it to that):
 *
 *   owed --> pending --(201, or the database already holds its puid)--> sent
 *            pending --(422 naming it: the database refused it)--> refused
 *            refused --(an admin retries it, once mended)--> pending
 *            pending --(429, 5xx, network)--> pending, again at next_attempt_at
 *
 * A statement is owed when a restriction is placed and its platform (docs/compliance.md "Regulation (EU DSA)":
 * the studio for a decision scoped to its games, the operator for a global one) has an account; one
 * a sanction (its puid is the sanction's own id), so a retry, a restore or a second worker never
 * makes a second one. A submission claims the statements it sends (claimed_until): a worker that
 * dies mid-call lets them go, and a statement sent twice is answered by the database with its puid,
 * which counts as sent.
 */
export const STATEMENT_STATES = ['pending', 'sent', 'refused'] as const;
export type StatementState = (typeof STATEMENT_STATES)[number];

/**
 * In the placement's transaction: the statement a restriction owes, when its platform has an account,
 * and the outbox row of the job that submits it (one job id a statement; the job sends every pending
 * statement of the platform, up to 100 a call). Nothing when the sanction restricts nothing (a
 * warning) or no account is configured for its platform.
 */
export async function recordOwed(
  db: Queryable,
  s: { id: string; type: SanctionType; scopeStudioId: string | null },
): Promise<OutboxRow[]> {
  if (!isRestriction(s.type)) return [];
  const platform = s.scopeStudioId ?? 'operator';
  const { rows } = await db.query<OutboxRow>(
    `WITH t AS (
       INSERT INTO transparency_statements (sanction_id, platform, puid)
       SELECT $1::uuid, $2::text, 'sanction-' || $1::text
        WHERE EXISTS (SELECT 1 FROM transparency_accounts WHERE platform = $2::text)
       ON CONFLICT DO NOTHING RETURNING id)
     INSERT INTO outbox (queue, job_name, job_id, payload, shard_key)
     SELECT $3, $4, 'tdb-' || t.id, jsonb_build_object('platform', $2::text) || $5::jsonb, NULL::uuid FROM t
     RETURNING id::text, queue, job_name, job_id, payload, shard_key`,
    [s.id, platform, QUEUES.webhooks, JOB_NAMES.submitStatements, JSON.stringify(traceFields())],
  );
  return rows;
}

export interface ClaimedStatement {
  id: string;
  sanctionId: string;
  puid: string;
  /** Attempts so far, this one included. */
  attempts: number;
}

/**
 * Claims up to `limit` due pending statements of a platform, oldest first, for one submission, for
 * `claimSeconds` (twice the call's timeout: a worker that dies mid-call lets them go after that, and
 * one sent twice is answered with its puid).
 */
export async function claimDue(
  db: Queryable,
  platform: string,
  limit: number,
  claimSeconds: number,
): Promise<ClaimedStatement[]> {
  const { rows } = await db.query<{ id: string; sanction_id: string; puid: string; attempts: number }>(
    `UPDATE transparency_statements t
        SET claimed_until = now() + make_interval(secs => $3), attempts = t.attempts + 1, updated_at = now()
      WHERE t.id IN (SELECT id FROM transparency_statements
                      WHERE platform = $1 AND state = 'pending' AND next_attempt_at <= now()
                        AND (claimed_until IS NULL OR claimed_until < now())
                      ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING t.id, t.sanction_id, t.puid, t.attempts`,
    [platform, limit, claimSeconds],
  );
  return rows.map((r) => ({ id: r.id, sanctionId: r.sanction_id, puid: r.puid, attempts: r.attempts }));
}

/** When the platform's next pending statement is due (undefined: none pending). */
export async function nextDue(db: Queryable, platform: string): Promise<Date | undefined> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT min(greatest(next_attempt_at, coalesce(claimed_until, next_attempt_at))) AS at
       FROM transparency_statements WHERE platform = $1 AND state = 'pending'`,
    [platform],
  );
  return rows[0]?.at ?? undefined;
}

/** Sent (201), or already held by the database (its puid): with the database's uuid and permalink when it gave them. */
export async function recordSent(
  db: Queryable,
  items: readonly { id: string; body: unknown; uuid: string | null; permalink: string | null }[],
  dryRun: boolean,
): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `UPDATE transparency_statements t
        SET state = 'sent', body = x.body, tdb_uuid = x.uuid, permalink = x.permalink, dry_run = $2,
            sent_at = now(), claimed_until = NULL, last_error = NULL, refusal = NULL, updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, body jsonb, uuid text, permalink text)
      WHERE t.id = x.id AND t.state = 'pending'`,
    [JSON.stringify(items), dryRun],
  );
}

/** Refused by the database (422 naming it): kept with its own words, not tried again until retried. */
export async function recordRefused(
  db: Queryable,
  items: readonly { id: string; body: unknown; refusal: unknown }[],
): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `UPDATE transparency_statements t
        SET state = 'refused', body = x.body, refusal = x.refusal, refused_at = now(), claimed_until = NULL,
            updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, body jsonb, refusal jsonb)
      WHERE t.id = x.id AND t.state = 'pending'`,
    [JSON.stringify(items)],
  );
}

/** An attempt that failed for a passing reason: released, to be tried again at `nextAt`. */
export async function recordAttemptFailed(
  db: Queryable,
  ids: readonly string[],
  error: string,
  nextAt: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE transparency_statements SET claimed_until = NULL, last_error = $2, next_attempt_at = $3, updated_at = now()
      WHERE id = ANY($1::uuid[]) AND state = 'pending'`,
    [ids, error.slice(0, 1000), nextAt],
  );
}

/**
 * A refused statement an admin sends again (once the mapping or the data was mended): pending, due
 * now, its job's outbox row written. Undefined when it is not refused.
 */
export async function recordRetry(db: Queryable, id: string): Promise<OutboxRow[] | undefined> {
  const { rows } = await db.query<OutboxRow>(
    `WITH t AS (
       UPDATE transparency_statements
          SET state = 'pending', next_attempt_at = now(), refusal = NULL, refused_at = NULL, attempts = 0,
              updated_at = now()
        WHERE id = $1 AND state = 'refused' RETURNING id, platform, updated_at)
     INSERT INTO outbox (queue, job_name, job_id, payload, shard_key)
     SELECT $2, $3, 'tdb-' || t.id || '-' || extract(epoch FROM t.updated_at)::bigint,
            jsonb_build_object('platform', t.platform) || $4::jsonb, NULL::uuid FROM t
     RETURNING id::text, queue, job_name, job_id, payload, shard_key`,
    [id, QUEUES.webhooks, JOB_NAMES.submitStatements, JSON.stringify(traceFields())],
  );
  return rows.length ? rows : undefined;
}

/**
 * Retention (common/lifecycles/retention.ts): at most $1 payloads of statements the database took before
 * $2, dropped (their id at the database and permalink stay); `n` how many.
 */
export const DROP_SENT_PAYLOADS = `WITH d AS (UPDATE transparency_statements SET body = NULL, updated_at = now() WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM transparency_statements WHERE state = 'sent' AND body IS NOT NULL AND sent_at < $2
     ORDER BY sent_at LIMIT $1)) RETURNING 1)
  SELECT count(*)::int AS n FROM d`;
