import type { Pool } from '../data/db.js';
import type { Logger } from '../logger.js';
import { JOB_NAMES } from './index.js';
import { mastersOf, type RedisClient } from './redis-client.js';
import type { ShardedQueues } from './shards.js';
import { send, type OutboxRow } from './outbox.js';

/**
 * The outbox, not Redis, is the guarantee that an accepted report's jobs run. The relay marks a row
 * sent once Redis acknowledged its job, but Redis can still lose an acknowledged job: a machine crash
 * cuts the last second of its append-only file, a master fails over before its replica copied the
 * write, a server without persistence restarts empty. The reconciler re-adds, under the same job id,
 * every row sent within a window whose effect is not recorded as done in PostgreSQL:
 *
 * - review-offenses (review-offense in earlier releases): each of its offenses is filed into a case (or was
 *   recorded, which opens none);
 * - enrich-offenses (enrich-evidence in earlier releases): every evidence item of each of its offenses carries
 *   its enrichment;
 * - deliver-webhook: the delivery is no longer pending (delivered, failed or cancelled);
 * - sanction-expiry: the expiry was announced, or the sanction revoked;
 * - submit-statements: no statement of its platform is pending (sent or refused by the Transparency
 *   Database);
 * - run-wave: the wave is no longer scheduled, running or rolling back;
 * - erase-player: the erasure is no longer pending (done, or cancelled);
 * - send-mail: the mail to the notifier is no longer pending (sent, rejected, failed or withdrawn);
 * - record-matches: every match it carries is recorded (by its studio and id).
 *
 * (weigh-rules has no mark of its own: a lost weighing is made up by the next scheduled one.)
 *
 * Re-adding is idempotent: BullMQ ignores a job id it still holds (waiting, delayed, active or kept
 * completed), and every processor leaves done work alone, so a job re-added after it ran changes
 * nothing twice. A job it holds as failed (a worker of an earlier release that did not know the job
 * failed it for good during a rollback, or a fault outlasted its attempts) or as completed while its
 * work is not done would never run again under its id: a not-done row's finished job is retried
 * instead, its attempts counted afresh.
 *
 * It runs when Redis is seen to have restarted or failed over (its run id differs from the one
 * recorded in Redis at the last reconcile: a restart, a promoted replica or an emptied server all
 * show a different one), over OUTBOX_RECONCILE_RESTART_WINDOW_SECONDS, and every
 * OUTBOX_RECONCILE_INTERVAL_MS over the rows sent in the last two intervals (a safety net whose cost
 * is bounded by the traffic of two intervals, not by the table). Any number of processes run it; a
 * transaction-level advisory lock lets one at a time do a pass.
 */
const RECONCILE_LOCK = 0x7074_7263; // 'ptrc'
const BATCH = 1000;

