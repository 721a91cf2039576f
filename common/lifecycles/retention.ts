import type { Queryable } from '../data/db.js';
import { reduceOffenses } from './offense.js';
import type { KindResult, RetentionDays, RetentionKind } from '../data/shapes/retention.js';
import { REDUCE_RESOLVED_CASES } from './review-case.js';
import { DROP_SENT_PAYLOADS } from './transparency-statement.js';
import { DROP_NOTIFIER_CONTACTS } from './notice.js';
import { DROP_OLD_MISUSE_RECORDS } from './misuse.js';

/**
 * Storage limitation (GDPR Art. 5(1)(e); issue 36): each kind of personal data is kept no longer than
 * its window (docs/compliance.md "Personal data", RETENTION_*_DAYS), then removed or reduced to what names nobody.
 *
 * Every kind is one bounded statement run in batches (`$1` rows at most, `$2` the cutoff), each its own
 * short transaction, so a purge far behind never holds a long lock or writes one huge transaction, and
 * finds its rows by an index that loses a row once it is reduced (migration 035), so a run costs what
 * is due, not the size of the table. What a decision still stands on is kept whatever its age: the
 * evidence and words of a report in a case still open, or under an appeal still pending.
 */

/**
 * A report still needed: in a case still open, or contested by an appeal still pending (the player's,
 * or a notifier's complaint about the notice it was filed as).
 */
const STILL_NEEDED = `(EXISTS (SELECT 1 FROM case_offenses co JOIN review_cases c ON c.id = co.case_id
                               WHERE co.offense_id = o.id AND c.status = 'open')
    OR EXISTS (SELECT 1 FROM appeals a WHERE a.offense_id = o.id AND a.status = 'open')
    OR EXISTS (SELECT 1 FROM notices n JOIN appeals a ON a.notice_id = n.id
                WHERE n.offense_id = o.id AND a.status = 'open'))`;

const EVIDENCE_HELD = `(o.evidence <> '[]'::jsonb OR o.details <> '{}'::jsonb OR (o.context - 'source') <> '{}'::jsonb
    OR o.match_id IS NOT NULL)`;
const TEXT_HELD = `(o.description <> '' OR o.reporter_id IS NOT NULL)`;

interface KindSql {
  /** What the kind is, for the admin tool and the README. */
  what: string;
  /** Removes or reduces at most $1 rows older than $2; returns their number as `n`. */
  purge: string;
  /**
   * The rows due now ($1 the cutoff), one `SELECT 1` a row: the dry run counts at most one run's worth
   * of them, so it costs what a run would remove, never the size of the table.
   */
  due: string;
  /** The oldest row still holding this kind (`at`), due or not. */
  oldest: string;
}

/**
 * A table only ever appended to, with ids in time order: its oldest rows are the first of its primary
 * key, so a purge reads the first $1 of them and deletes those past the cutoff, and stops growing
 * with the table; its dry run reads the same first rows.
 */
function appendOnly(table: string, what: string): KindSql {
  return {
    what,
    purge: `WITH d AS (DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM (SELECT ctid, created_at FROM ${table} ORDER BY id LIMIT $1) s WHERE created_at < $2)) RETURNING 1)
      SELECT count(*)::int AS n FROM d`,
    due: `SELECT 1 FROM (SELECT created_at FROM ${table} ORDER BY id LIMIT $2) s WHERE created_at < $1`,
    oldest: `SELECT created_at AS at FROM ${table} ORDER BY id LIMIT 1`,
  };
}

/**
 * Each kind's statements. The scans of offenses walk a partial index in creation order and skip what is
 * still needed; trust history and the audit log are append-only (appendOnly).
 */
