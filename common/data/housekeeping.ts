import type { Logger } from '../logger.js';
import type { Queryable } from './db.js';

/**
 * Deletes rows whose purpose is over, so these tables stay the size of their working set:
 * - idempotency keys past their expiry (kept IDEMPOTENCY_TTL_HOURS, at least 24 h);
 * - authorization codes a day past expiry (a replay of an expired code is refused either way);
 * - access-token rows past expiry (an expired token fails verification before the revocation lookup);
 * - sign-in failure counters whose window and lock are both over;
 * - outbox rows sent more than 7 days ago (BullMQ keeps completed jobs as long, for duplicate ids);
 * - webhook deliveries finished (delivered, failed or cancelled) more than 30 days ago: the delivery
 *   log studios read covers the last 30 days;
 * - duplicate-report keys past their window, and reporter-quota and studio-budget windows over 24 h
 *   old (a new window starts from nothing either way).
 */
export async function purgeExpired(db: Queryable): Promise<Record<string, number>> {
  const statements: Record<string, string> = {
    idempotencyKeys: 'DELETE FROM idempotency_keys WHERE expires_at < now()',
    authorizationCodes: `DELETE FROM authorization_codes WHERE expires_at < now() - interval '1 day'`,
    accessTokens: 'DELETE FROM access_tokens WHERE expires_at < now()',
    // A family's spent refresh tokens stay while it lives: a replay of one must still be recognised.
    tokenFamilies: 'DELETE FROM token_families WHERE expires_at < now()',
    refreshTokens: 'DELETE FROM refresh_tokens WHERE used_at IS NULL AND expires_at < now()',
    signInFailures: `DELETE FROM sign_in_failures WHERE updated_at < now() - interval '15 minutes'
                       AND (locked_until IS NULL OR locked_until < now())`,
    outbox: `DELETE FROM outbox WHERE sent_at < now() - interval '7 days'`,
    webhookDeliveries: `DELETE FROM webhook_deliveries WHERE status <> 'pending'
                          AND coalesce(delivered_at, last_attempt_at, created_at) < now() - interval '30 days'`,
    reportDedup: 'DELETE FROM report_dedup WHERE expires_at < now()',
    // Idle ones are dead too, but cheap to keep until their absolute end (at most a day by default).
    consoleSessions: 'DELETE FROM console_sessions WHERE expires_at < now()',
    reporterQuota: `DELETE FROM reporter_quota WHERE window_start < now() - interval '24 hours'`,
    studioBudget: `DELETE FROM studio_player_budget WHERE window_start < now() - interval '24 hours'`,
  };
  const deleted: Record<string, number> = {};
  for (const [name, sql] of Object.entries(statements)) deleted[name] = (await db.query(sql)).rowCount ?? 0;
  return deleted;
}

/** Runs purgeExpired every `intervalMs` (any number of processes may: deletes are idempotent). */
export function startHousekeeping(db: Queryable, log: Logger, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      try {
        const deleted = await purgeExpired(db);
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
