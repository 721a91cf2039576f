import { pathParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import {
  clientHeaders,
  closed,
  json,
  moderatorErrors,
  page,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
  serverErrors,
  serviceIdParam,
} from '../../openapi-parts.js';
import { moderatorSecurity, playerSecurity } from '../../openapi-security.js';
import { queueQuery } from './schema.js';
import { appealDecisionSchema, appealFileSchema } from '../../../common/usecases/appeals.js';

/** The OpenAPI operations of the appeals routes (routes.ts beside it); api/openapi.ts assembles them. */
const moderator = moderatorSecurity;

const appealId = pathParam('appealId');

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
  ...serverErrors,
} as const;

export const paths = {
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
        ...serverErrors,
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
        200: json(
          ref('AppealDetail'),
          'The appeal, and in context what deciding it needs: the player, what is appealed in full with the decision behind it, the latest offenses.',
        ),
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
        "A moderator cannot claim an appeal against their own decision (403 own_decision), so an appeal never sits claimed by someone who may not decide it. An admin may claim any appeal but a notifier's complaint about their own dismissal, and takes over another moderator's live claim (audited with the previous holder).",
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
        "Granted: the sanction is revoked and/or the offense's points are given back (never above 100; trust history reason appeal), and the strike of the case behind it removed, in one transaction; audited; appeal.decided is sent. A moderator may not decide an appeal against their own decision (403 own_decision); an admin may, except a notifier's complaint about their own dismissal.",
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
};
