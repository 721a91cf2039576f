import net from 'node:net';
import Joi from 'joi';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import {
  countWebhooks,
  EVENT_TYPES,
  findDelivery,
  findWebhook,
  insertWebhook,
  rotateWebhookSecret,
  updateWebhook,
  type DeliveryRecord,
  type EventType,
  type WebhookRecord,
} from '../data/repos/webhooks.js';
import type { OutboxRow } from '../queues/outbox.js';
import { insertDelivery, resetBreaker } from '../lifecycles/webhook-delivery.js';
import { isUuid } from '../domain/ids.js';
import { AppError, notFound, validationError } from '../errors.js';
import { check } from '../validation.js';
import type { AddressPolicy } from '../net/addresses.js';
import { generateWebhookSecret, sealWebhookSecret } from '../security/webhook-secrets.js';
import { lockStudio } from '../data/repos/accounts.js';

export const MAX_WEBHOOKS_PER_STUDIO = 10;

/** localhost, any name under .localhost, with or without the root's trailing dot, any case. */
const LOCAL_ONLY_NAME = /(^|\.)localhost\.?$/i;

const url = Joi.string()
  .uri({ scheme: ['https', 'http'] })
  .max(2048)
  // The converter reads .uri() as format uri, whatever the schemes: the document names them.
  .meta({ 'x-also': { pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' } });
const events = Joi.array()
  .items(Joi.string().valid(...EVENT_TYPES))
  .min(1)
  .unique()
  .description('Default: every event.');
export const webhookSchema = Joi.object({ url: url.required(), events: events.default([...EVENT_TYPES]) });
export const webhookChangeSchema = Joi.object({ url, events, enabled: Joi.boolean() })
  .min(1)
  .messages({ 'object.min': 'give at least one of url, events, enabled' })
  // The converter drops an object's .min(): the document states it here.
  .meta({ 'x-also': { minProperties: 1 } });

/** Longest overlap of a rotated secret: a week, enough for a slow deploy of the studio's receivers. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;
export const rotateSecretSchema = Joi.object({
  overlapSeconds: Joi.number()
    .integer()
    .min(0)
    .max(MAX_ROTATION_OVERLAP_SECONDS)
    .default(DEFAULT_ROTATION_OVERLAP_SECONDS),
});

/**
 * Checks what can be checked when a webhook is registered: https (http only to an address on the
 * outbound allow-list, for local testing), no credentials or fragment, and no literal address the
 * policy refuses. Names are resolved and checked again at every delivery, where it counts.
 */
function urlProblem(text: string, policy: AddressPolicy): string | undefined {
  const url = new URL(text);
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not contain a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Names that can only ever be this machine (RFC 6761): no need to resolve them to know.
  if (LOCAL_ONLY_NAME.test(host)) return 'must not point at a local-only name (localhost)';
  const literal = net.isIP(host) !== 0;
  if (literal) {
    const refused = policy.refusal(host);
    if (refused)
      return `must not point at a private or reserved address (${refused}); an operator may allow it with OUTBOUND_ALLOWLIST`;
  }
  if (url.protocol === 'http:' && !(literal && policy.allowsPrivate(host))) return 'must use https';
  return undefined;
}

export async function registerWebhook(
  pool: Pool,
  pepper: string,
  policy: AddressPolicy,
  studioId: string,
  input: unknown,
): Promise<{ webhook: WebhookRecord; secret: string }> {
  const v = check<{ url: string; events: EventType[] }>(webhookSchema, input);
  const problem = urlProblem(v.url, policy);
  if (problem) throw validationError([{ field: 'url', message: problem }]);
  const secret = generateWebhookSecret();
  // The studio's row lock makes concurrent registrations count one after another.
  const hook = await withTransaction(pool, async (client) => {
    if (!(await lockStudio(client, studioId))) throw notFound(`Studio ${studioId}`);
    if ((await countWebhooks(client, studioId)) >= MAX_WEBHOOKS_PER_STUDIO)
      throw new AppError(
        409,
        'webhook_limit_reached',
        `A studio may have at most ${MAX_WEBHOOKS_PER_STUDIO} webhooks; delete one first.`,
      );
    return insertWebhook(client, {
      studioId,
      url: v.url,
      events: v.events,
      sealedSecret: sealWebhookSecret(secret, pepper),
    });
  });
  return { webhook: hook, secret };
}

/**
 * The studio's webhook `id` (locked for a change with `forUpdate`), or 404: a malformed id, a
 * deleted webhook and another studio's webhook are all not found.
 */
export async function ownWebhook(
  db: Queryable,
  studioId: string,
  id: string,
  forUpdate = false,
): Promise<WebhookRecord> {
  const hook = isUuid(id) ? await findWebhook(db, studioId, id, forUpdate) : undefined;
  if (!hook) throw notFound(`Webhook ${id}`);
  return hook;
}

/**
 * Changes a webhook's URL, events or enabled state. Enabling it again (after the studio or the
 * automatic disable turned it off) starts the failure count afresh; deliveries cancelled while it
 * was disabled stay cancelled (redeliver them one by one).
 */
export async function changeWebhook(
  pool: Pool,
  policy: AddressPolicy,
  studioId: string,
  id: string,
  input: unknown,
): Promise<WebhookRecord> {
  const v = check<{ url?: string; events?: EventType[]; enabled?: boolean }>(webhookChangeSchema, input);
  if (v.url !== undefined) {
    const problem = urlProblem(v.url, policy);
    if (problem) throw validationError([{ field: 'url', message: problem }]);
  }
  return withTransaction(pool, async (client) => {
    const hook = await ownWebhook(client, studioId, id, true);
    if (v.enabled === true) await resetBreaker(client, hook.id);
    return updateWebhook(client, hook.id, v);
  });
}

/**
 * A new signing secret, shown once. The old one stays in use for `overlapSeconds` (a day by
 * default): every delivery meanwhile carries both signatures, so receivers switch at their own pace.
 * A rotation during an overlap ends the older secret at once (at most two secrets are ever in use).
 */
export async function rotateSecret(
  pool: Pool,
  pepper: string,
  studioId: string,
  id: string,
  input: unknown,
): Promise<{ webhook: WebhookRecord; secret: string }> {
  const v = check<{ overlapSeconds: number }>(rotateSecretSchema, input);
  const secret = generateWebhookSecret();
  const webhook = await withTransaction(pool, async (client) => {
    const hook = await ownWebhook(client, studioId, id, true);
    return rotateWebhookSecret(client, hook.id, sealWebhookSecret(secret, pepper), v.overlapSeconds);
  });
  return { webhook, secret };
}

const webhookDisabled = (hook: WebhookRecord) =>
  new AppError(
    409,
    'webhook_disabled',
    `Webhook ${hook.id} is disabled (${hook.disabledReason === 'failing' ? 'its deliveries kept failing' : 'by the studio'}); enable it with PATCH first.`,
  );

/** Sends `webhook.test` to this webhook alone, whatever it subscribes to. */
export async function sendTestEvent(
  pool: Pool,
  studioId: string,
  id: string,
): Promise<{ delivery: DeliveryRecord; outbox: OutboxRow }> {
  return withTransaction(pool, async (client) => {
    const hook = await ownWebhook(client, studioId, id, true);
    if (!hook.enabled) throw webhookDisabled(hook);
    return insertDelivery(client, {
      webhookId: hook.id,
      test: { data: { webhookId: hook.id, message: 'A test event from player-trust.' }, now: new Date() },
    });
  });
}

/**
 * Sends a finished delivery's event again, as a new delivery (with its own attempts) of the same
 * event id and payload: a receiver that de-duplicates on `webhook-id` handles it once.
 */
export async function redeliver(
  pool: Pool,
  studioId: string,
  id: string,
  deliveryId: string,
): Promise<{ delivery: DeliveryRecord; outbox: OutboxRow }> {
  return withTransaction(pool, async (client) => {
    const hook = await ownWebhook(client, studioId, id, true);
    const original = isUuid(deliveryId) ? await findDelivery(client, hook.id, deliveryId) : undefined;
    if (!original) throw notFound(`Delivery ${deliveryId}`);
    if (!hook.enabled) throw webhookDisabled(hook);
    if (original.status === 'pending')
      throw new AppError(
        409,
        'delivery_pending',
        `Delivery ${deliveryId} is still being attempted (next attempt ${original.nextAttemptAt?.toISOString() ?? 'soon'}).`,
      );
    return insertDelivery(client, { webhookId: hook.id, redeliveryOf: original.id });
  });
}
