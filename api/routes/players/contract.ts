import { joiBody, joiQuery } from '../../contract.js';
import {
  clientHeaders,
  json,
  page,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
  serviceIdParam,
} from '../../openapi-parts.js';
import { playerSecurity } from '../../openapi-security.js';
import { pageQuery } from '../../../common/cursor.js';
import { createPlayerSchema } from '../../../common/usecases/players.js';

/** The OpenAPI operations of the players routes (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
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
          json(ref('PlayerDetailed'), "The token's player, in the same shape as GET /v1/player/{serviceId}."),
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
  '/v1/player/me/decisions': {
    get: {
      operationId: 'listMyDecisions',
      tags: ['players'],
      summary: 'Every decision about the signed-in player, with its statement of reasons',
      description:
        'Newest first: each offense that took or held points and each sanction, with what was decided, where and for how long, the facts and the rule or reason, whether automated means decided it, where it stands and how to appeal by when (the EU Digital Services Act, Art. 17). Never who reported, nor what a studio wrote. The same statements are on the standing page (/standing). Authorization: Bearer <access token> and the client_secret header of its game.',
      security: playerSecurity,
      parameters: joiQuery(pageQuery),
      responses: {
        200: rateLimited(json(page('StatementOfReasons'), 'One page of decisions.')),
        400: problem('A bad limit or cursor.'),
        401: problem(
          'Missing, malformed, expired, revoked or foreign token, or a client_secret of another client; WWW-Authenticate: Bearer (RFC 6750).',
        ),
        404: problem('The player no longer exists.'),
        429: rateLimitedResponse,
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
        200: rateLimited(json(ref('PlayerDetailed'), 'Already created for this game: the player as it is.')),
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
  '/v1/player/{serviceId}/export': {
    get: {
      operationId: 'exportPlayerForStudio',
      tags: ['players'],
      summary: "The whole record of one of the studio's players, as it may see it (GDPR Art. 15, 20)",
      description:
        'One JSON document, streamed as a download: a manifest of its parts, then the player, games, offenses (the studio\'s own in full, the others as a summary), trust history, the sanctions it may see, and the appeals it filed or that contest its decisions or reports. Only for a player of the studio\'s games (404 otherwise). docs/compliance.md "Personal data".',
      parameters: [serviceIdParam, ...clientHeaders],
      responses: {
        200: rateLimited(json(ref('PlayerExport'), 'The export.')),
        401: problem('Missing, unknown or wrong client credentials.'),
        404: problem("Unknown player, or not one of the studio's games."),
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
};
