import { moderatorSecurity } from './openapi-security.js';
import { joiBody, joiQuery } from './contract.js';
import { pageQuery } from '../common/cursor.js';
import { muteSchema, resolutionSchema } from '../common/usecases/moderation.js';
import { rotateSecretSchema, webhookChangeSchema, webhookSchema } from '../common/usecases/webhooks.js';
import { auditQuery, caseQuery, sessionBody, statsQuery } from './routes/admin/schema.js';
import { MODERATOR_ROLES, OUTCOMES } from '../common/data/repos/moderation.js';
import { DELIVERY_EVENT_TYPES, EVENT_TYPES } from '../common/data/repos/webhooks.js';
import { SEVERITIES } from '../common/domain/reports.js';
import {
  allRequired,
  clientHeaders,
  closed,
  dateTime,
  json,
  offenseTypes,
  operationIdOf,
  page,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
  serviceIdParam,
} from './openapi-parts.js';

/** The moderator API, studio webhooks and operator views of the OpenAPI document. */

const bearer = moderatorSecurity;
const caseIdParam = {
  name: 'caseId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
/** What any call on one webhook may answer besides its own outcomes. */
const webhookErrors = {
  429: rateLimitedResponse,
  401: problem('Missing, unknown or wrong client credentials.'),
  404: problem("No such webhook (or delivery) of the caller's studio."),
  500: problem('Server error.'),
  503: problem('A backing service is unavailable; retry.'),
};
const webhookIdParam = {
  name: 'webhookId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
const moderatorErrors = {
  401: problem(
    'No, an invalid, an expired or a disabled moderator session token (WWW-Authenticate says which).',
  ),
  500: problem('Server error.'),
  503: problem('A backing service is unavailable; retry.'),
};
const caseAction = (summary: string, description: string, extra: Record<string, unknown> = {}) => ({
  post: {
    operationId: operationIdOf(summary),
    tags: ['moderation'],
    summary,
    description,
    security: bearer,
    parameters: [caseIdParam],
    ...extra,
    responses: {
      200: json(ref('ReviewCase'), 'The case after the action.'),
      ...('requestBody' in extra
        ? { 400: problem('Invalid body: outcome or note missing or malformed.') }
        : {}),
      404: problem('No such case.'),
      409: problem(
        'case_claimed (another moderator holds a live claim: claimedBy, claimExpiresAt), case_not_claimed, or case_resolved.',
      ),
      ...('requestBody' in extra ? { 415: problem('Body is not JSON.') } : {}),
      ...moderatorErrors,
    },
  },
});

const reporterAction = (summary: string, description: string) => ({
  post: {
    operationId: operationIdOf(summary),
    tags: ['moderation'],
    summary,
    description,
    security: bearer,
    parameters: [
      { name: 'studioId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'reporterId', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } },
    ],
    requestBody: joiBody(muteSchema),
    responses: {
      200: json(ref('Reporter'), 'The reporter after the action.'),
      400: problem('The note is missing or too long.'),
      404: problem('No such studio.'),
      415: problem('Body is not JSON.'),
      ...moderatorErrors,
    },
  },
});

export const moderationPaths = {
  '/v1/admin/session': {
    post: {
      operationId: 'moderatorSignIn',
      tags: ['moderation'],
      summary: 'Moderator sign-in: a short-lived session token',
      description:
        'Username and password of a moderator account (created with the admin tool). After 5 failures within 15 minutes on an account (50 from an address) each further one locks it for twice as long (429 with Retry-After).',
      requestBody: joiBody(sessionBody),
      responses: {
        200: json(ref('ModeratorSession'), 'Signed in.'),
        400: problem('username or password missing.'),
        401: problem('invalid_credentials: unknown username, wrong password, or a disabled account.'),
        415: problem('Body is not JSON.'),
        429: problem('too_many_attempts: locked for a while; Retry-After says how long.'),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  },
  '/v1/admin/cases': {
    get: {
      operationId: 'listCases',
      tags: ['moderation'],
      summary: 'The review queue',
      description:
        'Open cases by priority (highest first, then oldest); resolved cases newest first. A case whose priority changes while you page may move between pages.',
      security: bearer,
      parameters: joiQuery(caseQuery),
      responses: {
        200: json(page('ReviewCase'), 'One page of the queue.'),
        400: problem('A bad filter, limit or cursor.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/cases/{caseId}': {
    get: {
      operationId: 'getCase',
      tags: ['moderation'],
      summary: 'A case with its offenses (evidence and enrichment in full) and its audit trail',
      security: bearer,
      parameters: [caseIdParam],
      responses: {
        200: json(ref('ReviewCaseDetail'), 'The case.'),
        404: problem('No such case.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/cases/{caseId}/claim': caseAction(
    'Claim a case',
    'Takes the case for CASE_LEASE_SECONDS (15 minutes by default); claiming it again renews the lease. Another moderator cannot act on it while the lease lasts; after it expires anyone may claim it.',
  ),
  '/v1/admin/cases/{caseId}/release': caseAction(
    'Release a claim',
    'Gives the claim back. Only its holder may release it, or an admin.',
  ),
  '/v1/admin/cases/{caseId}/resolve': caseAction(
    'Resolve a case as upheld or dismissed',
    'Needs your live claim. In one transaction: every offense of the case gets reviewedByAdmin, resolved and resolvedAt; upholding applies the points held for the case (in the order the reports came, floored at 0; trust history reason held_released); a dismissal gives back the points those offenses actually deducted (the score never above 100; reason dismissal) and drops the held ones; each named reporter gets the outcome counted for its credibility; the audit log records the trust score before and after. Of two conflicting resolutions one wins; the other gets 409 case_resolved.',
    {
      requestBody: joiBody(resolutionSchema),
    },
  ),
  '/v1/admin/studios/{studioId}/reporters/{reporterId}/mute': reporterAction(
    'Mute a reporter',
    "A muted reporter's reports (a reporterId of that studio) are still stored but never take points, hold none and open no case. Audited.",
  ),
  '/v1/admin/studios/{studioId}/reporters/{reporterId}/unmute': reporterAction(
    'Unmute a reporter',
    'Its later reports count again. Audited.',
  ),
  '/v1/admin/console-session': {
    post: {
      operationId: 'consoleSignIn',
      tags: ['moderation'],
      summary: 'Sign in to the moderator console: an HttpOnly session cookie',
      description:
        'Sets pt_console (HttpOnly, SameSite=Strict, Secure over https). Writes with the cookie must send the csrfToken of this answer in X-CSRF-Token. The session ends after CONSOLE_IDLE_TIMEOUT_SECONDS without a request, or CONSOLE_SESSION_MAX_SECONDS after sign-in. The same lockout as POST /v1/admin/session.',
      requestBody: joiBody(sessionBody),
      responses: {
        201: json(ref('ConsoleSession'), 'Signed in.'),
        400: problem('No username or password.'),
        401: problem('invalid_credentials.'),
        415: problem('Body is not JSON.'),
        429: {
          ...problem('too_many_attempts: the account or address is locked; Retry-After says when.'),
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
        },
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
    get: {
      operationId: 'consoleSession',
      tags: ['moderation'],
      summary: "The console session's moderator and CSRF token",
      security: [{ consoleSession: [] }],
      responses: {
        200: json(ref('ConsoleSession'), 'Signed in.'),
        204: { description: 'No console session cookie: not signed in (a first visit).' },
        401: problem(
          'The session cookie no longer opens a session: it expired (idle or absolute) or was signed out.',
        ),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
    delete: {
      operationId: 'consoleSignOut',
      tags: ['moderation'],
      summary: 'Sign out of the console (X-CSRF-Token required)',
      security: [{ consoleSession: [] }],
      responses: {
        204: { description: 'Signed out; the cookie is cleared.' },
        401: problem('No live session.'),
        403: problem('csrf_failed: no or a wrong X-CSRF-Token.'),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  },
  '/console': {
    get: {
      operationId: 'console',
      tags: ['moderation'],
      summary: 'The moderator console (a single-page app; every /console/... path serves it)',
      responses: {
        200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        503: problem('console_not_built: run npm run build.'),
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'apiReference',
      tags: ['operations'],
      summary: 'This document rendered for reading (Swagger UI, served from here)',
      responses: {
        200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
  },
  '/favicon.ico': {
    get: {
      operationId: 'favicon',
      tags: ['operations'],
      summary: "The service's icon (SVG), for the pages' browser tabs",
      responses: {
        200: { description: 'The icon.', content: { 'image/svg+xml': { schema: { type: 'string' } } } },
      },
    },
  },
  '/': {
    get: {
      operationId: 'landing',
      tags: ['operations'],
      summary: 'Where to go: the API reference, the console and this document',
      responses: {
        200: {
          description: 'A small page for a browser (Accept: text/html), JSON otherwise.',
          content: {
            'application/json': {
              schema: closed({
                name: { type: 'string' },
                docs: { type: 'string' },
                console: { type: 'string' },
                openapi: { type: 'string' },
              }),
            },
            'text/html': { schema: { type: 'string' } },
          },
        },
      },
    },
  },
  '/v1/admin/queue-counts': {
    get: {
      operationId: 'queueCounts',
      tags: ['moderation'],
      summary: "The counts on the queue's tabs: open and overdue cases, open appeals, cases resolved in 24 h",
      security: bearer,
      responses: {
        200: json(
          closed({
            open: { type: 'integer' },
            overdue: { type: 'integer' },
            appeals: { type: 'integer' },
            resolved24h: { type: 'integer' },
          }),
          'The counts.',
        ),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/players/{serviceId}': {
    get: {
      operationId: 'moderatorPlayerView',
      tags: ['moderation'],
      summary:
        'A player as a moderator sees them: score, strikes, trust history, offenses, cases, sanctions and appeals',
      description:
        'The trust history holds the newest 200 changes, offenses, sanctions and appeals the newest 50 each, newest first; cases are the open ones by priority (at most 50), then the newest 50 resolved. Offenses are in full whichever studio filed them.',
      security: bearer,
      parameters: [serviceIdParam],
      responses: {
        200: json(
          closed({
            player: closed({
              serviceId: { type: 'string' },
              gamerTag: { type: 'string' },
              fullName: { type: 'string' },
              trustScore: { type: 'integer' },
              isKycVerified: { type: 'boolean' },
              createdAt: dateTime,
            }),
            activeStrikes: { type: 'integer' },
            trustHistory: { type: 'array', items: ref('TrustChange') },
            offenses: { type: 'array', items: ref('Reportoffense') },
            cases: {
              type: 'array',
              items: ref('ReviewCase'),
              description: 'Open ones by priority, then resolved ones, newest first.',
            },
            sanctions: { type: 'array', items: ref('Sanction') },
            appeals: { type: 'array', items: ref('Appeal') },
          }),
          'The player.',
        ),
        404: problem('Unknown player.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/stats': {
    get: {
      operationId: 'reviewStats',
      tags: ['moderation'],
      summary:
        "The review team's figures: open and overdue cases, and per day inbound, resolved and median handling time",
      security: bearer,
      parameters: joiQuery(statsQuery),
      responses: {
        200: json(
          closed({
            open: { type: 'integer' },
            overdue: { type: 'integer' },
            days: {
              type: 'array',
              description: 'Newest first, UTC days.',
              items: closed({
                date: { type: 'string', format: 'date' },
                inbound: { type: 'integer', description: 'Cases opened that day.' },
                resolved: { type: 'integer', description: 'Cases resolved that day.' },
                medianHandlingSeconds: {
                  type: ['integer', 'null'],
                  description: 'Median time from opening to resolution of the cases resolved that day.',
                },
              }),
            },
          }),
          'The figures.',
        ),
        400: problem('A bad days.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/audit': {
    get: {
      operationId: 'listAudit',
      tags: ['moderation'],
      summary: 'The moderation audit log, newest first (admins)',
      security: bearer,
      parameters: joiQuery(auditQuery),
      responses: {
        200: json(page('AuditEntry'), 'One page.'),
        400: problem('A bad filter, limit or cursor.'),
        403: problem('forbidden: the admin role is needed.'),
        ...moderatorErrors,
      },
    },
  },
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
      parameters: [
        webhookIdParam,
        { name: 'deliveryId', in: 'path', required: true, schema: { type: 'string' } },
        ...clientHeaders,
      ],
      responses: {
        202: rateLimited(json(ref('WebhookDelivery'), 'Queued.')),
        409: problem('delivery_pending (it is still being attempted) or webhook_disabled.'),
        ...webhookErrors,
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      tags: ['operations'],
      summary: 'Prometheus metrics of this API process',
      description:
        'Requests by method, route and status with latency histograms, queue depths by state, outbox backlog. With METRICS_TOKEN set, send Authorization: Bearer <token>.',
      responses: {
        200: {
          description: 'Prometheus text format.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        401: problem('METRICS_TOKEN is set and the request does not carry it.'),
      },
    },
  },
} as const;

const claim = {
  ...closed({ moderatorId: { type: 'string' }, username: { type: 'string' }, expiresAt: dateTime }),
  type: ['object', 'null'],
  description: 'The live claim; null when unclaimed or the lease ran out.',
};
const resolution = {
  ...closed({
    outcome: { enum: [...OUTCOMES] },
    note: { type: 'string' },
    moderatorId: { type: 'string' },
    username: { type: 'string' },
    resolvedAt: dateTime,
    pointsRestored: { type: 'integer', minimum: 0 },
  }),
  type: ['object', 'null'],
};
const caseProperties = {
  id: { type: 'string' },
  player: closed({
    serviceId: { type: 'string' },
    gamerTag: { type: 'string' },
    trustScore: { type: 'integer', minimum: 0, maximum: 100 },
  }),
  type: { enum: offenseTypes },
  status: { enum: ['open', 'resolved'] },
  priority: {
    type: 'number',
    description:
      "25 x severity rank (low 0 .. critical 3) + 10 x highest confidence + 5 x distinct games (at most 5) + 3 x distinct reporters (at most 5) + 2 x the player's offenses before the case's first report (at most 10) + half the points held for the case (at most 25).",
  },
  reportsCount: { type: 'integer' },
  highestSeverity: { enum: [...SEVERITIES] },
  totalPenalty: { type: 'integer', description: 'Points the offenses of the case deducted.' },
  distinctGames: { type: 'integer' },
  distinctReporters: { type: 'integer' },
  dueAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the case should be reviewed by: opened + CASE_DUE_HOURS of its highest severity.',
  },
  overdue: { type: 'boolean', description: 'Open and past dueAt.' },
  heldPoints: {
    type: 'integer',
    description: "Points the case's reports hold for a moderator: applied if upheld, dropped if dismissed.",
  },
  openedAt: dateTime,
  updatedAt: dateTime,
  claim,
  resolution,
};
const webhookProperties = {
  id: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'array', items: { enum: [...EVENT_TYPES] } },
  enabled: { type: 'boolean' },
  disabledAt: { type: ['string', 'null'], format: 'date-time' },
  disabledReason: {
    enum: ['studio', 'failing', null],
    description:
      'studio: turned off with PATCH; failing: disabled automatically after WEBHOOK_DISABLE_AFTER_FAILURES deliveries in a row failed for the whole retry window.',
  },
  consecutiveFailures: { type: 'integer', description: 'Deliveries in a row that failed for good.' },
  previousSecretExpiresAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'While a rotated-out secret is still signed with (the overlap), when it stops.',
  },
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const moderationSchemas = {
  ModeratorSession: closed({
    access_token: { type: 'string' },
    token_type: { const: 'Bearer' },
    expires_in: { type: 'integer' },
    moderator: closed({
      id: { type: 'string' },
      username: { type: 'string' },
      displayName: { type: 'string' },
      role: { enum: [...MODERATOR_ROLES] },
    }),
  }),
  ConsoleSession: closed({
    moderator: closed({
      id: { type: 'string' },
      username: { type: 'string' },
      displayName: { type: 'string' },
      role: { enum: [...MODERATOR_ROLES] },
    }),
    csrfToken: { type: 'string', description: 'Send it in X-CSRF-Token with every write.' },
    idleTimeoutSeconds: { type: 'integer' },
  }),
  ReviewCase: closed(caseProperties),
  ReviewCaseDetail: closed({
    ...caseProperties,
    offenses: { type: 'array', items: ref('Reportoffense') },
    reporters: {
      type: 'array',
      items: ref('Reporter'),
      description: "The named reporters of the case's offenses, with their credibility and mute state.",
    },
    audit: { type: 'array', items: ref('AuditEntry'), description: 'Newest first (the latest 100).' },
  }),
  AuditEntry: closed({
    id: { type: 'string' },
    moderator: {
      ...closed({ id: { type: 'string' }, username: { type: 'string' } }),
      type: ['object', 'null'],
      description: 'null when a studio acted (its own sanctions): see studioId.',
    },
    studioId: { type: ['string', 'null'] },
    caseId: { type: ['string', 'null'], description: 'null for actions outside a case (muting a reporter).' },
    action: {
      enum: [
        'claim',
        'release',
        'resolve',
        'mute_reporter',
        'unmute_reporter',
        'place_sanction',
        'revoke_sanction',
        'claim_appeal',
        'decide_appeal',
        'release_appeal',
      ],
    },
    outcome: { enum: [...OUTCOMES, null] },
    note: { type: ['string', 'null'] },
    trustScoreBefore: { type: ['integer', 'null'] },
    trustScoreAfter: { type: ['integer', 'null'] },
    details: { type: 'object' },
    createdAt: dateTime,
  }),
  Reporter: closed({
    studioId: { type: 'string' },
    reporterId: { type: 'string' },
    upheld: { type: 'integer', description: 'Its reports in cases resolved as upheld.' },
    dismissed: { type: 'integer', description: 'Its reports in cases resolved as dismissed.' },
    credibility: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: '(upheld + 1) / (upheld + dismissed + 2).',
    },
    muted: { type: 'boolean' },
    mutedAt: { type: ['string', 'null'], format: 'date-time' },
    muteNote: { type: ['string', 'null'] },
  }),
  Webhook: closed(webhookProperties),
  WebhookWithSecret: closed({
    ...webhookProperties,
    secret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      description:
        'Signing secret (Standard Webhooks: whsec_<base64>), shown once. Each delivery carries webhook-id, webhook-timestamp and webhook-signature: v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with the base64-decoded secret>.',
    },
  }),
  WebhookDelivery: closed({
    id: { type: 'string' },
    eventId: { type: 'string' },
    eventType: { enum: [...DELIVERY_EVENT_TYPES] },
    status: { enum: ['pending', 'delivered', 'failed', 'cancelled'] },
    attempts: { type: 'integer' },
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
    createdAt: dateTime,
    lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    nextAttemptAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the next attempt is due, while the delivery is pending after a failed attempt.',
    },
    deliveredAt: { type: ['string', 'null'], format: 'date-time' },
    redeliveryOf: {
      type: ['string', 'null'],
      description: 'The delivery this one sends again (a redelivery), or null.',
    },
  }),
  Enrichment: {
    description: 'What the enrichment worker found, on each stored evidence item once it has run.',
    oneOf: [
      allRequired({
        kind: { const: 'text' },
        chars: { type: 'integer' },
        lines: { type: 'integer' },
        sha256: { type: 'string' },
        truncated: { type: 'boolean' },
        enrichedAt: dateTime,
      }),
      allRequired({
        kind: { const: 'url' },
        reachable: { type: 'boolean' },
        status: { type: ['integer', 'null'] },
        contentType: { type: ['string', 'null'] },
        bytes: { type: ['integer', 'null'], description: 'Bytes read (at most EVIDENCE_FETCH_MAX_BYTES).' },
        truncated: { type: 'boolean' },
        sha256: { type: ['string', 'null'], description: 'Of the bytes read.' },
        finalUrl: { type: ['string', 'null'], description: 'After redirects (at most 3).' },
        error: {
          type: ['object', 'null'],
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
        attempts: { type: 'integer' },
        enrichedAt: dateTime,
      }),
    ],
  },
} as const;
