import { pathParam } from '../../params.js';
import { joiQuery } from '../../contract.js';
import {
  clientHeaders,
  closed,
  dateTime,
  json,
  moderatorErrors,
  problem,
  rateLimited,
  ref,
  serviceIdParam,
  studioErrors,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { ERASURE_STATES } from '../../../common/lifecycles/erasure.js';
import { erasureListSchema } from '../../../common/usecases/erasure.js';

/** The OpenAPI operations of erasure (routes.ts beside it; docs/compliance.md "Personal data"). */
const erasureId = pathParam('erasureId');
const adminOnly = { 403: problem('forbidden: admins only.'), ...moderatorErrors } as const;
const requested = (who: string) => ({
  200: json(ref('Erasure'), 'The player already has an open request: that one, unchanged.'),
  202: {
    ...json(ref('Erasure'), `Requested${who}; Location names the erasure to follow.`),
    headers: { Location: { schema: { type: 'string' } } },
  },
});
const requestedByStudio = requested(': pending, or awaiting confirmation');
const decision = (what: 'confirm' | 'cancel') => ({
  post: {
    operationId: what === 'confirm' ? 'confirmErasure' : 'cancelErasure',
    tags: ['players'],
    summary:
      what === 'confirm'
        ? "Confirm a studio's request to erase a player who also plays other studios' games (admins)"
        : "Cancel a studio's request awaiting confirmation (admins); nothing is erased",
    security: moderatorSecurity,
    parameters: [erasureId],
    responses: {
      ...(what === 'confirm'
        ? { 202: json(ref('Erasure'), 'Confirmed: pending, applied shortly.') }
        : { 200: json(ref('Erasure'), 'Cancelled.') }),
      404: problem('No such erasure.'),
      409: problem('erasure_not_awaiting: only a request awaiting confirmation is confirmed or cancelled.'),
      ...adminOnly,
    },
  },
});

export const paths = {
  '/v1/admin/players/{serviceId}/erasure': {
    post: {
      operationId: 'erasePlayer',
      tags: ['players'],
      summary: "Erase a player's personal data (GDPR Art. 17), for an admin answering a request",
      description:
        'Decided at once: written to the erasure ledger and applied by a job. Name, gamer tag, password, KYC flag, the words and evidence of the reports about them, their appeals\' words, notes and tags are removed or replaced; the counts and the skeleton of the decisions stay (docs/compliance.md "Personal data"). The player can no longer sign in, and their service id answers 404 from then on. Idempotent: while a request is open, asking again answers it.',
      security: moderatorSecurity,
      parameters: [serviceIdParam],
      responses: {
        ...requested(': pending'),
        404: problem('Unknown player (or already erased).'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/erasures': {
    get: {
      operationId: 'listErasures',
      tags: ['players'],
      summary: 'Erasures, newest request first, and how many await an admin (admins)',
      security: moderatorSecurity,
      parameters: joiQuery(erasureListSchema),
      responses: {
        200: json(
          closed({
            items: { type: 'array', items: ref('Erasure') },
            awaitingConfirmation: { type: 'integer' },
          }),
          'The erasures.',
        ),
        400: problem('A bad query parameter.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/erasures/{erasureId}': {
    get: {
      operationId: 'getErasure',
      tags: ['players'],
      summary: "An erasure's state and receipt (admins)",
      security: moderatorSecurity,
      parameters: [erasureId],
      responses: {
        200: json(ref('Erasure'), 'The erasure.'),
        404: problem('No such erasure.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/erasures/{erasureId}/confirm': decision('confirm'),
  '/v1/admin/erasures/{erasureId}/cancel': decision('cancel'),
  '/v1/player/{serviceId}/erasure': {
    post: {
      operationId: 'requestPlayerErasure',
      tags: ['players'],
      summary: "Ask to erase one of the studio's players (GDPR Art. 17)",
      description:
        "Decided at once (pending) when the player plays only the studio's games; awaiting an admin's confirmation when they also play another studio's. Only for a player of the studio's games. docs/compliance.md \"Personal data\".",
      parameters: [serviceIdParam, ...clientHeaders],
      responses: {
        200: rateLimited(requestedByStudio[200]),
        202: rateLimited(requestedByStudio[202]),
        404: problem("Unknown player, not one of the studio's games, or already erased."),
        ...studioErrors,
      },
    },
  },
  '/v1/erasures/{erasureId}': {
    get: {
      operationId: 'getStudioErasure',
      tags: ['players'],
      summary: 'The state and receipt of an erasure the studio asked for',
      parameters: [erasureId, ...clientHeaders],
      responses: {
        200: rateLimited(json(ref('Erasure'), 'The erasure.')),
        404: problem('No such erasure, or not one the studio asked for.'),
        ...studioErrors,
      },
    },
  },
};

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;

export const schemas = {
  Erasure: closed({
    id: { type: 'string', format: 'uuid' },
    state: {
      enum: [...ERASURE_STATES],
      description:
        "awaiting_confirmation (a studio asked for a player of other studios' games too), pending (decided, in the ledger, being applied), done, cancelled.",
    },
    playerRecordId: {
      type: 'string',
      format: 'uuid',
      description: "The player's internal id (never their service id): it names nobody once erased.",
    },
    requestedBy: {
      enum: ['admin', 'studio', 'operator', 'restore'],
      description:
        'operator: the admin tool; restore: recreated from the erasure ledger after a restore lost the request.',
    },
    requestedAt: dateTime,
    confirmedAt: nullableDate,
    completedAt: nullableDate,
    cancelledAt: nullableDate,
    receipt: {
      type: ['object', 'null'],
      additionalProperties: { type: 'integer' },
      description:
        'Once done: the rows each part of the record lost or had replaced (offenses, appeals, notes, ...).',
    },
    receiptWords: {
      type: ['array', 'null'],
      items: { type: 'string' },
      description:
        'Once done: the receipt in words, one line a part that removed something (for the people who read it).',
    },
  }),
} as const;
