import { pathParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import {
  clientHeaders,
  json,
  page,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
} from '../../openapi-parts.js';
import { pageQuery } from '../../../common/cursor.js';
import { rotateSecretSchema, webhookChangeSchema, webhookSchema } from '../../../common/usecases/webhooks.js';

/** The OpenAPI operations of the webhooks routes (routes.ts beside it); api/openapi.ts assembles them. */
/** What any call on one webhook may answer besides its own outcomes. */
const webhookErrors = {
  429: rateLimitedResponse,
  401: problem('Missing, unknown or wrong client credentials.'),
  404: problem("No such webhook (or delivery) of the caller's studio."),
  500: problem('Server error.'),
  503: problem('A backing service is unavailable; retry.'),
} as const;

const webhookIdParam = pathParam('webhookId');

export const paths = {
  '/v1/webhooks': {
    post: {
      operationId: 'registerWebhook',
      tags: ['webhooks'],
      summary: "Register a webhook for the caller's studio",
      description:
        'https only (http only to an address on OUTBOUND_ALLOWLIST). The signing secret is in this answer only. At most 10 per studio.',
      parameters: clientHeaders,
      requestBody: joiBody(webhookSchema),
      responses: {
        201: rateLimited(json(ref('WebhookWithSecret'), 'Registered.')),
        429: rateLimitedResponse,
        400: problem('A bad URL (not https, private or reserved address, credentials) or an unknown event.'),
        401: problem('Missing, unknown or wrong client credentials.'),
        409: problem('webhook_limit_reached.'),
        415: problem('Body is not JSON.'),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
    get: {
      operationId: 'listWebhooks',
      tags: ['webhooks'],
      summary: "The studio's webhooks",
      parameters: clientHeaders,
      responses: {
        200: rateLimited(
          json(
            {
              type: 'object',
              additionalProperties: false,
              required: ['items'],
              properties: { items: { type: 'array', items: ref('Webhook') } },
            },
            'The webhooks.',
          ),
        ),
        429: rateLimitedResponse,
        401: problem('Missing, unknown or wrong client credentials.'),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  },
  '/v1/webhooks/{webhookId}': {
    get: {
      operationId: 'getWebhook',
      tags: ['webhooks'],
      summary: 'One webhook of the studio (without its secret)',
      parameters: [webhookIdParam, ...clientHeaders],
      responses: {
        200: rateLimited(json(ref('Webhook'), 'The webhook.')),
        ...webhookErrors,
      },
    },
    patch: {
      operationId: 'changeWebhook',
      tags: ['webhooks'],
      summary: "Change a webhook's URL, events or enabled state",
      description:
        'Only the fields given change. `enabled: false` stops its deliveries (pending ones are cancelled); `enabled: true` turns it back on after the studio or the automatic disable turned it off, and starts its failure count afresh.',
      parameters: [webhookIdParam, ...clientHeaders],
      requestBody: joiBody(webhookChangeSchema),
      responses: {
        200: rateLimited(json(ref('Webhook'), 'The webhook as changed.')),
        400: problem('No field, a bad URL or an unknown event.'),
        415: problem('Body is not JSON.'),
        ...webhookErrors,
      },
    },
    delete: {
      operationId: 'deleteWebhook',
      tags: ['webhooks'],
      summary: 'Delete a webhook: nothing more is delivered to it and its pending deliveries are cancelled',
      parameters: [webhookIdParam, ...clientHeaders],
      responses: {
        204: rateLimited({ description: 'Deleted.' }),
        ...webhookErrors,
      },
    },
  },
  '/v1/webhooks/{webhookId}/rotate-secret': {
    post: {
      operationId: 'rotateWebhookSecret',
      tags: ['webhooks'],
      summary: 'Rotate the signing secret, keeping the old one in use for an overlap',
      description:
        'The new secret is in this answer only. Until previousSecretExpiresAt every delivery carries two signatures in webhook-signature (one per secret), so receivers can switch at their own pace. Rotating during an overlap ends the older secret at once.',
      parameters: [webhookIdParam, ...clientHeaders],
      requestBody: joiBody(rotateSecretSchema, { required: false }),
      responses: {
        200: rateLimited(json(ref('WebhookWithSecret'), 'Rotated.')),
        400: problem('A bad overlapSeconds.'),
        ...webhookErrors,
      },
    },
  },
  '/v1/webhooks/{webhookId}/test': {
    post: {
      operationId: 'sendWebhookTestEvent',
      tags: ['webhooks'],
      summary: 'Send a webhook.test event to this webhook alone',
      description: 'Delivered like any event (signed, retried), whatever events the webhook subscribes to.',
      parameters: [webhookIdParam, ...clientHeaders],
      responses: {
        202: rateLimited(json(ref('WebhookDelivery'), 'Queued: the delivery log shows how it went.')),
        409: problem('webhook_disabled: enable the webhook first.'),
        ...webhookErrors,
      },
    },
  },
  '/v1/webhooks/{webhookId}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries',
      tags: ['webhooks'],
      summary: 'The delivery log of a webhook, newest first',
      parameters: [webhookIdParam, ...clientHeaders, ...joiQuery(pageQuery)],
      responses: {
        200: rateLimited(json(page('WebhookDelivery'), 'One page.')),
        400: problem('Bad limit or cursor.'),
        ...webhookErrors,
      },
    },
  },
  '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': {
    post: {
      operationId: 'redeliverWebhookDelivery',
      tags: ['webhooks'],
      summary: 'Send a finished delivery again',
      description:
        'A new delivery (with its own attempts, redeliveryOf naming the first) of the same event id and payload: webhook-id is the same, so a receiver that de-duplicates handles it once.',
      parameters: [webhookIdParam, pathParam('deliveryId'), ...clientHeaders],
      responses: {
        202: rateLimited(json(ref('WebhookDelivery'), 'Queued.')),
        409: problem('delivery_pending (it is still being attempted) or webhook_disabled.'),
        ...webhookErrors,
      },
    },
  },
};
