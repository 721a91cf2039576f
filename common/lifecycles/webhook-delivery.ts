import crypto from 'node:crypto';
import type { Queryable } from '../data/db.js';
import {
  DELIVERY_COLUMNS,
  deliveryFromRow,
  TEST_EVENT,
  type DeliveryRecord,
  type DeliveryRow,
  type EventType,
} from '../data/repos/webhooks.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import type { OutboxRow } from '../queues/outbox.js';
import { traceFields } from '../tracing/spans.js';

/**
 * A webhook delivery and its endpoint's breaker (issue 49: they had several writers), the only code
 * that writes `webhook_deliveries` and the breaker's columns of `webhooks` (a test holds it to that).
 *
 * A delivery:
 *
 *   an event a studio's webhook subscribes to, a test, or a redelivery --> pending
 *   pending --(a 2xx answer)--> delivered
 *   pending --(a permanent fault, or the last attempt failed)--> failed
 *   pending --(a passing fault)--> pending, again at next_attempt_at
 *   pending --(its webhook deleted or disabled)--> cancelled
 *   pending --(its player erased)--> cancelled, its payload reduced to its id and type
 *
 * An endpoint's breaker counts attempts, whichever delivery made them:
 *
 *   closed --(an attempt fails: attempt_failures + 1)--> closed, or parked when the count reaches
 *     WEBHOOK_BREAKER_FAILURES (parked_until: the cooldown, doubling with each park, at most 2^5)
 *   parked --(its time passes; the next attempt fails)--> parked again, longer
 *   closed | parked --(any answer, or the studio enabling the webhook again)--> closed, its counts reset
 *
 * and, apart, the deliveries failed for good in a row: WEBHOOK_DISABLE_AFTER_FAILURES of them disable
 * the webhook (`webhook.disabled` to its studio), until the studio enables it again.
 */

/** How many times a park's cooldown doubles at most. */
export const MAX_PARK_DOUBLINGS = 5;

/**
 * A delivery outside the studio's subscriptions, with its outbox row, in the caller's transaction: a
 * test event (a new event id and payload), or a redelivery of an earlier delivery (its event id and
 * payload, so a receiver that de-duplicates on webhook-id sees it once).
 */
export async function insertDelivery(
  db: Queryable,
  input:
    { webhookId: string; test: { data: unknown; now: Date } } | { webhookId: string; redeliveryOf: string },
): Promise<{ delivery: DeliveryRecord; outbox: OutboxRow }> {
  const { rows } = await db.query<DeliveryRow & { outbox: OutboxRow }>(
    `WITH d AS (
       INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, redelivery_of)
       SELECT $1, e.event_id, e.event_type, e.payload, $2::uuid FROM (
         SELECT event_id, event_type, payload FROM webhook_deliveries WHERE $2::uuid IS NOT NULL AND id = $2
         UNION ALL
         SELECT x.id, '${TEST_EVENT}', jsonb_build_object('id', x.id, 'type', '${TEST_EVENT}', 'createdAt', $3::text, 'data', $4::jsonb)
           FROM (SELECT gen_random_uuid() AS id) x WHERE $2::uuid IS NULL) e
       RETURNING *
     ), o AS (
       INSERT INTO outbox (queue, job_name, job_id, payload, shard_key)
       SELECT $5, $6, $5 || '-' || d.id,
              jsonb_build_object('deliveryId', d.id, 'webhookId', d.webhook_id) || $7::jsonb, d.webhook_id FROM d
       RETURNING id::text, queue, job_name, job_id, payload, shard_key
     )
     SELECT ${DELIVERY_COLUMNS}, to_jsonb(o) AS outbox FROM d JOIN webhooks w ON w.id = d.webhook_id, o`,
    [
      input.webhookId,
      'redeliveryOf' in input ? input.redeliveryOf : null,
      'test' in input ? input.test.now.toISOString() : null,
      'test' in input ? JSON.stringify(input.test.data) : null,
      QUEUES.webhooks,
      JOB_NAMES.deliverWebhook,
      JSON.stringify(traceFields()),
    ],
  );
  const row = rows[0]!;
  return { delivery: deliveryFromRow(row), outbox: row.outbox };
}

/**
 * Records events, each for the studios in its `dataByStudio` (each may see different data) and each
 * with its own id: a delivery per active webhook of theirs that subscribes to the event, and an
 * outbox row per delivery, all in one statement inside the caller's transaction, so an event exists
 * exactly when what caused it committed. Returns the outbox rows for the caller to dispatch after
 * the commit.
 */
