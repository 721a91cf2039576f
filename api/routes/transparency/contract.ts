import { pathParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import { closed, dateTime, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { STATEMENT_STATES } from '../../../common/lifecycles/transparency-statement.js';
import { accountSchema, statementListSchema } from '../../../common/usecases/transparency.js';
import { REPORT_SECTIONS, reportQuerySchema } from '../../../common/usecases/transparency-report.js';

/** The OpenAPI operations of the DSA Transparency Database screens (routes.ts beside it). */
const platform = pathParam('platform');
const statementId = pathParam('statementId');
const adminOnly = { 403: problem('forbidden: admins only.'), ...moderatorErrors } as const;

export const paths = {
  '/v1/admin/transparency/accounts': {
    get: {
      operationId: 'listTransparencyAccounts',
      tags: ['transparency'],
      summary: "Each platform's account at the DSA Transparency Database (admins); tokens are never shown",
      security: moderatorSecurity,
      responses: {
        200: json(
          closed({
            items: { type: 'array', items: ref('TransparencyAccount') },
            owedNowhere: {
              type: 'array',
              description:
                'Restrictions that owe no statement because their platform had no account when they were placed, by platform (connecting later sends nothing for them).',
              items: closed({
                platform: { type: 'string' },
                platformName: { type: 'string' },
                connected: { type: 'boolean', description: 'Whether the platform has an account now.' },
                restrictions: { type: 'integer' },
                firstPlacedAt: dateTime,
                lastPlacedAt: dateTime,
              }),
            },
          }),
          'The accounts, and the restrictions owed nowhere.',
        ),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/transparency/accounts/{platform}': {
    put: {
      operationId: 'putTransparencyAccount',
      tags: ['transparency'],
      summary: "Configure a platform's account (admins): from then on its restrictions owe statements",
      security: moderatorSecurity,
      parameters: [platform],
      requestBody: joiBody(accountSchema),
      responses: {
        200: json(ref('TransparencyAccount'), 'Replaced.'),
        201: json(ref('TransparencyAccount'), 'Configured.'),
        400: problem('A missing or bad field (submit needs baseUrl and token).'),
        404: problem('No such studio (a platform is `operator` or a studio id).'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
    delete: {
      operationId: 'deleteTransparencyAccount',
      tags: ['transparency'],
      summary: "Remove a platform's account: new restrictions owe no statement; pending ones wait",
      security: moderatorSecurity,
      parameters: [platform],
      responses: { 204: { description: 'Removed.' }, 404: problem('No account for it.'), ...adminOnly },
    },
  },
  '/v1/admin/transparency/statements': {
    get: {
      operationId: 'listTransparencyStatements',
      tags: ['transparency'],
      summary:
        'Statements to the database (admins): by default the refused, newest first, then the oldest pending',
      security: moderatorSecurity,
      parameters: joiQuery(statementListSchema),
      responses: {
        200: json(
          closed({
            items: { type: 'array', items: ref('TransparencyStatement') },
            pending: { type: 'integer' },
            refused: { type: 'integer' },
            oldestPendingAt: { type: ['string', 'null'], format: 'date-time' },
          }),
          'The statements, and how many are pending and refused.',
        ),
        400: problem('A bad query parameter.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/transparency/statements/{statementId}/retry': {
    post: {
      operationId: 'retryTransparencyStatement',
      tags: ['transparency'],
      summary: 'Send a refused statement again, once what the database refused is mended (admins)',
      security: moderatorSecurity,
      parameters: [statementId],
      responses: {
        202: json(closed({ state: { enum: ['pending'] } }), 'Pending again; sent shortly.'),
        404: problem('No such statement.'),
        409: problem('statement_not_refused: only a refused statement is sent again.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/transparency-report': {
    get: {
      operationId: 'transparencyReport',
      tags: ['transparency'],
      summary:
        'The transparency report (Art. 15, 24(1) DSA) for a period and a platform, from the records (admins)',
      description:
        'One row a figure, laid out after the sections of the harmonised templates (docs/compliance.md "The transparency report"). JSON, or CSV with format=csv or Accept: text/csv (a download).',
      security: moderatorSecurity,
      parameters: joiQuery(reportQuerySchema),
      responses: {
        200: {
          description: 'The report.',
          content: {
            'application/json': {
              schema: closed({
                period: closed({ from: dateTime, to: dateTime }),
                platform: { type: 'string' },
                generatedAt: dateTime,
                rows: { type: 'array', items: ref('TransparencyReportRow') },
              }),
            },
            'text/csv': {
              schema: { type: 'string', description: 'section,field,breakdown,value; one line a figure.' },
            },
          },
        },
        400: problem('A bad or missing parameter, or an empty period.'),
        404: problem('No such studio.'),
        ...adminOnly,
      },
    },
  },
};

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;

export const schemas = {
  TransparencyReportRow: closed({
    section: { enum: REPORT_SECTIONS },
    field: { type: 'string' },
    breakdown: { type: 'string' },
    value: { type: ['integer', 'number', 'string'] },
  }),
  TransparencyAccount: closed({
    platform: { type: 'string' },
    platformName: { type: 'string', description: "The studio's name, or the operator's global decisions." },
    mode: { enum: ['submit', 'dry-run'] },
    baseUrl: { type: ['string', 'null'] },
    tokenSet: { type: 'boolean' },
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  TransparencyStatement: closed({
    id: { type: 'string' },
    sanctionId: { type: 'string' },
    playerServiceId: {
      type: ['string', 'null'],
      description:
        'Whom the sanction is about, in the admin list (never sent to the database); null elsewhere.',
    },
    platform: { type: 'string' },
    platformName: { type: 'string', description: "The studio's name, or the operator's global decisions." },
    puid: { type: 'string', description: "The decision's own id: sanction-<sanction id>." },
    state: { enum: [...STATEMENT_STATES] },
    uuid: { type: ['string', 'null'], description: "The database's id of it, once sent." },
    permalink: { type: ['string', 'null'], description: 'Its public page in the database, once sent.' },
    dryRun: { type: 'boolean', description: 'Written for review (dry-run), not sent.' },
    refusal: {
      description: "The database's own words when it refused it (its errors for this statement), else null.",
    },
    attempts: { type: 'integer' },
    lastError: { type: ['string', 'null'], description: 'Why the last attempt failed for a passing reason.' },
    nextAttemptAt: nullableDate,
    createdAt: dateTime,
    sentAt: nullableDate,
    refusedAt: nullableDate,
    statement: {
      description: 'The statement as last sent (the database’s fields), or null before the first attempt.',
    },
  }),
} as const;
