import { UnrecoverableError, type Job } from 'bullmq';
import { withTransaction } from '../../common/data/db.js';
import { isUuid } from '../../common/domain/ids.js';
import {
  emitEvents,
  recordAttempt,
  recordBreaker,
  recordCancelled,
  recordDeliveryFailed,
} from '../../common/lifecycles/webhook-delivery.js';
import { AddressPolicy } from '../../common/net/addresses.js';
import { OutboundError, safeFetch } from '../../common/net/safe-fetch.js';
import { webhookRetryDelay, webhookRetryOf, type WebhookJobData } from '../../common/queues/index.js';
import { openWebhookSecret, standardWebhookHeaders } from '../../common/security/webhook-secrets.js';
import { putBack, type ProcessorDeps } from '../run.js';

export function parseWebhookJob(job: Job): WebhookJobData {
  const data = job.data as Partial<WebhookJobData> | undefined;
  if (!data || typeof data.deliveryId !== 'string' || !isUuid(data.deliveryId))
    throw new UnrecoverableError(`job ${job.id} has no valid deliveryId`);
  return {
    deliveryId: data.deliveryId,
    ...(typeof data.webhookId === 'string' && isUuid(data.webhookId) ? { webhookId: data.webhookId } : {}),
  };
}

/**
 * Each endpoint's lane in this process: how many attempts to it are under way. An endpoint with
 * `limit` attempts in flight takes no more of the worker's slots; its next deliveries wait a moment
 * and come back, so a slow or silent endpoint holds at most `limit` slots of a worker, never all.
 */
export class EndpointLanes {
  private readonly inFlight = new Map<string, number>();
  constructor(private readonly limit: number) {}
  /** Takes a place in the endpoint's lane; false when the lane is full. */
  take(webhookId: string): boolean {
    const n = this.inFlight.get(webhookId) ?? 0;
    if (n >= this.limit) return false;
    this.inFlight.set(webhookId, n + 1);
    return true;
  }
  full(webhookId: string): boolean {
    return (this.inFlight.get(webhookId) ?? 0) >= this.limit;
  }
  release(webhookId: string): void {
    const n = (this.inFlight.get(webhookId) ?? 1) - 1;
    if (n > 0) this.inFlight.set(webhookId, n);
    else this.inFlight.delete(webhookId);
  }
}

/** How much longer each parking lasts than the one before (2^parks, up to 32 times the first). */

interface DeliveryTarget {
  status: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  webhook_id: string;
  studio_id: string;
  url: string;
  secret_ciphertext: Buffer;
  /** The secret before a rotation, while its overlap lasts. */
  previous_secret_ciphertext: Buffer | null;
  active: boolean;
  /** While the endpoint is parked: until when. */
  parked_until: Date | null;
  /** When the event was recorded (the delivery created): for the delivery time. */
  created_at: Date;
}

/**
 * Delivers one webhook event as Standard Webhooks has it: a JSON POST with `webhook-id` (the event
 * id, the same on every attempt and redelivery), `webhook-timestamp` and `webhook-signature` (one
 * `v1,<base64 HMAC-SHA256>` per secret in use: two during a rotation's overlap), through safeFetch
 * (the same address checks as evidence; redirects are not followed). A 2xx marks the delivery
 * delivered. Anything else is logged on the delivery with its next attempt and retried on the
 * webhook schedule for the retry window; a refused address or an unusable URL fails it at once. A
 * webhook whose deliveries failed for good WEBHOOK_DISABLE_AFTER_FAILURES times in a row is disabled,
 * and the studio's other webhooks hear of it (`webhook.disabled`).
 *
 * Fair between endpoints: each has a lane of WEBHOOK_ENDPOINT_CONCURRENCY attempts at once in this
 * process (EndpointLanes), and after WEBHOOK_BREAKER_FAILURES failed attempts in a row it is parked
 * for WEBHOOK_BREAKER_COOLDOWN_MS, twice as long each time it fails again, until an attempt
 * succeeds. A delivery that finds its lane full or its endpoint parked goes back to wait (moved to
 * BullMQ's delayed set, which spends none of its attempts) and frees the slot for another endpoint.
 */