export async function emitEvents(
  db: Queryable,
  events: { type: EventType; dataByStudio: Map<string, unknown> }[],
  now: Date = new Date(),
): Promise<OutboxRow[]> {
  const input = events.flatMap(({ type, dataByStudio }) => {
    const event_id = crypto.randomUUID();
    return [...dataByStudio].map(([studio_id, data]) => ({ event_id, type, studio_id, data }));
  });
  if (input.length === 0) return [];
  const { rows } = await db.query<OutboxRow>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, type text, studio_id uuid, data jsonb)),
     d AS (
       INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload)
       SELECT w.id, i.event_id, i.type,
              jsonb_build_object('id', i.event_id, 'type', i.type, 'createdAt', $2::text, 'data', i.data)
         FROM webhooks w JOIN input i ON i.studio_id = w.studio_id
        WHERE w.deleted_at IS NULL AND w.enabled AND i.type = ANY (w.events)
       RETURNING id, webhook_id
     )
     -- Sharded by the webhook (migration 019).
     INSERT INTO outbox (queue, job_name, job_id, payload, shard_key)
     SELECT $3, $4, $3 || '-' || d.id,
            jsonb_build_object('deliveryId', d.id, 'webhookId', d.webhook_id) || $5::jsonb, d.webhook_id FROM d
     RETURNING id::text, queue, job_name, job_id, payload, shard_key`,
    // The trace the event happened in (tracing on): its deliveries continue it, to the studio's door.
    [
      JSON.stringify(input),
      now.toISOString(),
      QUEUES.webhooks,
      JOB_NAMES.deliverWebhook,
      JSON.stringify(traceFields()),
    ],
  );
  return rows;
}

/** A pending delivery whose webhook was deleted or disabled: cancelled, never attempted. */
export async function recordCancelled(db: Queryable, deliveryId: string): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL
      WHERE id = $1 AND status = 'pending'`,
    [deliveryId],
  );
}

/**
 * An attempt's outcome on a pending delivery, in the caller's transaction: whether it was recorded
 * (false: another run of the job recorded it first).
 */
export async function recordAttempt(
  db: Queryable,
  deliveryId: string,
  a: {
    status: 'delivered' | 'failed' | 'pending';
    statusCode: number | null;
    error: string | null;
    nextAttemptAt: Date | null;
  },
): Promise<boolean> {
  const updated = await db.query(
    `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, last_status_code = $3,
            last_error = $4, last_attempt_at = now(), next_attempt_at = $5,
            delivered_at = CASE WHEN $2 = 'delivered' THEN now() END
      WHERE id = $1 AND status = 'pending'`,
    [deliveryId, a.status, a.statusCode, a.error, a.nextAttemptAt],
  );
  return (updated.rowCount ?? 0) > 0;
}

/**
 * The breaker after an attempt: an answer closes it and resets both counts (the attempts' and the
 * deliveries failed in a row); a failure counts, and the one that reaches `failures` parks the
 * endpoint for the cooldown (not again while parked).
 */
export async function recordBreaker(
  db: Queryable,
  webhookId: string,
  answered: boolean,
  policy: { failures: number; cooldownMs: number },
): Promise<void> {
  await db.query(
    answered
      ? `UPDATE webhooks SET attempt_failures = 0, parks = 0, parked_until = NULL, consecutive_failures = 0
          WHERE id = $1 AND (attempt_failures > 0 OR parked_until IS NOT NULL OR consecutive_failures > 0)`
      : `UPDATE webhooks SET attempt_failures = attempt_failures + 1,
                parked_until = CASE WHEN attempt_failures + 1 >= $2 AND (parked_until IS NULL OR parked_until <= now())
                                    THEN now() + make_interval(secs => $3 * 2 ^ least(parks, $4) / 1000.0)
                                    ELSE parked_until END,
                parks = CASE WHEN attempt_failures + 1 >= $2 AND (parked_until IS NULL OR parked_until <= now())
                             THEN parks + 1 ELSE parks END
          WHERE id = $1`,
    answered ? [webhookId] : [webhookId, policy.failures, policy.cooldownMs, MAX_PARK_DOUBLINGS],
  );
}

/** The studio enabled its webhook again: its breaker closes and its counts start afresh. */
export async function resetBreaker(db: Queryable, webhookId: string): Promise<void> {
  await db.query(
    `UPDATE webhooks SET consecutive_failures = 0, attempt_failures = 0, parked_until = NULL, parks = 0
      WHERE id = $1`,
    [webhookId],
  );
}

/**
 * A delivery failed for good: one more in a row for its webhook, which is disabled at `disableAfter`
 * (`justDisabled` then, for the caller's `webhook.disabled`).
 */
export async function recordDeliveryFailed(
  db: Queryable,
  webhookId: string,
  disableAfter: number,
): Promise<{ consecutiveFailures: number; disabledAt: Date | null; justDisabled: boolean } | undefined> {
  const { rows } = await db.query<{
    consecutive_failures: number;
    disabled_at: Date | null;
    just_disabled: boolean;
  }>(
    `UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
            enabled = enabled AND consecutive_failures + 1 < $2,
            disabled_at = CASE WHEN enabled AND consecutive_failures + 1 >= $2 THEN now() ELSE disabled_at END,
            disabled_reason = CASE WHEN enabled AND consecutive_failures + 1 >= $2 THEN 'failing'
                                   ELSE disabled_reason END
      WHERE id = $1
      RETURNING consecutive_failures, disabled_at,
                (disabled_reason = 'failing' AND disabled_at = now()) AS just_disabled`,
    [webhookId, disableAfter],
  );
  const r = rows[0];
  return (
    r && {
      consecutiveFailures: r.consecutive_failures,
      disabledAt: r.disabled_at,
      justDisabled: r.just_disabled,
    }
  );
}

/**
 * Erasure (common/lifecycles/erasure.ts): the events sent about the player (`$1`: their service id)
 * keep their id and type; one not yet sent is not sent.
 */
export const ERASE_DELIVERY_PAYLOADS = `UPDATE webhook_deliveries SET payload = jsonb_build_object('id', payload->'id', 'type', payload->'type',
              'createdAt', payload->'createdAt', 'data', jsonb_build_object('erased', true)),
            status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END,
            next_attempt_at = CASE WHEN status = 'pending' THEN NULL ELSE next_attempt_at END
      WHERE payload::text LIKE '%"' || $1::text || '"%'`;
