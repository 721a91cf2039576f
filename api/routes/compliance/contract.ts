import { pathParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import { closed, dateTime, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { NOTICE_CATEGORIES } from '../../../common/domain/notices.js';
import { TDB } from '../../../common/domain/transparency-vocabulary.js';
import {
  DISPUTE_OUTCOMES,
  DISPUTE_SUBJECTS,
  ORDER_KINDS,
} from '../../../common/lifecycles/compliance-record.js';
import { complianceListSchema, disputeSchema, orderSchema } from '../../../common/usecases/compliance.js';

/** The OpenAPI operations of the compliance officer's records (routes.ts beside it). */
const orderId = pathParam('orderId');
const disputeId = pathParam('disputeId');
const adminOnly = { 403: problem('forbidden: admins only.'), ...moderatorErrors } as const;
const bad = problem(
  'A missing or bad field: dates in the future or out of order, a pair given half (actedAt and action, closedAt and outcome), a platform that is neither operator nor a studio.',
);

const list = <N extends 'AuthorityOrder' | 'Dispute'>(item: N, what: string) =>
  json(
    closed({
      items: { type: 'array', items: ref(item) },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Pass as cursor for the next page; null at the end.',
      },
    }),
    what,
  );

export const paths = {
  '/v1/admin/compliance/orders': {
    get: {
      operationId: 'listAuthorityOrders',
      tags: ['transparency'],
      summary: 'Orders from authorities (DSA Art. 9, 10), newest recorded first (admins)',
      security: moderatorSecurity,
      parameters: joiQuery(complianceListSchema),
      responses: {
        200: list('AuthorityOrder', 'A page of orders.'),
        400: problem('A bad query parameter.'),
        ...adminOnly,
      },
    },
    post: {
      operationId: 'recordAuthorityOrder',
      tags: ['transparency'],
      summary: 'Record an order from an authority when it is received (admins)',
      security: moderatorSecurity,
      requestBody: joiBody(orderSchema),
      responses: {
        201: json(ref('AuthorityOrder'), 'Recorded.'),
        400: bad,
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/compliance/orders/{orderId}': {
    put: {
      operationId: 'putAuthorityOrder',
      tags: ['transparency'],
      summary: 'Complete or correct an order: the whole order as it stands (admins)',
      security: moderatorSecurity,
      parameters: [orderId],
      requestBody: joiBody(orderSchema),
      responses: {
        200: json(ref('AuthorityOrder'), 'Replaced.'),
        400: bad,
        404: problem('No such order.'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/compliance/disputes': {
    get: {
      operationId: 'listDisputes',
      tags: ['transparency'],
      summary: 'Out-of-court disputes (DSA Art. 21), newest recorded first (admins)',
      security: moderatorSecurity,
      parameters: joiQuery(complianceListSchema),
      responses: {
        200: list('Dispute', 'A page of disputes.'),
        400: problem('A bad query parameter.'),
        ...adminOnly,
      },
    },
    post: {
      operationId: 'recordDispute',
      tags: ['transparency'],
      summary: 'Record a dispute brought to a certified out-of-court body (admins)',
      security: moderatorSecurity,
      requestBody: joiBody(disputeSchema),
      responses: {
        201: json(ref('Dispute'), 'Recorded.'),
        400: bad,
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/compliance/disputes/{disputeId}': {
    put: {
      operationId: 'putDispute',
      tags: ['transparency'],
      summary: 'Close or correct a dispute: the whole dispute as it stands (admins)',
      security: moderatorSecurity,
      parameters: [disputeId],
      requestBody: joiBody(disputeSchema),
      responses: {
        200: json(ref('Dispute'), 'Replaced.'),
        400: bad,
        404: problem('No such dispute.'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
};

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;

export const schemas = {
  AuthorityOrder: closed({
    id: { type: 'string' },
    platform: { type: 'string' },
    kind: { enum: [...ORDER_KINDS] },
    authority: { type: 'string' },
    memberState: { enum: [...TDB.countries] },
    category: { enum: [...NOTICE_CATEGORIES] },
    reference: nullableString,
    receivedAt: dateTime,
    acknowledgedAt: nullableDate,
    actedAt: nullableDate,
    action: nullableString,
    recordedBy: { type: 'string', description: 'The admin who recorded it.' },
    updatedBy: { type: ['string', 'null'], description: 'The admin who last changed it.' },
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  Dispute: closed({
    id: { type: 'string' },
    platform: { type: 'string' },
    body: { type: 'string' },
    subject: { enum: [...DISPUTE_SUBJECTS] },
    reference: nullableString,
    submittedAt: dateTime,
    closedAt: nullableDate,
    outcome: { enum: [...DISPUTE_OUTCOMES, null] },
    implemented: { type: ['boolean', 'null'] },
    recordedBy: { type: 'string', description: 'The admin who recorded it.' },
    updatedBy: { type: ['string', 'null'], description: 'The admin who last changed it.' },
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
} as const;