/** Rows sent in (from, to] whose effect is not done, after the cursor, oldest first. */
const NOT_DONE = `
  SELECT o.id, o.queue, o.job_name, o.job_id, o.payload, o.shard_key, o.shard FROM outbox o
   WHERE o.sent_at IS NOT NULL AND o.sent_at > now() - make_interval(secs => $1)
     AND o.sent_at <= now() - make_interval(secs => $2)
     AND o.id > $3 AND o.queue = ANY($4::text[])
     AND NOT CASE o.job_name
       WHEN '${JOB_NAMES.reviewOffenses}' THEN
         NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(o.payload->'offenseIds') e(id)
                       JOIN offenses x ON x.id = e.id::uuid
                      WHERE x.status <> 'recorded'
                        AND NOT EXISTS (SELECT 1 FROM case_offenses co WHERE co.offense_id = x.id))
       WHEN '${JOB_NAMES.enrichOffenses}' THEN
         NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(o.payload->'offenseIds') e(id)
                       JOIN offenses x ON x.id = e.id::uuid
                      WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(x.evidence) v WHERE NOT v ? 'enrichment'))
       WHEN '${JOB_NAMES.reviewOffense}' THEN
         EXISTS (SELECT 1 FROM case_offenses co WHERE co.offense_id = (o.payload->>'offenseId')::uuid)
         OR EXISTS (SELECT 1 FROM offenses x WHERE x.id = (o.payload->>'offenseId')::uuid AND x.status = 'recorded')
       WHEN '${JOB_NAMES.enrichEvidence}' THEN
         EXISTS (SELECT 1 FROM offenses x WHERE x.id = (o.payload->>'offenseId')::uuid
                   AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(x.evidence) e WHERE NOT e ? 'enrichment'))
       WHEN '${JOB_NAMES.deliverWebhook}' THEN
         EXISTS (SELECT 1 FROM webhook_deliveries d
                  WHERE d.id::text = o.payload->>'deliveryId' AND d.status <> 'pending')
       WHEN '${JOB_NAMES.sanctionExpiry}' THEN
         EXISTS (SELECT 1 FROM sanctions s WHERE s.id = (o.payload->>'sanctionId')::uuid
                   AND (s.expiry_announced_at IS NOT NULL OR s.revoked_at IS NOT NULL))
       WHEN '${JOB_NAMES.submitStatements}' THEN
         NOT EXISTS (SELECT 1 FROM transparency_statements t
                      WHERE t.platform = o.payload->>'platform' AND t.state = 'pending')
       WHEN '${JOB_NAMES.erasePlayer}' THEN
         NOT EXISTS (SELECT 1 FROM erasures e WHERE e.id = (o.payload->>'erasureId')::uuid AND e.state = 'pending')
       WHEN '${JOB_NAMES.runWave}' THEN
         NOT EXISTS (SELECT 1 FROM waves w WHERE w.id = (o.payload->>'waveId')::uuid
                       AND w.state IN ('scheduled', 'running', 'rolling_back'))
       WHEN '${JOB_NAMES.sendMail}' THEN
         NOT EXISTS (SELECT 1 FROM notifier_mails m WHERE m.id = (o.payload->>'mailId')::uuid AND m.state = 'pending')
       WHEN '${JOB_NAMES.recordMatches}' THEN
         NOT EXISTS (SELECT 1 FROM jsonb_array_elements(o.payload->'matches') m
                      WHERE NOT EXISTS (SELECT 1 FROM matches x WHERE x.studio_id = (o.payload->>'studioId')::uuid
                                          AND x.match_id = m->>'matchId'))
       WHEN '${JOB_NAMES.summarizeConduct}' THEN
         EXISTS (SELECT 1 FROM conduct_restrictions r WHERE r.sanction_id = (o.payload->>'sanctionId')::uuid)
       ELSE true END
   ORDER BY o.id LIMIT $5`;

/**
 * One pass: re-adds every not-done row sent within `windowSeconds` (and at least `graceSeconds`
 * ago), in batches. Returns how many rows it re-added, or null when another process holds the pass.
 */
export async function reconcileOutbox(
  pool: Pool,
  queues: ShardedQueues,
  opts: { windowSeconds: number; graceSeconds?: number },
): Promise<number | null> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [
      RECONCILE_LOCK,
    ]);
    if (!lock[0]!.ok) {
      await client.query('ROLLBACK');
      return null;
    }
    let readded = 0;
    let after = '0';
    for (;;) {
      const { rows } = await client.query<OutboxRow>(NOT_DONE, [
        opts.windowSeconds,
        opts.graceSeconds ?? 0,
        after,
        queues.names(),
        BATCH,
      ]);
      if (rows.length === 0) break;
      await send(queues, rows);
      await retryFinished(queues, rows);
      readded += rows.length;
      after = rows[rows.length - 1]!.id;
      if (rows.length < BATCH) break;
    }
    await client.query('COMMIT');
    return readded;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Moves the finished jobs among `rows` back to wait: their work is not done, and their id is taken.
 * A failed one, and a completed one too: a job that completed while its work was still claimed by a
 * worker that then died (or of an earlier release that completed too early) would otherwise keep its
 * id, and every re-add of it would be a no-op.
 */
