import { UnrecoverableError, type Job } from 'bullmq';
import { isUuid } from '../../common/data/repos/accounts.js';
import { AddressPolicy } from '../../common/net/addresses.js';
import { OutboundError, safeFetch } from '../../common/net/safe-fetch.js';
import type { WebhookJobData } from '../../common/queues/index.js';
import { openWebhookSecret, SIGNATURE_HEADER, signWebhook } from '../../common/security/webhook-secrets.js';
import type { ProcessorDeps } from '../run.js';

export function parseWebhookJob(job: Job): WebhookJobData {
  const data = job.data as Partial<WebhookJobData> | undefined;
  if (!data || typeof data.deliveryId !== 'string' || !isUuid(data.deliveryId))
    throw new UnrecoverableError(`job ${job.id} has no valid deliveryId`);
  return { deliveryId: data.deliveryId };
}

/**
 * Delivers one webhook event: a JSON POST signed with the studio's secret (SIGNATURE_HEADER: an
 * HMAC-SHA256 over the timestamp and the body), through safeFetch (the same address checks as
 * evidence; redirects are not followed). A 2xx marks the delivery delivered. Anything else is
 * logged on the delivery and retried on the webhook schedule for the retry window; a refused
 * address or an unusable URL fails it at once. Deliveries are at least once: receivers de-duplicate
 * on the event id, which the payload and a header carry.
 */
export const webhookProcessor = (deps: ProcessorDeps) => {
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  return async (job: Job) => {
    const { deliveryId } = parseWebhookJob(job);
    const { rows } = await deps.pool.query<{
      status: string;
      event_id: string;
      event_type: string;
      payload: unknown;
      url: string;
      secret_ciphertext: Buffer;
      disabled: boolean;
    }>(
      `SELECT d.status, d.event_id, d.event_type, d.payload, w.url, w.secret_ciphertext,
              w.disabled_at IS NOT NULL AS disabled
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $1`,
      [deliveryId],
    );
    const delivery = rows[0];
    if (!delivery) throw new UnrecoverableError(`delivery ${deliveryId} does not exist`);
    if (delivery.status !== 'pending') return { deliveryId, status: delivery.status };
    if (delivery.disabled) {
      await deps.pool.query(
        `UPDATE webhook_deliveries SET status = 'cancelled' WHERE id = $1 AND status = 'pending'`,
        [deliveryId],
      );
      return { deliveryId, status: 'cancelled' };
    }

    const body = JSON.stringify(delivery.payload);
    const secret = openWebhookSecret(delivery.secret_ciphertext, deps.pepper);
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
          [SIGNATURE_HEADER]: signWebhook(secret, body, Math.floor(Date.now() / 1000)),
          'X-PlayerTrust-Event': delivery.event_type,
          'X-PlayerTrust-Event-Id': delivery.event_id,
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
    await deps.pool.query(
      `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, last_status_code = $3,
              last_error = $4, last_attempt_at = now(), delivered_at = CASE WHEN $2 = 'delivered' THEN now() END
        WHERE id = $1 AND status = 'pending'`,
      [deliveryId, status, statusCode, error],
    );
    if (ok) return { deliveryId, status };
    if (permanent) throw new UnrecoverableError(`delivery ${deliveryId} cannot succeed: ${error}`);
    throw new Error(`delivery ${deliveryId} failed: ${error}`);
  };
};
