import { joiBody, joiQuery } from './contract.js';
import { appealDecisionSchema, appealFileSchema } from '../common/usecases/appeals.js';
import { revokeSanctionSchema, sanctionSchema, studioSanctionSchema } from '../common/usecases/sanctions.js';
import { listQuery, lookupBody } from './routes/sanctions/schema.js';
import { queueQuery } from './routes/appeals/schema.js';
import { SANCTION_TYPES } from '../common/data/repos/sanctions.js';
import { moderatorSecurity, playerSecurity } from './openapi-security.js';
import {
  clientHeaders,
  closed,
  dateTime,
  json,
  page,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
  serviceIdParam,
} from './openapi-parts.js';

/** Sanctions and the lobby check, in the OpenAPI document. */

const sanctionIdParam = {
  name: 'sanctionId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
const moderator = moderatorSecurity;
const common = {
  500: problem('Server error.'),
  503: problem('A backing service is unavailable; retry.'),
};
const studioErrors = {
  401: problem('Missing, unknown or wrong client credentials.'),
  429: rateLimitedResponse,
  ...common,
};
const moderatorErrors = {
  401: problem('No, an invalid, an expired or a disabled moderator session token.'),
  ...common,
};

const revokeRequest = joiBody(revokeSanctionSchema);

const list = (security: object | undefined, who: string) => ({
  operationId: security ? 'moderatorListSanctions' : 'listSanctions',
  tags: ['sanctions'],
  summary: `A player's sanctions, newest first (${who})`,
  ...(security ? { security } : {}),
  parameters: [serviceIdParam, ...(security ? [] : clientHeaders), ...joiQuery(listQuery)],
  responses: {
    200: security ? json(page('Sanction'), 'One page.') : rateLimited(json(page('Sanction'), 'One page.')),
    400: problem('Bad active, limit or cursor.'),
    404: problem('Unknown player.'),
    ...(security ? moderatorErrors : studioErrors),
  },
});

export const sanctionPaths = {
  '/v1/player/{serviceId}/sanctions': {
    get: list(undefined, "the global ones and the calling studio's"),
    post: {
      operationId: 'placeSanction',
      tags: ['sanctions'],
      summary: "Place a sanction limited to the calling studio's games on one of its players",
      parameters: [serviceIdParam, ...clientHeaders],
      requestBody: joiBody(studioSanctionSchema),
      responses: {
        201: rateLimited(json(ref('Sanction'), 'Placed (audited; sanction.applied is sent).')),
        400: problem('A bad type, reason or period.'),
        404: problem("No such player among the players of the studio's games."),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
  '/v1/player/{serviceId}/sanctions/{sanctionId}/revoke': {
    post: {
      operationId: 'revokeSanction',
      tags: ['sanctions'],
      summary: "Revoke one of the studio's own sanctions",
      parameters: [serviceIdParam, sanctionIdParam, ...clientHeaders],
      requestBody: revokeRequest,
      responses: {
        200: rateLimited(json(ref('Sanction'), 'Revoked (again: unchanged).')),
        400: problem('The reason is missing or too long.'),
        404: problem("No such sanction of the studio's on this player."),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
  '/v1/admin/players/{serviceId}/sanctions': {
    get: list(moderator, 'every scope'),
    post: {
      operationId: 'moderatorPlaceSanction',
      tags: ['sanctions'],
      summary: 'Place a sanction, global or limited to one studio',
      security: moderator,
      parameters: [serviceIdParam],
      requestBody: joiBody(sanctionSchema),
      responses: {
        201: json(ref('Sanction'), 'Placed (audited; sanction.applied is sent).'),
        400: problem('A bad type, scope, reason or period.'),
        404: problem('Unknown player.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/players/{serviceId}/sanctions/{sanctionId}/revoke': {
    post: {
      operationId: 'moderatorRevokeSanction',
      tags: ['sanctions'],
      summary: 'Revoke any sanction',
      security: moderator,
      parameters: [serviceIdParam, sanctionIdParam],
      requestBody: revokeRequest,
      responses: {
        200: json(ref('Sanction'), 'Revoked (again: unchanged).'),
        400: problem('The reason is missing or too long.'),
        404: problem('No such sanction on this player.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/players/lookup': {
    post: {
      operationId: 'lookupPlayers',
      tags: ['sanctions'],
      summary: 'The lobby check: score and sanctions in force of up to 100 players, in one round trip',
      description:
        'Answers what it can: each id is answered once (a repeated id at its first place), in the order asked. A well-formed id of a known player is in players, one of no player in notFound, and a malformed one (not 1 to 64 letters, digits, underscores or hyphens, such as an empty string) in invalid, so one bad entry never fails a lobby.',
      parameters: clientHeaders,
      requestBody: joiBody(lookupBody),
      responses: {
        200: rateLimited(
          json(
            closed({
              players: {
                type: 'array',
                items: closed({
                  serviceId: { type: 'string' },
                  trustScore: { type: 'integer', minimum: 0, maximum: 100 },
                  activeSanctions: {
                    type: 'array',
                    items: closed({
                      id: { type: 'string' },
                      type: { enum: [...SANCTION_TYPES] },
                      scope: { type: 'string', description: '"global" or the studio id it is limited to.' },
                      expiresAt: { type: ['string', 'null'], format: 'date-time' },
                    }),
                  },
                }),
              },
              notFound: { type: 'array', items: { type: 'string' } },
              invalid: {
                type: 'array',
                items: { type: 'string' },
                description: 'The ids that cannot be a serviceId, as sent.',
              },
            }),
            'The known players in the order asked (with the sanctions the caller may see), the ids not found, and the malformed ones.',
          ),
        ),
        400: problem('No ids, more than 100, or an entry that is not a string.'),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
} as const;

const actor = closed({ kind: { enum: ['moderator', 'studio'] }, id: { type: 'string' } });
export const sanctionSchemas = {
  Sanction: closed({
    id: { type: 'string' },
    serviceId: { type: 'string' },
    type: { enum: [...SANCTION_TYPES] },
    scope: { type: 'string', description: '"global" or the studio id it is limited to.' },
    reason: { type: 'string' },
    caseId: { type: ['string', 'null'] },
    issuedBy: actor,
    startsAt: dateTime,
    expiresAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'null: never (permanent ban, warning).',
    },
    active: {
      type: 'boolean',
      description: 'Started, not expired and not revoked, at the time of the answer.',
    },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
    revokedBy: { ...actor, type: ['object', 'null'] },
    revokeReason: { type: ['string', 'null'] },
    createdAt: dateTime,
  }),
} as const;

const appealId = { name: 'appealId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const appealBody = joiBody(appealFileSchema);
const fileResponses = {
  201: rateLimited(json(ref('Appeal'), 'Filed (appeal.filed is sent).')),
  400: problem('A bad subject, reason or statement.'),
  404: problem('No such sanction or offense of this player (or player of the studio).'),
  409: problem(
    'appeal_open (openAppealId names the open one), appeal_window_closed (APPEAL_WINDOW_DAYS after the decision), or not_appealable (a revoked sanction; anything already granted; an offense whose points were already given back or dropped (status restored or dropped), or that took none (recorded); offenseStatus names its status).',
  ),
  415: problem('Body is not JSON.'),
  429: rateLimitedResponse,
  ...common,
};

export const appealPaths = {
  '/v1/player/me/appeals': {
    post: {
      operationId: 'fileOwnAppeal',
      tags: ['appeals'],
      summary: 'The signed-in player appeals a sanction or an offense',
      description: 'Authorization: Bearer <access token> and the client_secret header, as GET /v1/player/me.',
      security: playerSecurity,
      requestBody: appealBody,
      responses: {
        ...fileResponses,
        401: problem('Missing or invalid token, or a client_secret of another client.'),
      },
    },
    get: {
      operationId: 'listOwnAppeals',
      tags: ['appeals'],
      summary: "The signed-in player's appeals and their state, newest first",
      security: playerSecurity,
      responses: {
        200: rateLimited(json(closed({ items: { type: 'array', items: ref('Appeal') } }), 'The appeals.')),
        401: problem('Missing or invalid token, or a client_secret of another client.'),
        429: rateLimitedResponse,
        ...common,
      },
    },
  },
  '/v1/player/{serviceId}/appeals': {
    post: {
      operationId: 'fileAppeal',
      tags: ['appeals'],
      summary: 'A studio appeals on behalf of a player of its games (a sanction it may see, or an offense)',
      parameters: [serviceIdParam, ...clientHeaders],
      requestBody: appealBody,
      responses: { ...fileResponses, 401: problem('Missing, unknown or wrong client credentials.') },
    },
  },
  '/v1/admin/appeals': {
    get: {
      operationId: 'listAppeals',
      tags: ['appeals'],
      summary: 'The appeals queue, oldest first',
      security: moderator,
      parameters: [...joiQuery(queueQuery)],
      responses: {
        200: json(page('Appeal'), 'One page.'),
        400: problem('A bad filter, limit or cursor.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/appeals/{appealId}': {
    get: {
      operationId: 'getAppeal',
      tags: ['appeals'],
      summary: 'One appeal',
      security: moderator,
      parameters: [appealId],
      responses: {
        200: json(ref('Appeal'), 'The appeal.'),
        404: problem('No such appeal.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/appeals/{appealId}/claim': {
    post: {
      operationId: 'claimAppeal',
      tags: ['appeals'],
      summary: 'Claim an appeal (CASE_LEASE_SECONDS; again renews)',
      description:
        "A moderator cannot claim an appeal against their own decision (403 own_decision), so an appeal never sits claimed by someone who may not decide it. An admin may claim any appeal, and takes over another moderator's live claim (audited with the previous holder).",
      security: moderator,
      parameters: [appealId],
      responses: {
        200: json(ref('Appeal'), 'Claimed.'),
        403: problem('own_decision: the appeal is against your own decision.'),
        404: problem('No such appeal.'),
        409: problem('appeal_claimed (another moderator holds a live claim) or appeal_decided.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/appeals/{appealId}/release': {
    post: {
      operationId: 'releaseAppeal',
      tags: ['appeals'],
      summary: "Give up a claim on an appeal (yours; an admin: anyone's)",
      security: moderator,
      parameters: [appealId],
      responses: {
        200: json(ref('Appeal'), 'Released: the appeal is open and unclaimed.'),
        404: problem('No such appeal.'),
        409: problem('appeal_not_claimed, appeal_claimed (another moderator holds it) or appeal_decided.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/appeals/{appealId}/decide': {
    post: {
      operationId: 'decideAppeal',
      tags: ['appeals'],
      summary: 'Grant or deny an appeal you hold a claim on',
      description:
        "Granted: the sanction is revoked and/or the offense's points are given back (never above 100; trust history reason appeal), and the strike of the case behind it removed, in one transaction; audited; appeal.decided is sent. A moderator may not decide an appeal against their own decision (403 own_decision); an admin may.",
      security: moderator,
      parameters: [appealId],
      requestBody: joiBody(appealDecisionSchema),
      responses: {
        200: json(ref('Appeal'), 'Decided.'),
        400: problem('A bad decision or note.'),
        403: problem('own_decision: the appeal is against your own decision.'),
        404: problem('No such appeal.'),
        409: problem('appeal_not_claimed, appeal_claimed (another moderator holds it) or appeal_decided.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
} as const;

export const appealSchemas = {
  Appeal: closed({
    id: { type: 'string' },
    playerId: { type: 'string' },
    subject: closed({ kind: { enum: ['sanction', 'offense'] }, id: { type: 'string' } }),
    reason: { enum: ['incorrect', 'compromised_account', 'unfair', 'forgiveness'] },
    statement: { type: 'string' },
    filedBy: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { enum: ['player', 'studio'] }, id: { type: 'string' } },
      additionalProperties: false,
    },
    status: { enum: ['open', 'granted', 'denied'] },
    claim: {
      ...closed({ moderatorId: { type: 'string' }, expiresAt: dateTime }),
      type: ['object', 'null'],
    },
    decision: {
      ...closed({
        moderatorId: { type: 'string' },
        decidedAt: dateTime,
        note: { type: 'string' },
        pointsRefunded: { type: 'integer', minimum: 0 },
      }),
      type: ['object', 'null'],
    },
    createdAt: dateTime,
  }),
} as const;