async function retryFinished(queues: ShardedQueues, rows: OutboxRow[]): Promise<void> {
  await Promise.all(
    rows.map(async (row) => {
      const queue = queues.shards[queues.shardFor(row)]![row.queue];
      const state = await queue.getJobState(row.job_id);
      if (state !== 'failed' && state !== 'completed') return;
      const job = await queue.getJob(row.job_id);
      await job?.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
    }),
  );
}

/** Where the run id of the Redis server last reconciled against is kept, beside the queues. */
export const epochKey = (prefix: string) => `${prefix}:outbox:reconciled-run-id`;

/**
 * The server's run id (a cluster's: its masters' run ids, sorted and joined, so a restart or failover
 * of any master changes it) and the one recorded at the last reconcile (null: none, e.g. an empty
 * server).
 */
export async function redisEpoch(
  redis: RedisClient,
  prefix: string,
): Promise<{ runId: string; recorded: string | null }> {
  const masters = mastersOf(redis);
  if (masters.length === 0) throw new Error('no Redis master known yet');
  const [infos, recorded] = await Promise.all([
    Promise.all(masters.map((m) => m.info('server'))),
    redis.get(epochKey(prefix)),
  ]);
  const runId = infos
    .map((info) => /^run_id:(\w+)/m.exec(info)?.[1] ?? 'unknown')
    .sort()
    .join(',');
  return { runId, recorded };
}

export interface ReconcilerOptions {
  prefix: string;
  /** The periodic pass; 0 turns the reconciler off (tests that share one database). */
  intervalMs: number;
  /** How far back a pass after a Redis restart or failover looks. */
  restartWindowSeconds: number;
  /** How often Redis's run id is compared with the recorded one. */
  checkIntervalMs?: number;
}

/** Runs the reconciler until stopped; returns the stop function. */
export function startReconciler(
  pool: Pool,
  queues: ShardedQueues,
  redis: RedisClient,
  log: Logger,
  opts: ReconcilerOptions,
): () => Promise<void> {
  if (opts.intervalMs <= 0) return async () => undefined;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let lastPeriodic = Date.now();
  const tick = async () => {
    if (stopped) return;
    try {
      const epoch = await redisEpoch(redis, opts.prefix);
      if (epoch.recorded !== epoch.runId) {
        const readded = await reconcileOutbox(pool, queues, { windowSeconds: opts.restartWindowSeconds });
        if (readded === null) return; // another process is at it; it records the run id
        await redis.set(epochKey(opts.prefix), epoch.runId);
        // A first start on an empty Redis has nothing to re-add: not news. Jobs re-added, or another
        // server than the one reconciled against, are.
        const news = readded > 0 || epoch.recorded !== null;
        log[news ? 'warn' : 'debug'](
          { readded, runId: epoch.runId, previousRunId: epoch.recorded },
          'redis restarted, failed over or was emptied: outbox reconciled',
        );
        lastPeriodic = Date.now();
        return;
      }
      if (Date.now() - lastPeriodic < opts.intervalMs) return;
      lastPeriodic = Date.now();
      const readded = await reconcileOutbox(pool, queues, {
        windowSeconds: (2 * opts.intervalMs) / 1000 + 60,
        graceSeconds: 60,
      });
      // Jobs still waiting in Redis are no-ops here: a count under a backlog is not a loss by itself.
      if (readded) log.info({ readded }, 'outbox reconciler re-sent jobs whose effect is not done yet');
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'outbox reconcile failed; retrying');
    }
  };
  const timer = setInterval(() => {
    running = running.then(tick);
  }, opts.checkIntervalMs ?? 5000);
  // The first check waits an interval: the producer connection refuses commands until it is ready.
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
