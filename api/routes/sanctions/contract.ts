import { HONOR_LEVEL, MATCHES_LEFT } from '../../../common/view-schemas.js';
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
  ref,
  serviceIdParam,
  studioErrors,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { listQuery, lookupBody } from './schema.js';
import { SANCTION_TYPES } from '../../../common/data/repos/sanctions.js';
import { PARTY_TRUST_GAP, PARTY_WARNINGS } from '../../../common/domain/parties.js';
import {
  revokeSanctionSchema,
  sanctionSchema,
  studioSanctionSchema,
} from '../../../common/usecases/sanctions.js';

/** The OpenAPI operations of the sanctions routes (routes.ts beside it); api/openapi.ts assembles them. */
const sanctionIdParam = pathParam('sanctionId');

const moderator = moderatorSecurity;

const partyWarning = {
  type: 'object',
  additionalProperties: false,
  required: ['serviceId', 'code', 'message'],
  properties: {
    serviceId: { type: 'string' },
    code: { enum: [...PARTY_WARNINGS] },
    message: { type: 'string', description: 'For a person; names the member only.' },
    sanctionId: { type: 'string', description: 'banned, matchmaking_restriction: the sanction.' },
    lowersBy: {
      type: 'integer',
      minimum: PARTY_TRUST_GAP,
      description: "low_trust: the points the member takes off the party's trust.",
    },
  },
} as const;

/** The lobby check's answer: parties only when parties were asked about. */
const lookupAnswer = <const P extends { parties: unknown }>(properties: P) => ({
  type: 'object' as const,
  additionalProperties: false as const,
  required: ['players', 'notFound', 'invalid'] as ('players' | 'notFound' | 'invalid')[],
  properties,
});

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

export const paths = {
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
        202: {
          ...json(
            ref('Wave'),
            'Waits for a second moderator (docs/moderators.md "Four eyes": a ban of a player carrying a protected tag, or with FOUR_EYES_PERMANENT_BANS any permanent ban): a wave of this one player awaiting approval, which an admin who did not make it approves (POST /v1/admin/waves/{waveId}/approve) or cancels; Location names it.',
          ),
          headers: { Location: { schema: { type: 'string' } } },
        },
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
  '/v1/admin/sanctions/{sanctionId}/extend': {
    post: {
      operationId: 'extendSanctionToLinkedAccounts',
      tags: ['sanctions', 'linked accounts'],
      summary: 'Extend a sanction in force to the accounts strongly linked to its player',
      description:
        "Each account strongly linked (strength 0.8 or more) to the sanctioned player, through the sanction's studio's signals or every studio's for a global one, gets a sanction of its own: the same type, scope and end, its own statement of reasons (its ground: the kinds shared and the decision extended, never the other account), its own Transparency Database statement and its own appeal. Audited as place_sanction with extendedFrom. An account already given one extended from this sanction, or already under one of the same type and scope, is skipped (so a second call places nothing twice). A link never does this on its own: a moderator decides (docs/linked-accounts.md).",
      security: moderator,
      parameters: [sanctionIdParam],
      responses: {
        200: json(
          closed({
            sanctions: { type: 'array', items: ref('Sanction'), description: 'The sanctions placed now.' },
            skipped: {
              type: 'array',
              items: closed({
                serviceId: { type: 'string' },
                why: { enum: ['already_extended', 'already_sanctioned'] },
              }),
            },
          }),
          'The sanctions placed (none when no account is strongly linked) and the accounts skipped.',
        ),
        404: problem('not_found: no such sanction.'),
        409: problem('sanction_not_in_force: the sanction is revoked, expired, or a warning.'),
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
            lookupAnswer({
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
                      expiresAt: {
                        type: ['string', 'null'],
                        format: 'date-time',
                        description:
                          'null: no end yet (a permanent ban, or a restriction counted in matches).',
                      },
                      matchesLeft: MATCHES_LEFT,
                    }),
                  },
                  evasionSuspected: {
                    type: 'boolean',
                    description:
                      'The caller\'s own signals strongly link the player to an account under a ban in force of the same scope (docs/studios.md "Linked accounts"); never a sanction by itself.',
                  },
                  honorLevel: HONOR_LEVEL,
                }),
              },
              notFound: { type: 'array', items: { type: 'string' } },
              invalid: {
                type: 'array',
                items: { type: 'string' },
                description: 'The ids that cannot be a serviceId, as sent.',
              },
              parties: {
                type: 'array',
                description:
                  'Only when parties were sent: each party in the order sent (docs/studios.md "Parties at the lobby check").',
                items: closed({
                  party: { type: 'string' },
                  members: {
                    type: 'array',
                    items: { type: 'string' },
                    description: 'The known members, in the order sent.',
                  },
                  notFound: { type: 'array', items: { type: 'string' } },
                  invalid: { type: 'array', items: { type: 'string' } },
                  trustScore: {
                    type: ['integer', 'null'],
                    minimum: 0,
                    maximum: 100,
                    description: "The party's trust: its lowest known member's (null: no member is known).",
                  },
                  lowPriority: {
                    type: 'boolean',
                    description:
                      'A member is under a matchmaking restriction: the party queues in low priority.',
                  },
                  canQueue: { type: 'boolean', description: 'No member is banned.' },
                  warnings: {
                    type: 'array',
                    description:
                      'One for each way a member lowers the party, in the order of the members (banned, matchmaking_restriction, low_trust: at least 10 points below the lowest of the others, evasion_suspected).',
                    items: partyWarning,
                  },
                }),
              },
            }),
            "The known players in the order asked (with the sanctions the caller may see), the ids not found, and the malformed ones; with parties, each party's standing.",
          ),
        ),
        400: problem(
          'No ids, more than 100 in all, an entry that is not a string, a bad party, or a player in two parties.',
        ),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
};