export const RETENTION: Record<RetentionKind, KindSql> = {
  evidence: {
    what: 'evidence content and links of reports (evidence, details, context, match id)',
    purge: reduceOffenses('evidence', `${EVIDENCE_HELD} AND o.created_at < $2 AND NOT ${STILL_NEEDED}`),
    due: `SELECT 1 FROM offenses o WHERE ${EVIDENCE_HELD} AND o.created_at < $1 AND NOT ${STILL_NEEDED}`,
    oldest: `SELECT min(o.created_at) AS at FROM offenses o WHERE ${EVIDENCE_HELD}`,
  },
  reportText: {
    what: "reports' free text and the reporter the studio named",
    purge: reduceOffenses('text', `${TEXT_HELD} AND o.created_at < $2 AND NOT ${STILL_NEEDED}`),
    due: `SELECT 1 FROM offenses o WHERE ${TEXT_HELD} AND o.created_at < $1 AND NOT ${STILL_NEEDED}`,
    oldest: `SELECT min(o.created_at) AS at FROM offenses o WHERE ${TEXT_HELD}`,
  },
  resolvedCases: {
    what: "resolved cases reduced to their skeleton: moderators' notes on them, resolution and escalation notes, the reporters' ids",
    purge: REDUCE_RESOLVED_CASES,
    due: `SELECT 1 FROM review_cases WHERE status = 'resolved' AND reduced_at IS NULL AND resolved_at < $1`,
    oldest: `SELECT min(resolved_at) AS at FROM review_cases WHERE status = 'resolved' AND reduced_at IS NULL`,
  },
  trustHistory: appendOnly(
    'trust_history',
    "the detail of players' trust history (each change of the score; the score itself stays)",
  ),
  audit: appendOnly('moderation_audit', 'the moderation audit log (who did what to which case)'),
  signIns: {
    what: 'sign-in records (authorization codes: who signed in to which game, when, from which redirect)',
    purge: `WITH d AS (DELETE FROM authorization_codes WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM authorization_codes WHERE expires_at < $2 LIMIT $1)) RETURNING 1)
      SELECT count(*)::int AS n FROM d`,
    due: `SELECT 1 FROM authorization_codes WHERE expires_at < $1`,
    oldest: `SELECT min(expires_at) AS at FROM authorization_codes`,
  },
  transparencyPayloads: {
    what: 'the payloads of statements the DSA Transparency Database holds (their id and link stay)',
    purge: DROP_SENT_PAYLOADS,
    due: `SELECT 1 FROM transparency_statements WHERE state = 'sent' AND body IS NOT NULL AND sent_at < $1`,
    oldest: `SELECT min(sent_at) AS at FROM transparency_statements WHERE state = 'sent' AND body IS NOT NULL`,
  },
  notifierContacts: {
    what: "notifiers' names and e-mails (the notice, its category and its outcome stay)",
    purge: DROP_NOTIFIER_CONTACTS,
    due: `SELECT 1 FROM notices WHERE (notifier_name IS NOT NULL OR notifier_email IS NOT NULL)
            AND created_at < $1`,
    oldest: `SELECT min(created_at) AS at FROM notices WHERE notifier_name IS NOT NULL OR notifier_email IS NOT NULL`,
  },
  misuseRecords: {
    what: 'manifestly-unfounded marks and the warnings and suspensions they led to (DSA Art. 23), once over',
    purge: DROP_OLD_MISUSE_RECORDS,
    due: `SELECT 1 FROM misuse_marks WHERE created_at < $1
          UNION ALL SELECT 1 FROM misuse_measures WHERE coalesce(ends_at, created_at) < $1`,
    oldest: `SELECT least((SELECT min(created_at) FROM misuse_marks), (SELECT min(created_at) FROM misuse_measures)) AS at`,
  },
};

export const RETENTION_KINDS = Object.keys(RETENTION) as RetentionKind[];

const cutoffOf = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

/**
 * One pass over every kind: each purged in batches of `batchSize` until nothing is due or
 * `maxBatches` ran (the rest goes at the next run). A dry run counts what is due and changes nothing.
 */
export async function runRetention(
  db: Queryable,
  days: RetentionDays,
  opts: {
    now?: Date;
    dryRun?: boolean;
    batchSize?: number;
    maxBatches?: number;
    kinds?: RetentionKind[];
  } = {},
): Promise<KindResult[]> {
  const now = opts.now ?? new Date();
  const batchSize = opts.batchSize ?? 1000;
  const maxBatches = opts.maxBatches ?? 100;
  const results: KindResult[] = [];
  for (const kind of opts.kinds ?? RETENTION_KINDS) {
    const sql = RETENTION[kind];
    const cutoff = cutoffOf(now, days[kind]);
    let rows = 0;
    let more = false;
    const capacity = batchSize * maxBatches;
    if (opts.dryRun) {
      const n = (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql.due} LIMIT $2) d`, [
          cutoff,
          capacity + 1,
        ])
      ).rows[0]!.n;
      rows = Math.min(n, capacity);
      more = n > capacity;
    } else
      for (let batch = 0; batch < maxBatches; batch++) {
        const n = (await db.query<{ n: number }>(sql.purge, [batchSize, cutoff])).rows[0]!.n;
        rows += n;
        more = n === batchSize && batch === maxBatches - 1;
        if (n < batchSize) break;
      }
    const oldest = (await db.query<{ at: Date | null }>(sql.oldest)).rows[0]?.at ?? null;
    results.push({
      kind,
      windowDays: days[kind],
      cutoff: cutoff.toISOString(),
      rows,
      more,
      oldest: oldest ? oldest.toISOString() : null,
    });
  }
  return results;
}

/** The advisory lock that lets one retention run at a time, whatever the number of workers. */
export const RETENTION_LOCK = 0x7074_7265; // 'ptre'

/**
 * A scheduled run: under the advisory lock on a connection of its own, so two workers that pick up
 * runs at once (a slow run meeting the next) do not both purge; the second finds the lock taken and
 * returns `skipped`.
 */
export async function runRetentionOnce(
  pool: { connect(): Promise<Queryable & { release(): void }> },
  days: RetentionDays,
  opts: { now?: Date; batchSize?: number; maxBatches?: number } = {},
): Promise<{ skipped: true } | { skipped: false; results: KindResult[] }> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
      RETENTION_LOCK,
    ]);
    if (!rows[0]!.ok) return { skipped: true };
    try {
      return { skipped: false, results: await runRetention(client, days, opts) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]);
    }
  } finally {
    client.release();
  }
}

export type { KindResult, RetentionDays, RetentionKind } from '../data/shapes/retention.js';
