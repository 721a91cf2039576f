import { EVIDENCE_TYPES, LIMITS, SEVERITIES, SOURCES } from '../common/domain/reports.js';

import { joiBody, joiQuery, requestComponents } from './contract.js';
import { pageQuery } from '../common/cursor.js';
import { REPORT_ENVELOPES, type ReportKind } from '../common/domain/reports.js';
import { createPlayerSchema } from '../common/usecases/players.js';
import { batchSchema } from './routes/reports/schema.js';
import {
  clientHeaders,
  closed,
  dateTime,
  json,
  offenseTypes,
  page,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
  serviceIdParam,
  tooMany,
} from './openapi-parts.js';
import { moderationPaths, moderationSchemas } from './openapi-moderation.js';
import { finishDocument, playerSecurity, securitySchemes } from './openapi-security.js';
import { appealPaths, appealSchemas, sanctionPaths, sanctionSchemas } from './openapi-sanctions.js';
import { SANCTION_TYPES } from '../common/data/repos/sanctions.js';

/** The contract's version: the newest entry of CHANGELOG.md (a test holds them equal). */
export const CONTRACT_VERSION = '1.2.0';

/** An offense's context as stored (normalised at filing) and shown in its record. */
const contextProps = {
  matchId: { type: 'string', maxLength: LIMITS.contextId },
  reporterId: { type: 'string', maxLength: LIMITS.contextId },
  occurredAt: { ...dateTime, description: 'When it happened; not in the future.' },
  source: { type: 'string', description: `One of ${SOURCES.join(', ')}.` },
};

