import Joi from 'joi';
import { withTransaction, type Pool } from '../data/db.js';
import { insertAudit } from '../data/repos/moderation.js';
import {
  recordRetentionRun,
  retentionRuns,
  type RetentionRequester,
  type RetentionRunRow,
} from '../data/repos/retention.js';
import {
  RETENTION,
  runRetention,
  runRetentionOnce,
  type KindResult,
  type RetentionDays,
} from '../lifecycles/retention.js';
import { AppError } from '../errors.js';
import { check } from '../validation.js';

/**
 * Retention as its users see it (GDPR Art. 5(1)(e); issue 36; docs/compliance.md "Personal data"): each kind's
 * window, what is due now and the oldest row still holding it; a run now (an admin through the API or
 * the console, the operator with the admin tool, the schedule), recorded with what it removed. The
 * statements themselves are common/lifecycles/retention.ts.
 */

export const RETENTION_RUNS_SHOWN = 10;

/** One kind of a run or a dry run, as the API, the console and the admin tool show it. */
const presentKind = (r: KindResult) => ({
  kind: r.kind,
  what: RETENTION[r.kind].what,
  windowDays: r.windowDays,
  olderThan: r.cutoff,
  moreDue: r.more,
  oldestHeld: r.oldest,
});
/** A kind of a dry run: what a run would remove now. */
const presentDueKind = (r: KindResult) => ({ ...presentKind(r), wouldRemove: r.rows });
/** A kind of a run: what it removed. */
const presentRunKind = (r: KindResult) => ({ ...presentKind(r), removed: r.rows });

export const presentRun = (r: RetentionRunRow) => ({
  dryRun: false as const,
  id: r.id,
  requestedBy: r.requested_by,
  moderator: r.moderator,
  startedAt: r.started_at.toISOString(),
  finishedAt: r.finished_at.toISOString(),
  removed: r.results.reduce((n, k) => n + k.rows, 0),
  kinds: r.results.map(presentRunKind),
});

export const runSchema = Joi.object({
  dryRun: Joi.boolean()
    .default(false)
    .description('true: say what a run would remove now, kind by kind, and change nothing.'),
});

/** Each kind's window, what is due now (a dry run) and the latest runs. */
export async function retentionOverview(pool: Pool, days: RetentionDays, intervalMs: number) {
  const [due, runs] = await Promise.all([
    runRetention(pool, days, { dryRun: true }),
    retentionRuns(pool, { limit: RETENTION_RUNS_SHOWN }),
  ]);
  return {
    intervalMs,
    kinds: due.map(presentDueKind),
    runs: runs.map(presentRun),
  };
}

/**
 * Records a run with what each kind lost, in one transaction with its audit entry when an admin asked
 * for it.
 */
async function recordRun(
  pool: Pool,
  days: RetentionDays,
  by: { kind: RetentionRequester; moderatorId?: string },
  startedAt: Date,
  results: KindResult[],
): Promise<string> {
  return withTransaction(pool, async (client) => {
    const runId = await recordRetentionRun(client, {
      requestedBy: by.kind,
      moderatorId: by.moderatorId ?? null,
      startedAt,
      results,
      keepDays: days.audit,
    });
    if (by.moderatorId)
      await insertAudit(client, {
        moderatorId: by.moderatorId,
        caseId: null,
        action: 'run_retention',
        outcome: null,
        note: null,
        trustScoreBefore: null,
        trustScoreAfter: null,
        details: {
          runId,
          removed: Object.fromEntries(results.filter((r) => r.rows).map((r) => [r.kind, r.rows])),
        },
      });
    return runId;
  });
}

/** The scheduled run (the review worker): skipped while another holds the lock, else recorded. */
export async function runScheduledRetention(
  pool: Pool,
  days: RetentionDays,
): Promise<{ skipped: true } | { skipped: false; results: KindResult[] }> {
  const startedAt = new Date();
  const run = await runRetentionOnce(pool, days, { now: startedAt });
  if (!run.skipped) await recordRun(pool, days, { kind: 'schedule' }, startedAt, run.results);
  return run;
}

/**
 * A run now: a dry run counts and changes nothing; a run takes the advisory lock the schedule takes
 * (409 retention_running while another holds it), removes what is due and is recorded (and, asked by
 * an admin, audited) with what each kind lost.
 */
export async function runRetentionNow(
  pool: Pool,
  days: RetentionDays,
  by: { kind: 'operator' | 'admin'; moderatorId?: string },
  body: unknown = {},
): Promise<{ dryRun: true; kinds: ReturnType<typeof presentDueKind>[] } | ReturnType<typeof presentRun>> {
  const { dryRun } = check<{ dryRun: boolean }>(runSchema, body ?? {});
  if (dryRun) {
    const results = await runRetention(pool, days, { dryRun: true });
    return { dryRun: true, kinds: results.map(presentDueKind) };
  }
  const startedAt = new Date();
  const run = await runRetentionOnce(pool, days, { now: startedAt });
  if (run.skipped)
    throw new AppError(
      409,
      'retention_running',
      'A retention run holds the lock now (a worker): try again later.',
    );
  const id = await recordRun(pool, days, by, startedAt, run.results);
  const [recorded] = await retentionRuns(pool, { id });
  return presentRun(recorded!);
}
