import { joiBody, joiQuery } from '../../contract.js';
import {
  clientHeaders,
  closed,
  dateTime,
  json,
  moderatorErrors,
  problem,
  rateLimited,
  serviceIdParam,
  studioErrors,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { pathParam } from '../../params.js';
import { SANCTION_TYPES } from '../../../common/data/repos/sanctions.js';
import {
  bulkSignalsSchema,
  playerSignalsSchema,
  SIGNAL_KINDS,
  SIGNALS_BULK_MAX,
  SIGNALS_PER_PLAYER_MAX,
  STRONG_LINK,
} from '../../../common/domain/signals.js';
import { suspicionsQuery } from './schema.js';
import { clearSuspicionSchema } from '../../../common/usecases/signals.js';

/** The OpenAPI operations of the linked-accounts routes (routes.ts beside it); api/openapi.ts assembles them. */

const kinds = { type: 'array', items: { enum: [...SIGNAL_KINDS] } } as const;

const evasionItem = closed({
  suspicionId: { type: 'string' },
  linkedTo: { type: 'string', description: 'The serviceId of the banned account it is strongly linked to.' },
  sanctionId: { type: 'string', description: 'The ban in force on that account.' },
  kinds: { ...kinds, description: 'The kinds of value the two accounts share.' },
  strength: { type: 'number', minimum: 0, maximum: 1 },
  detectedAt: dateTime,
});

const linksAnswer = closed({
  serviceId: { type: 'string' },
  links: {
    type: 'array',
    description: 'Strongest first (at most 100).',
    items: closed({
      serviceId: { type: 'string' },
      gamerTag: { type: 'string' },
      studioId: { type: 'string', description: 'The studio whose signals link them.' },
      kinds,
      strength: { type: 'number', minimum: 0, maximum: 1 },
      since: dateTime,
      trustScore: { type: 'integer', minimum: 0, maximum: 100 },
      activeSanctions: {
        type: 'array',
        items: closed({
          id: { type: 'string' },
          type: { enum: [...SANCTION_TYPES] },
          scope: { type: 'string' },
          expiresAt: { type: ['string', 'null'], format: 'date-time' },
        }),
      },
      evasionSuspected: { type: 'boolean' },
    }),
  },
  among: {
    type: 'array',
    description:
      "The links between the listed accounts themselves (each pair once, by the same studio's signals as the list): a ring of alts shows as links among them, a household as one pair.",
    items: closed({
      serviceIds: {
        type: 'array',
        items: { type: 'string' },
        minItems: 2,
        maxItems: 2,
        description: 'The two linked accounts, as listed.',
      },
      studioId: { type: 'string', description: 'The studio whose signals link them.' },
      kinds,
      strength: { type: 'number', minimum: 0, maximum: 1 },
    }),
  },
});

const suspicionIdParam = pathParam('suspicionId');

export const paths = {
  '/v1/player/{serviceId}/signals': {
    post: {
      operationId: 'recordSignals',
      tags: ['linked accounts'],
      summary: "The sign-in check: record a sign-in's signals and hear whether it looks like ban evasion",
      description: `Up to ${SIGNALS_PER_PLAYER_MAX} values one of the studio's players signed in or played with. Each value is kept only as a keyed hash (an IP address as its /24 or /48 network), never as sent. The answer says whether the player is now strongly linked (strength ${STRONG_LINK} or more) by the studio's own signals to an account under a ban in force of the same scope (global or the studio's): evasionSuspected, with each such ban. A suspicion sends player.evasion_suspected once and shows in the profile and the lobby check; it never sanctions anyone. Counts as one request against the reports rate. docs/studios.md "Linked accounts".`,
      parameters: [...clientHeaders, serviceIdParam],
      requestBody: joiBody(playerSignalsSchema),
      responses: {
        200: rateLimited(
          json(
            closed({
              serviceId: { type: 'string' },
              added: { type: 'integer', minimum: 0, description: 'Values not seen with this player before.' },
              seenAgain: { type: 'integer', minimum: 0 },
              evasionSuspected: { type: 'boolean' },
              evasion: { type: 'array', items: evasionItem },
            }),
            'Recorded; the evasion verdict.',
          ),
        ),
        400: problem(
          'An unknown kind, a malformed or over-long value, too many signals, a bad observedAt: nothing was recorded.',
        ),
        404: problem("not_found: no player of the studio's games with this serviceId; nothing was recorded."),
        413: problem('Body too large.'),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
  '/v1/signals': {
    post: {
      operationId: 'recordSignalsInBulk',
      tags: ['linked accounts'],
      summary: "Many players' signals at once (a backfill, a batch of sessions)",
      description: `Up to ${SIGNALS_BULK_MAX} entries, each naming a player of the studio's games; all or nothing: one bad entry or one unknown player is a 4xx and nothing is recorded. Runs the evasion check for every player named. Each entry counts against the reports rate, as a bulk report does.`,
      parameters: clientHeaders,
      requestBody: joiBody(bulkSignalsSchema),
      responses: {
        200: rateLimited(
          json(
            closed({
              accepted: { type: 'integer', minimum: 1 },
              added: { type: 'integer', minimum: 0 },
              seenAgain: { type: 'integer', minimum: 0 },
              evasionSuspected: {
                type: 'array',
                items: { type: 'string' },
                description: 'The players named that are suspected of evading a ban, as serviceIds.',
              },
            }),
            'Recorded.',
          ),
        ),
        400: problem('A bad entry (named by its index) or more than the limit: nothing was recorded.'),
        404: problem(
          "not_found: a serviceId that is not a player of the studio's games (the detail names them); nothing was recorded.",
        ),
        413: problem('Body too large.'),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
  '/v1/player/{serviceId}/links': {
    get: {
      operationId: 'listLinkedAccounts',
      tags: ['linked accounts'],
      summary: "A player's linked accounts, through the studio's own signals",
      description:
        "Only links the calling studio's signals made, between its own players: never another studio's. Each with the kinds shared, the strength, since when, and the account's standing.",
      parameters: [...clientHeaders, serviceIdParam],
      responses: {
        200: rateLimited(json(linksAnswer, 'The linked accounts.')),
        404: problem("not_found: no player of the studio's games with this serviceId."),
        ...studioErrors,
      },
    },
  },
  '/v1/admin/players/{serviceId}/links': {
    get: {
      operationId: 'moderatorListLinkedAccounts',
      tags: ['linked accounts'],
      summary: "A player's linked accounts, through every studio's signals",
      security: moderatorSecurity,
      parameters: [serviceIdParam],
      responses: {
        200: json(linksAnswer, 'The linked accounts (studioId says whose signals link them).'),
        404: problem('Unknown player.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/evasion-suspicions': {
    get: {
      operationId: 'listEvasionSuspicions',
      tags: ['linked accounts'],
      summary: "Suspicions of ban evasion: the open ones, or one player's every one",
      security: moderatorSecurity,
      parameters: joiQuery(suspicionsQuery),
      responses: {
        200: json(
          closed({
            items: {
              type: 'array',
              items: closed({
                id: { type: 'string' },
                serviceId: { type: 'string', description: 'The suspected account.' },
                bannedServiceId: { type: 'string' },
                sanctionId: { type: 'string' },
                sanctionType: { enum: [...SANCTION_TYPES] },
                scope: { type: 'string' },
                studioId: { type: 'string', description: 'The studio whose signals link them.' },
                kinds,
                strength: { type: 'number', minimum: 0, maximum: 1 },
                detectedAt: dateTime,
                inForce: { type: 'boolean', description: 'Whether the ban is still in force.' },
                clearedAt: { type: ['string', 'null'], format: 'date-time' },
                clearReason: { type: ['string', 'null'] },
              }),
            },
          }),
          'Newest first.',
        ),
        400: problem('A bad serviceId or limit.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/evasion-suspicions/{suspicionId}/clear': {
    post: {
      operationId: 'clearEvasionSuspicion',
      tags: ['linked accounts'],
      summary: 'Clear a suspicion that is not evasion (a household, a shared console)',
      description:
        'Audited; the player no longer shows evasionSuspected for that ban, and the same link to it never raises it again.',
      security: moderatorSecurity,
      parameters: [suspicionIdParam],
      requestBody: joiBody(clearSuspicionSchema),
      responses: {
        204: { description: 'Cleared.' },
        400: problem('No reason, or one too long.'),
        404: problem('No such suspicion.'),
        409: problem('already_cleared: it was cleared before; nothing changed.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
};