export const webhookProcessor = (deps: ProcessorDeps) => {
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  const retry = webhookRetryOf(deps.config);
  const lanes = new EndpointLanes(deps.config.webhookEndpointConcurrency);
  /** A short wait for a place in a full lane: up to a second, spread so the waiting do not return together. */
  const laneWait = () => Math.min(1000, deps.config.webhookTimeoutMs) * (0.5 + Math.random() / 2);
  return async (job: Job, token?: string) => {
    const { deliveryId, webhookId } = parseWebhookJob(job);
    if (webhookId && lanes.full(webhookId)) return putBack(job, token, Date.now() + laneWait());
    const { rows } = await deps.pool.query<DeliveryTarget>(
      `SELECT d.status, d.event_id, d.event_type, d.payload, d.created_at, w.id AS webhook_id, w.studio_id, w.url,
              w.secret_ciphertext,
              CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_ciphertext END
                AS previous_secret_ciphertext,
              w.deleted_at IS NULL AND w.enabled AS active,
              CASE WHEN w.parked_until > now() THEN w.parked_until END AS parked_until
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $1`,
      [deliveryId],
    );
    const delivery = rows[0];
    if (!delivery) throw new UnrecoverableError(`delivery ${deliveryId} does not exist`);
    if (delivery.status !== 'pending') return { deliveryId, status: delivery.status };
    if (!delivery.active) {
      await recordCancelled(deps.pool, deliveryId);
      return { deliveryId, status: 'cancelled' };
    }
    if (delivery.parked_until)
      // Back when the parking ends (the delivery log shows that time), a little spread.
      return putBack(job, token, delivery.parked_until.getTime() + Math.random() * 1000);
    if (!lanes.take(delivery.webhook_id)) return putBack(job, token, Date.now() + laneWait());
    try {
      return await attempt(job, deliveryId, delivery);
    } finally {
      lanes.release(delivery.webhook_id);
    }
  };

  async function attempt(job: Job, deliveryId: string, delivery: DeliveryTarget) {
    const body = JSON.stringify(delivery.payload);
    const secrets = [delivery.secret_ciphertext, delivery.previous_secret_ciphertext]
      .filter((s): s is Buffer => s !== null)
      .map((sealed) => openWebhookSecret(sealed, deps.pepper));
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    let statusCode: number | null = null;
    let failure: OutboundError | undefined;
    try {
      const res = await safeFetch({
        url: delivery.url,
        policy,
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          ...standardWebhookHeaders(secrets, delivery.event_id, body),
          'X-PlayerTrust-Event': delivery.event_type,
          'X-PlayerTrust-Delivery': deliveryId,
        },
        timeoutMs: deps.config.webhookTimeoutMs,
        maxBytes: 64 * 1024,
        maxRedirects: 0,
      });
      statusCode = res.status;
    } catch (err) {
      failure =
        err instanceof OutboundError ? err : new OutboundError('connection_failed', String(err), true);
    }

    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const permanent = failure !== undefined && !failure.transient;
    const status = ok ? 'delivered' : permanent || lastAttempt ? 'failed' : 'pending';
    const error = ok ? null : (failure?.message ?? `the endpoint answered ${statusCode}`);
    // BullMQ waits webhookRetryDelay(retry, attemptsMade) before the next attempt (worker/run.ts).
    const nextAttemptAt =
      status === 'pending' ? new Date(Date.now() + webhookRetryDelay(retry, job.attemptsMade + 1)) : null;
    let recorded = false;
    const outbox = await withTransaction(deps.pool, async (client) => {
      if (!(await recordAttempt(client, deliveryId, { status, statusCode, error, nextAttemptAt }))) return [];
      recorded = true;
      await recordBreaker(client, delivery.webhook_id, ok, {
        failures: deps.config.webhookBreakerFailures,
        cooldownMs: deps.config.webhookBreakerCooldownMs,
      });
      if (status === 'pending') return [];
      if (status === 'delivered') return [];
      const row = await recordDeliveryFailed(
        client,
        delivery.webhook_id,
        deps.config.webhookDisableAfterFailures,
      );
      if (!row?.justDisabled) return [];
      deps.log.warn(
        { webhookId: delivery.webhook_id, consecutiveFailures: row.consecutiveFailures },
        'webhook disabled: its deliveries kept failing',
      );
      const data = {
        webhookId: delivery.webhook_id,
        url: delivery.url,
        reason: 'failing',
        consecutiveFailures: row.consecutiveFailures,
        disabledAt: row.disabledAt!.toISOString(),
      };
      return emitEvents(client, [
        { type: 'webhook.disabled', dataByStudio: new Map([[delivery.studio_id, data]]) },
      ]);
    });
    deps.dispatch(outbox);
    // The service level "webhook delivery time": from the event to its delivery's final outcome.
    if (recorded && status !== 'pending')
      deps.metrics?.webhookDelivery.observe(
        { outcome: status },
        Math.max(0, Date.now() - delivery.created_at.getTime()) / 1000,
      );
    if (ok) return { deliveryId, status };
    if (permanent) throw new UnrecoverableError(`delivery ${deliveryId} cannot succeed: ${error}`);
    throw new Error(`delivery ${deliveryId} failed: ${error}`);
  }
};