/** A report submission: its request rule is the kind's Joi envelope (common/domain/reports.ts). */
function reportOperation(kind: ReportKind, summary: string, bodySchema: string, cap: string) {
  return {
    post: {
      operationId: `submit${bodySchema.replace('Report', '')}Report`,
      tags: ['reports'],
      summary,
      description: `Normalises the report, stores it as an offense and lowers the player's trust score by the penalty rule of this kind (at most ${cap} by default) in one transaction. A report whose flag is false is stored with penalty 0.`,
      parameters: [
        serviceIdParam,
        ...clientHeaders,
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', maxLength: 255 },
          description:
            'Same key and body within 24 h replays the first response; another body gets 422; in flight gets 409.',
        },
      ],
      requestBody: joiBody(REPORT_ENVELOPES[kind]),
      responses: {
        201: rateLimited(
          json(
            ref('ReportSubmitResponse'),
            'Report stored; its points applied, held for a moderator (status held) or none (status recorded).',
          ),
        ),
        400: problem('Invalid body: the offending fields are listed in errors; nothing was stored.'),
        401: problem('Missing, unknown or wrong client credentials.'),
        404: problem('Unknown player; nothing was stored.'),
        409: problem(
          'idempotency_key_in_flight: a request with the same Idempotency-Key is still in flight; duplicate_report: the same reporter already reported this player for this kind in this match (24 h) or, without matchId, within the hour; offenseId names the stored one; nothing was stored again.',
        ),
        413: problem('Body too large.'),
        415: problem('Body is not JSON.'),
        422: problem('Idempotency-Key reused with a different body.'),
        429: tooMany(
          "rate_limited: over the client's report rate; reporter_quota_exceeded: the reporterId used up its reports for the day at this studio. Retry-After says when; nothing was stored.",
        ),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document, served at /v1/openapi.json. Every response the tests receive is checked
 * against it (test/integration/openapi.test.ts), so it cannot drift from the code unnoticed.
 */
const draft = {
  openapi: '3.1.0',
  info: {
    title: 'player-trust',
    // Moves with the contract (CHANGELOG.md): minor for additions, never a breaking change within /v1.
    version: CONTRACT_VERSION,
    description:
      'Trust profiles and misbehaviour reports for game studios. Errors are RFC 9457 problem documents with a stable code. Within /v1 nothing a client relies on is removed or changes meaning; an operation to be removed is first marked deprecated (deprecated: true here; Deprecation and Sunset headers on its answers) at least six months before its sunset. Changes are listed by version in CHANGELOG.md.',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [{ url: '/' }],
  tags: [
    {
      name: 'oauth',
      description: 'Players sign in to a game (authorization code with PKCE, refresh tokens).',
    },
    {
      name: 'players',
      description: "Players' trust profiles, offenses and trust history, and creating players.",
    },
    { name: 'reports', description: 'Reporting misbehaviour, one at a time or in bulk.' },
    { name: 'moderation', description: 'The review queue for moderators.' },
    { name: 'webhooks', description: "A studio's webhooks (Standard Webhooks) and their delivery log." },
    { name: 'sanctions', description: 'Bans, suspensions, mutes and warnings.' },
    { name: 'appeals', description: 'Appeals of sanctions and offenses.' },
    { name: 'operations', description: 'Health, readiness, metrics, this document and the queue board.' },
  ],
  paths: {
    '/v1/openapi.json': {
      get: {
        operationId: 'openApiDocument',
        tags: ['operations'],
        summary: 'This document (OpenAPI 3.1)',
        responses: {
          200: json(
            {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: {
                openapi: { type: 'string' },
                info: { type: 'object' },
                paths: { type: 'object' },
              },
            },
            'The document (Cache-Control: public, max-age=300).',
          ),
        },
      },
    },
    '/admin/queues': {
      get: {
        operationId: 'queueBoard',
        tags: ['operations'],
        summary: 'The read-only queue board (Bull Board), for admin moderators',
        description:
          "A browser page: HTTP Basic with an admin moderator's username and password. Its assets and API live under /admin/queues/.",
        responses: {
          200: { description: 'The board.', content: { 'text/html': { schema: { type: 'string' } } } },
          401: problem('No or wrong credentials (WWW-Authenticate: Basic), or not an admin.'),
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'healthz',
        tags: ['operations'],
        summary: 'The process is up',
        responses: {
          200: json({ type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }, 'Up.'),
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        tags: ['operations'],
        summary: 'PostgreSQL and Redis answer',
        responses: {
          200: json(ref('Readiness'), 'Ready.'),
          503: json(ref('Readiness'), 'A backing service does not answer.'),
        },
      },
    },
    '/v1/oauth/authorize': {
      get: {
        operationId: 'authorize',
        tags: ['oauth'],
        summary: 'Authorization endpoint (RFC 6749 4.1.1): the sign-in and consent page',
        parameters: [
          { name: 'response_type', in: 'query', required: true, schema: { const: 'code' } },
          { name: 'client_id', in: 'query', required: true, schema: { type: 'string' } },
          {
            name: 'redirect_uri',
            in: 'query',
            schema: { type: 'string' },
            description: 'Must equal a registered URI; optional when exactly one is registered.',
          },
          { name: 'state', in: 'query', schema: { type: 'string', maxLength: 1024 } },
          { name: 'scope', in: 'query', schema: { type: 'string', default: 'profile' } },
          {
            name: 'code_challenge',
            in: 'query',
            schema: { type: 'string' },
            description: 'PKCE (RFC 7636), base64url SHA-256 of the verifier.',
          },
          { name: 'code_challenge_method', in: 'query', schema: { const: 'S256' } },
        ],
        responses: {
          200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
          302: {
            description:
              'Back to the redirect URI with error and state (invalid request, unsupported response type, invalid scope).',
          },
          400: {
            description: 'Unknown client or unregistered redirect URI: an error page, never a redirect.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
      post: {
        operationId: 'authorizeDecision',
        tags: ['oauth'],
        summary: 'The page form: sign in (or create an account) and allow, or deny',
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['decision', 'csrf', 'client_id', 'response_type'],
                properties: {
                  decision: { enum: ['approve', 'deny', 'signup'] },
                  gamer_tag: { type: 'string' },
                  password: { type: 'string' },
                  full_name: { type: 'string' },
                  csrf: { type: 'string' },
                  client_id: { type: 'string' },
                  response_type: { const: 'code' },
                  redirect_uri: { type: 'string' },
                  state: { type: 'string' },
                  scope: { type: 'string' },
                  code_challenge: { type: 'string' },
                  code_challenge_method: { const: 'S256' },
                },
              },
            },
          },
        },
        responses: {
          303: {
            description:
              'Back to the redirect URI with code and state (or error=access_denied), and iss (RFC 9207).',
          },
          400: {
            description: 'Form error shown on the page.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          401: {
            description: 'Wrong gamer tag or password, shown on the page.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          403: {
            description: 'Missing or wrong CSRF token.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          415: { description: 'Not a form post.', content: { 'text/html': { schema: { type: 'string' } } } },
          429: {
            description:
              'Too many failed sign-ins for this account or address; Retry-After says when to retry.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/v1/oauth/token': {
      post: {
        operationId: 'token',
        tags: ['oauth'],
        summary: 'Exchange authorization code (or a refresh token) for access token',
        description:
          'Client authentication by client_id/client_secret in the body (the spec) or HTTP Basic (RFC 6749 2.3.1). Errors are RFC 6749 5.2 (error, error_description) inside the common error body, sent as application/json as OAuth requires.',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('TokenRequest') },
            'application/x-www-form-urlencoded': { schema: ref('TokenRequest') },
          },
        },
        responses: {
          200: json(ref('TokenResponse'), 'The access token (Cache-Control: no-store).'),
          400: json(
            ref('ErrorResponse'),
            'invalid_request, invalid_grant, invalid_scope or unsupported_grant_type.',
          ),
          401: json(ref('ErrorResponse'), 'invalid_client.'),
          413: problem('Body too large.'),
          415: problem('Body is neither JSON nor form-encoded.'),
          500: problem('Server error.'),
        },
      },
    },
    '/v1/oauth/revoke': {
      post: {
        operationId: 'revokeToken',
        tags: ['oauth'],
        summary: 'Token revocation (RFC 7009)',
        description:
          'The client the token was issued to revokes it: a refresh token ends its whole sign-in (every refresh and access token of that grant), an access token ends itself. An unknown, invalid or expired token, or one issued to another client, gets the same 200 and revokes nothing. Client authentication as at the token endpoint.',
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: ref('RevocationRequest') },
            'application/json': { schema: ref('RevocationRequest') },
          },
        },
        responses: {
          200: json({ type: 'object', additionalProperties: false }, 'Revoked, or nothing to revoke.'),
          400: json(ref('ErrorResponse'), 'invalid_request (no token) or unsupported_token_type.'),
          401: json(ref('ErrorResponse'), 'invalid_client.'),
          413: problem('Body too large.'),
          415: problem('Body is neither JSON nor form-encoded.'),
          500: problem('Server error.'),
        },
      },
    },
    '/v1/oauth/jwks.json': {
      get: {
        operationId: 'jwks',
        tags: ['oauth'],
        summary: 'Public keys that sign access tokens (current and previous)',
        responses: {
          200: json(
            {
              type: 'object',
              required: ['keys'],
              properties: {
                keys: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['kty', 'kid'],
                    properties: {
                      kty: { type: 'string' },
                      kid: { type: 'string' },
                      alg: { type: 'string' },
                      use: { type: 'string' },
                      crv: { type: 'string' },
                      x: { type: 'string' },
                      y: { type: 'string' },
                    },
                  },
                },
              },
            },
            'JWKS.',
          ),
        },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        operationId: 'authorizationServerMetadata',
        tags: ['oauth'],
        summary: 'Authorization server metadata (RFC 8414)',
        responses: {
          200: json(
            {
              type: 'object',
              required: [
                'issuer',
                'authorization_endpoint',
                'token_endpoint',
                'jwks_uri',
                'response_types_supported',
                'code_challenge_methods_supported',
              ],
              properties: {
                issuer: { type: 'string' },
                authorization_endpoint: { type: 'string' },
                token_endpoint: { type: 'string' },
                jwks_uri: { type: 'string' },
                response_types_supported: { type: 'array', items: { type: 'string' } },
                code_challenge_methods_supported: { type: 'array', items: { type: 'string' } },
              },
            },
            'Metadata.',
          ),
        },
      },
    },
    '/v1/player/me': {
      get: {
        operationId: 'getLoggedInPlayer',
        tags: ['players'],
        summary: 'Fetch logged-in player profile',
        description:
          'Authorization: Bearer <access token> and the client_secret header of the game the token was issued to.',
        security: playerSecurity,
        responses: {
          200: rateLimited(
            json(
              ref('PlayerDetailed'),
              "The token's player, in the same shape as GET /v1/player/{serviceId}.",
            ),
          ),
          429: rateLimitedResponse,
          401: problem(
            'Missing, malformed, expired, revoked or foreign token, or a client_secret of another client; WWW-Authenticate: Bearer (RFC 6750).',
          ),
          404: problem('The player no longer exists.'),
          500: problem('Server error.'),
        },
      },
    },
    '/v1/players': {
      post: {
        operationId: 'createPlayer',
        tags: ['players'],
        summary: 'Create a player for the calling game (or get back the one created before)',
        description:
          "The new player is linked to the calling game and has no password (they sign in here only once they create an account of their own). The same serviceId again, for a player already linked to the game, returns that player with 200 (a safe retry). A serviceId of a player not linked to the game, or a gamer tag another player holds, is 409 already_exists: a player links a game only by signing in to it. Counts against the client's reports rate.",
        parameters: [...clientHeaders],
        requestBody: joiBody(createPlayerSchema),
        responses: {
          201: rateLimited(json(ref('PlayerDetailed'), 'Created (Location: /v1/player/{serviceId}).')),
          200: rateLimited(
            json(ref('PlayerDetailed'), 'Already created for this game: the player as it is.'),
          ),
          400: problem('Invalid body; nothing was created.'),
          401: problem('Missing, unknown or wrong client credentials.'),
          409: problem(
            'already_exists: the serviceId belongs to a player not linked to this game, or the gamer tag is taken.',
          ),
          413: problem('Body too large.'),
          415: problem('Body is not JSON.'),
          429: rateLimitedResponse,
          500: problem('Server error.'),
          503: problem('A backing service is unavailable; retry.'),
        },
      },
    },
    '/v1/player/{serviceId}': {
      get: {
        operationId: 'getPlayer',
        tags: ['players'],
        summary: 'Fetch player by service identifier',
        parameters: [serviceIdParam, ...clientHeaders],
        responses: {
          200: rateLimited(json(ref('PlayerDetailed'), 'The player with games and the newest offenses.')),
          429: rateLimitedResponse,
          401: problem('Missing, unknown or wrong client credentials.'),
          404: problem('Unknown player.'),
          500: problem('Server error.'),
          503: problem('A backing service is unavailable; retry.'),
        },
      },
    },
    '/v1/player/{serviceId}/offenses': {
      get: {
        operationId: 'listPlayerOffenses',
        tags: ['players'],
        summary: "Page through a player's offenses, newest first",
        parameters: [serviceIdParam, ...clientHeaders, ...joiQuery(pageQuery)],
        responses: {
          200: rateLimited(json(page('Reportoffense'), 'One page.')),
          400: problem('Bad limit or cursor.'),
          401: problem('Missing, unknown or wrong client credentials.'),
          404: problem('Unknown player.'),
          429: rateLimitedResponse,
          500: problem('Server error.'),
          503: problem('A backing service is unavailable; retry.'),
        },
      },
    },
    '/v1/player/{serviceId}/trust-history': {
      get: {
        operationId: 'listTrustHistory',
        tags: ['players'],
        summary: "Every change of a player's trust score, newest first",
        description:
          'One entry per change: an offense applied, held points released by an upheld case, points given back by a dismissal or a granted appeal, or points earned back by a clean record (recovery). Every studio sees every change; visibility is "full" on the changes about the calling studio\'s own reports (the offense itself, and a dismissal, appeal or release of it).',
        parameters: [serviceIdParam, ...clientHeaders, ...joiQuery(pageQuery)],
        responses: {
          200: rateLimited(json(page('TrustChange'), 'One page.')),
          400: problem('Bad limit or cursor.'),
          401: problem('Missing, unknown or wrong client credentials.'),
          404: problem('Unknown player.'),
          429: rateLimitedResponse,
          500: problem('Server error.'),
          503: problem('A backing service is unavailable; retry.'),
        },
      },
    },
    '/v1/reports/batch': {
      post: {
        operationId: 'submitReportBatch',
        tags: ['reports'],
        summary: 'Submit up to 100 reports of any kinds at once',
        description:
          'Each report is handled exactly as its single endpoint would handle it (validation, idempotency, duplicates, quota, budget) and answered in order with the status and body that endpoint would have sent; a failed one applies nothing, the others are stored. Reports without an Idempotency-Key are filed together, in one statement and one commit. Rate limits count reports, not requests.',
        parameters: clientHeaders,
        requestBody: joiBody(batchSchema),
        responses: {
          207: rateLimited(
            json(
              closed({
                results: {
                  type: 'array',
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['status', 'body'],
                    properties: {
                      status: {
                        type: 'integer',
                        description: 'What the single endpoint would have answered.',
                      },
                      replayed: { const: true, description: 'An Idempotency-Key replay.' },
                      body: {
                        oneOf: [ref('ReportSubmitResponse'), ref('ErrorResponse')],
                        description: 'The 201 body, or the problem document of the failure.',
                      },
                    },
                  },
                },
              }),
              'One result per report, in order.',
            ),
          ),
          400: problem(
            'The envelope is malformed (no reports, more than 100, an unknown kind); nothing was stored.',
          ),
          401: problem('Missing, unknown or wrong client credentials.'),
          413: problem('Body too large.'),
          415: problem('Body is not JSON.'),
          429: tooMany(
            'rate_limited: the reports would take the client over its report rate; nothing was stored.',
          ),
          500: problem('Server error.'),
          503: problem('A backing service is unavailable; retry.'),
        },
      },
    },
    '/v1/anticheat/submitReport/{serviceId}': reportOperation(
      'anticheat',
      'Submit an anti-cheat report',
      'AntiCheatReport',
      '20',
    ),
    '/v1/toxicity/submitReport/{serviceId}': reportOperation(
      'toxicity',
      'Submit a toxicity report',
      'ToxicityReport',
      '10',
    ),
    '/v1/afk/submitReport/{serviceId}': reportOperation('afk', 'Submit an AFK report', 'AfkReport', '5'),
    '/v1/griefing/submitReport/{serviceId}': reportOperation(
      'griefing',
      'Submit a griefing report',
      'GriefingReport',
      '15',
    ),
    ...moderationPaths,
    ...sanctionPaths,
    ...appealPaths,
  },
  components: {
    securitySchemes,
    responses: {
      MethodNotAllowed: {
        description:
          'method_not_allowed: this path does not take that method; Allow lists the methods it takes (those documented here).',
        headers: { Allow: { schema: { type: 'string' } } },
        content: { 'application/problem+json': { schema: ref('ErrorResponse') } },
      },
    },
    schemas: {
      // The request schemas named in the Joi rules (.id()): the report bodies and their evidence.
      ...requestComponents(),
      ...moderationSchemas,
      ...sanctionSchemas,
      ...appealSchemas,
      RevocationRequest: {
        type: 'object',
        required: ['token'],
        properties: {
          token: { type: 'string' },
          token_type_hint: { enum: ['access_token', 'refresh_token'] },
          client_id: { type: 'string' },
          client_secret: { type: 'string' },
        },
      },
      TokenRequest: {
        type: 'object',
        required: ['grant_type'],
        description:
          'authorization_code: code (and redirect_uri, code_verifier as the authorization request had them). refresh_token: refresh_token, and optionally scope (part of the granted scope).',
        properties: {
          grant_type: { enum: ['authorization_code', 'refresh_token'] },
          code: { type: 'string' },
          refresh_token: { type: 'string' },
          scope: { type: 'string' },
          client_id: { type: 'string' },
          client_secret: { type: 'string' },
          redirect_uri: { type: 'string', description: 'Required when the authorization request named one.' },
          code_verifier: {
            type: 'string',
            description: 'PKCE verifier; required when the authorization request had a code_challenge.',
          },
        },
      },
      TokenResponse: {
        type: 'object',
        additionalProperties: false,
        required: ['access_token', 'token_type', 'expires_in'],
        properties: {
          access_token: {
            type: 'string',
            description:
              'JWT (ES256) with iss, aud (client_id), sub (serviceId), iat, exp, jti, scope; kid in the header.',
          },
          token_type: { const: 'Bearer' },
          expires_in: { type: 'integer' },
          scope: { type: 'string' },
          refresh_token: {
            type: 'string',
            description:
              'With the offline_access scope: a single-use refresh token (each refresh returns a new one; presenting a used one revokes the whole sign-in).',
          },
        },
      },
      ErrorResponse: {
        type: 'object',
        description: 'RFC 9457 problem details with a stable machine-readable code.',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          code: { type: 'string' },
          requestId: { type: 'string' },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string' }, message: { type: 'string' } },
            },
          },
          error: { type: 'string', description: 'OAuth 2.0 error code (token endpoint).' },
          error_description: { type: 'string' },
        },
      },
      Readiness: {
        type: 'object',
        required: ['status', 'checks'],
        properties: {
          status: { enum: ['ready', 'unavailable'] },
          checks: {
            type: 'object',
            required: ['postgres', 'redis'],
            properties: { postgres: ref('Check'), redis: ref('Check') },
          },
        },
      },
      Check: {
        type: 'object',
        required: ['ok'],
        properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
      },
      Evidence: {
        type: 'object',
        required: ['type', 'submittedAt'],
        properties: {
          type: { enum: [...EVIDENCE_TYPES] },
          url: { type: 'string' },
          content: { type: 'string' },
          submittedAt: dateTime,
          enrichment: ref('Enrichment'),
        },
      },
      Reportoffense: {
        type: 'object',
        additionalProperties: false,
        description:
          'An offense. visibility "full" for the studio that reported it; "summary" (no game, studio, description, evidence, details, context) for other studios.',
        required: [
          '_id',
          'player',
          'type',
          'severity',
          'penaltyPoints',
          'penaltyHeld',
          'status',
          'penaltyRestored',
          'restoredBy',
          'restoredAt',
          'reviewedByAdmin',
          'resolved',
          'resolvedAt',
          'createdAt',
          'updatedAt',
          'visibility',
        ],
        properties: {
          _id: { type: 'string' },
          player: { type: 'string', description: "The player's serviceId." },
          game: { type: 'string' },
          studio: { type: 'string' },
          type: { enum: offenseTypes },
          description: { type: 'string' },
          severity: { enum: [...SEVERITIES] },
          penaltyPoints: {
            type: 'integer',
            minimum: 0,
            description:
              'Points this offense took off the trust score (at filing, or when its held points were released); still shown once they were given back (see penaltyRestored).',
          },
          penaltyHeld: {
            type: 'integer',
            minimum: 0,
            description: 'Points held for a moderator instead of applied (0 when none were).',
          },
          status: {
            enum: ['applied', 'held', 'released', 'dropped', 'recorded', 'restored'],
            description:
              'What became of its points. applied: taken at once; held: they wait for a moderator, then released (the case was upheld) or dropped (the case was dismissed, or an appeal granted); recorded: stored without points (the flag was false, or the reporter is muted); restored: a dismissal or a granted appeal gave its points back (applied or released before). restored, dropped and recorded are final: points come back at most once, whichever decision comes first.',
          },
          penaltyRestored: {
            type: 'integer',
            minimum: 0,
            description:
              'Points given back to the score (status restored): what it took, less any the 100 cap left no room for. For every player, trustScore = 100 - sum(penaltyPoints) + sum(penaltyRestored) + the recovery points of the trust history.',
          },
          restoredBy: {
            enum: ['dismissal', 'appeal', null],
            description:
              'The decision that gave the points back (restored) or let the held points go (dropped); null otherwise.',
          },
          restoredAt: { type: ['string', 'null'], format: 'date-time', description: 'When it did.' },
          statusReason: {
            type: ['string', 'null'],
            enum: ['studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', null],
            description: 'Why the points were held or not taken (the filing studio only).',
          },
          evidence: { type: 'array', items: ref('Evidence') },
          details: {
            type: 'object',
            description: 'Normalised kind-specific fields (confidence, category, durations, ...).',
          },
          context: {
            type: 'object',
            additionalProperties: false,
            properties: contextProps,
          },
          reviewedByAdmin: { type: 'boolean' },
          resolved: { type: 'boolean' },
          resolvedAt: { type: ['string', 'null'], format: 'date-time' },
          createdAt: dateTime,
          updatedAt: dateTime,
          visibility: { enum: ['full', 'summary'] },
        },
      },
      ReportSubmitResponse: {
        type: 'object',
        additionalProperties: false,
        required: [
          'message',
          'playerId',
          'gameId',
          'trustScore',
          'penaltyApplied',
          'penaltyHeld',
          'status',
          'report',
          'timestamp',
        ],
        properties: {
          message: { type: 'string' },
          playerId: { type: 'string' },
          gameId: { type: 'string' },
          trustScore: { type: 'number', minimum: 0, maximum: 100 },
          penaltyApplied: { type: 'integer', minimum: 0 },
          penaltyHeld: {
            type: 'integer',
            minimum: 0,
            description: 'Points held for a moderator: applied if the case is upheld, dropped if dismissed.',
          },
          status: {
            enum: ['applied', 'held', 'recorded'],
            description: 'applied now, held for a moderator, or recorded without points.',
          },
          statusReason: {
            enum: ['studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding'],
            description:
              "Why points were held (the studio's daily budget on this player is spent; the reporter's credibility is low) or none taken (the reporter is muted; the flag was false).",
          },
          reporterQuotaRemaining: {
            type: 'integer',
            minimum: 0,
            description: 'When the report names a reporterId: its reports left today at this studio.',
          },
          report: ref('Reportoffense'),
          timestamp: dateTime,
        },
      },
      TrustChange: closed({
        id: { type: 'string' },
        points: { type: 'integer', description: 'Negative for a deduction.' },
        scoreBefore: { type: 'integer', minimum: 0, maximum: 100 },
        scoreAfter: { type: 'integer', minimum: 0, maximum: 100 },
        reason: { enum: ['offense', 'held_released', 'dismissal', 'recovery', 'appeal'] },
        offenseId: { type: ['string', 'null'] },
        caseId: { type: ['string', 'null'] },
        createdAt: dateTime,
        visibility: { enum: ['full', 'summary'] },
      }),
      PlayerDetailed: {
        type: 'object',
        additionalProperties: false,
        required: [
          'serviceId',
          'fullName',
          'gamerTag',
          'trustScore',
          'isKycVerified',
          'games',
          'offenses',
          'offenseCount',
          'offensesNextCursor',
          'activeSanctions',
        ],
        properties: {
          serviceId: { type: 'string' },
          fullName: { type: 'string' },
          gamerTag: { type: 'string' },
          trustScore: { type: 'number', minimum: 0, maximum: 100 },
          isKycVerified: { type: 'boolean' },
          games: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['gameTitle', 'linkedAt'],
              properties: { gameTitle: { type: 'string' }, linkedAt: dateTime },
            },
          },
          offenses: {
            type: 'array',
            items: ref('Reportoffense'),
            description: 'The newest offenses (PROFILE_OFFENSES_LIMIT, 20 by default).',
          },
          offenseCount: { type: 'integer', minimum: 0 },
          offensesNextCursor: {
            type: ['string', 'null'],
            description:
              'Cursor for /v1/player/{serviceId}/offenses to read the older ones; null when all are embedded.',
          },
          activeSanctions: {
            type: 'array',
            description:
              "The sanctions in force now that the caller may see (global ones and its own studio's).",
            items: closed({
              id: { type: 'string' },
              type: { enum: [...SANCTION_TYPES] },
              scope: { type: 'string', description: '"global" or the studio id it is limited to.' },
              startsAt: dateTime,
              expiresAt: { type: ['string', 'null'], format: 'date-time' },
            }),
          },
        },
      },
    },
  },
} as const;

export const openApiDocument = finishDocument(draft);
