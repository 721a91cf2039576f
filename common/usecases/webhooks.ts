import net from 'node:net';
import Joi from 'joi';
import { withTransaction, type Pool } from '../data/db.js';
import { countActiveWebhooks, EVENT_TYPES, insertWebhook, type EventType } from '../data/repos/webhooks.js';
import { isUuid } from '../data/repos/accounts.js';
import { AppError, notFound, validationError } from '../errors.js';
import { check } from '../validation.js';
import type { AddressPolicy } from '../net/addresses.js';
import { generateWebhookSecret, sealWebhookSecret } from '../security/webhook-secrets.js';

export const MAX_WEBHOOKS_PER_STUDIO = 10;

/** localhost, any name under .localhost, with or without the root's trailing dot, any case. */
const LOCAL_ONLY_NAME = /(^|\.)localhost\.?$/i;

const schema = Joi.object({
  url: Joi.string()
    .uri({ scheme: ['https', 'http'] })
    .max(2048)
    .required(),
  events: Joi.array()
    .items(Joi.string().valid(...EVENT_TYPES))
    .min(1)
    .unique()
    .default([...EVENT_TYPES]),
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
    if (refused) return `must not point at a private or reserved address (${refused})`;
  }
  if (url.protocol === 'http:' && !(literal && policy.allowsPrivate(host))) return 'must use https';
  return undefined;
}

export interface RegisteredWebhook {
  id: string;
  url: string;
  events: EventType[];
  /** Shown once: the studio verifies signatures with it. */
  secret: string;
  createdAt: string;
}

export async function registerWebhook(
  pool: Pool,
  pepper: string,
  policy: AddressPolicy,
  studioId: string,
  input: unknown,
): Promise<RegisteredWebhook> {
  const v = check<{ url: string; events: EventType[] }>(schema, input);
  const problem = urlProblem(v.url, policy);
  if (problem) throw validationError([{ field: 'url', message: problem }]);
  const secret = generateWebhookSecret();
  // The studio's row lock makes concurrent registrations count one after another.
  const hook = await withTransaction(pool, async (client) => {
    const studio = isUuid(studioId)
      ? await client.query('SELECT 1 FROM studios WHERE id = $1 FOR UPDATE', [studioId])
      : undefined;
    if (!studio?.rowCount) throw notFound(`Studio ${studioId}`);
    if ((await countActiveWebhooks(client, studioId)) >= MAX_WEBHOOKS_PER_STUDIO)
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
  return { id: hook.id, url: hook.url, events: hook.events, secret, createdAt: hook.createdAt.toISOString() };
}
