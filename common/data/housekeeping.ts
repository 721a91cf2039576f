import type { Logger } from '../logger.js';
import type { Queryable } from './db.js';
import { NOTICE_QUOTA_WINDOW_HOURS } from '../domain/notices.js';

/**
 * Deletes rows whose purpose is over, so these tables stay the size of their working set:
 * - idempotency keys past their expiry (kept IDEMPOTENCY_TTL_HOURS, at least 24 h);
 * - (authorization codes, which record sign-ins, are retention's: common/lifecycles/retention.ts);
 * - access-token rows past expiry (an expired token fails verification before the revocation lookup);
 * - sign-in failure counters whose window and lock are both over;
 * - outbox rows sent more than 7 days ago (BullMQ keeps completed jobs as long, for duplicate ids);
 * - webhook deliveries finished (delivered, failed or cancelled) more than 30 days ago: the delivery
 *   log studios read covers the last 30 days;
 * - console sessions past their absolute end;
 * - duplicate-report keys past their window, and reporter-quota and studio-budget windows over 24 h
 *   old (a new window starts from nothing either way).
 */
/** What each purge deletes: the table and the condition of its expired rows (each index-backed). */
export const PURGES: Record<string, { table: string; where: string }> = {
  idempotencyKeys: { table: 'idempotency_keys', where: 'expires_at < now()' },
  accessTokens: { table: 'access_tokens', where: 'expires_at < now()' },
  // A family's spent refresh tokens stay while it lives: a replay of one must still be recognised.
  tokenFamilies: { table: 'token_families', where: 'expires_at < now()' },
  refreshTokens: { table: 'refresh_tokens', where: 'used_at IS NULL AND expires_at < now()' },
  signInFailures: {
    table: 'sign_in_failures',
    where: `updated_at < now() - interval '15 minutes' AND (locked_until IS NULL OR locked_until < now())`,
  },
  outbox: { table: 'outbox', where: `sent_at < now() - interval '7 days'` },
  webhookDeliveries: {
    table: 'webhook_deliveries',
    where: `status <> 'pending' AND coalesce(delivered_at, last_attempt_at, created_at) < now() - interval '30 days'`,
  },
  reportDedup: { table: 'report_dedup', where: 'expires_at < now()' },
  // Idle ones are dead too, but cheap to keep until their absolute end (at most a day by default).
  consoleSessions: { table: 'console_sessions', where: 'expires_at < now()' },
  reporterQuota: { table: 'reporter_quota', where: `window_start < now() - interval '24 hours'` },
  studioBudget: { table: 'studio_player_budget', where: `window_start < now() - interval '24 hours'` },
  // The public notice channel's daily bounds (docs/moderators.md "Notices"): a new window starts from nothing.
  noticeQuota: {
    table: 'notice_quota',
    where: `window_start < now() - interval '${NOTICE_QUOTA_WINDOW_HOURS} hours'`,
  },
};

/** One bounded delete: at most `limit` expired rows of a purge, found by its index (a TID scan deletes them). */
export const purgeStatement = (p: { table: string; where: string }) =>
  `DELETE FROM ${p.table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${p.table} WHERE ${p.where} LIMIT $1))`;

/**
 * Runs every purge in batches of `batchSize` rows (each its own short statement, so no long lock and
 * no huge transaction however far behind it is), up to `maxBatches` a purge per run; what is left
 * goes at the next run.
 */
export async function purgeExpired(
  db: Queryable,
  opts: { batchSize?: number; maxBatches?: number } = {},
): Promise<Record<string, number>> {
  const batchSize = opts.batchSize ?? 5000;
  const maxBatches = opts.maxBatches ?? 200;
  const deleted: Record<string, number> = {};
  for (const [name, purge] of Object.entries(PURGES)) {
    const sql = purgeStatement(purge);
    let total = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const n = (await db.query(sql, [batchSize])).rowCount ?? 0;
      total += n;
      if (n < batchSize) break;
    }
    deleted[name] = total;
  }
  return deleted;
}

/**
 * Runs purgeExpired, then each of `more` (named purges of their own, such as the signals' retention,
 * whose life cycle derives links again as it deletes), every `intervalMs` (any number of processes
 * may: deletes are idempotent).
 */
export function startHousekeeping(
  db: Queryable,
  log: Logger,
  intervalMs: number,
  more: Record<string, () => Promise<number>> = {},
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      try {
        const deleted = await purgeExpired(db);
        for (const [name, purge] of Object.entries(more)) deleted[name] = await purge();
        if (Object.values(deleted).some((n) => n > 0)) log.info({ deleted }, 'expired rows purged');
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'housekeeping failed; retrying next interval');
      }
    });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
