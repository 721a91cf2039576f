import { pathParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import {
  closed,
  dateTime,
  json,
  moderatorErrors,
  operationIdOf,
  page,
  problem,
  ref,
  serviceIdParam,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import {
  assignmentSchema,
  auditQuery,
  caseQuery,
  escalationSchema,
  sessionBody,
  statsQuery,
} from './schema.js';
import { MODERATOR_ROLES } from '../../../common/data/repos/moderation.js';
import { muteSchema, resolutionSchema } from '../../../common/usecases/moderation.js';
import { exportQuery } from '../../../common/usecases/player-export.js';
import { STATEMENT_STATES } from '../../../common/lifecycles/transparency-statement.js';

/** The OpenAPI operations of the admin routes (routes.ts beside it); api/openapi.ts assembles them. */
const bearer = moderatorSecurity;

const caseIdParam = pathParam('caseId');

const caseAction = (summary: string, description: string, extra: Record<string, unknown> = {}) => ({
  post: {
    operationId: operationIdOf(summary),
    tags: ['moderation'],
    summary,
    description,
    security: bearer,
    parameters: [caseIdParam],
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'forbidden' && k !== 'anyQueue')),
    responses: {
      200: json(ref('ReviewCase'), 'The case after the action.'),
      ...('requestBody' in extra
        ? { 400: problem('Invalid body: outcome or note missing or malformed.') }
        : {}),
      404: problem('No such case.'),
      // Every action but a release (its holder may give a claim back wherever the case went).
      ...('anyQueue' in extra
        ? {}
        : {
            403: problem(
              'forbidden: the case is in a queue only admins work' +
                ('forbidden' in extra ? ', or the action is for admins only.' : '.'),
            ),
          }),
      409: problem(
        'case_claimed (another moderator holds a live claim: claimedBy, claimExpiresAt), case_not_claimed, case_resolved, or case_escalated (the case was escalated: an admin works it).',
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
    parameters: [pathParam('studioId'), pathParam('reporterId')],
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

export const paths = {
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
        403: problem(
          'forbidden: escalated=only or include, or a queue only admins see, which are for admins.',
        ),
        404: problem('not_found: queue names no queue in use.'),
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
        403: problem('forbidden: the case is in a queue only admins work.'),
        404: problem('No such case.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/cases/{caseId}/claim': caseAction(
    'Claim a case',
    'Takes the case for CASE_LEASE_SECONDS (15 minutes by default); claiming it again renews the lease. Another moderator cannot act on it while the lease lasts; after it expires anyone may claim it.',
  ),
  '/v1/admin/cases/{caseId}/escalate': caseAction(
    'Escalate a case to the senior role',
    'With a note saying why. With queue (a queue key), the case moves to that review queue and stays there whatever the routing rules say (queue.pinned); without, it goes to the senior role: only admins see it in the queue (escalated=only) and may claim it. Either way its claim and assignment go. Audited (escalate).',
    { requestBody: joiBody(escalationSchema) },
  ),
  '/v1/admin/cases/{caseId}/assign': caseAction(
    'Assign a case to a moderator',
    'Admins only. username: the moderator (an admin, for an escalated case); null takes the assignment back. The assignee finds it with assigned=mine. Audited (assign).',
    { requestBody: joiBody(assignmentSchema), forbidden: true },
  ),
  '/v1/admin/cases/{caseId}/release': caseAction(
    'Release a claim',
    'Gives the claim back. Only its holder may release it, or an admin.',
    { anyQueue: true },
  ),
  '/v1/admin/cases/{caseId}/resolve': caseAction(
    'Resolve a case as upheld or dismissed',
    'Needs your live claim. In one transaction: every offense of the case gets reviewedByAdmin, resolved and resolvedAt; upholding applies the points held for the case (in the order the reports came, floored at 0; trust history reason held_released); a dismissal gives back the points those offenses actually deducted (the score never above 100; reason dismissal) and drops the held ones; each named reporter gets the outcome counted for its credibility; the audit log records the trust score before and after; a dismissal revokes the sanctions a rule placed with the case. Of two conflicting resolutions one wins; the other gets 409 case_resolved. A sanction that must wait for a second moderator (a ban of a protected player; with FOUR_EYES_PERMANENT_BANS a permanent ban) is 409 approval_required and nothing changes: place it on the player instead (docs/moderators.md "Four eyes").',
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
  '/v1/admin/queue-counts': {
    get: {
      operationId: 'queueCounts',
      tags: ['moderation'],
      summary: "The counts on the queue's tabs: open and overdue cases, open appeals, cases resolved in 24 h",
      security: bearer,
      responses: {
        200: json(
          closed({
            open: {
              type: 'integer',
              description:
                "Open cases in the caller's Open list: not escalated, in queues the caller's role sees.",
            },
            overdue: { type: 'integer', description: 'Of those, the ones past their due time.' },
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
            tags: { type: 'array', items: { type: 'string' }, description: "The team's tags on the player." },
            studioNames: {
              type: 'object',
              additionalProperties: { type: 'string' },
              description:
                'The name of every studio whose id appears above (offenses, reporters, sanction scopes), by id.',
            },
            transparencyStatements: {
              type: 'object',
              description:
                'Each listed sanction\'s statement to the DSA Transparency Database, by sanction id (only those that owe one: docs/compliance.md "Regulation (EU DSA)").',
              additionalProperties: closed({
                id: { type: 'string' },
                state: { enum: STATEMENT_STATES },
                permalink: { type: ['string', 'null'] },
                dryRun: { type: 'boolean' },
                refusal: { description: "The database's own words when it refused it, else null." },
                lastError: { type: ['string', 'null'] },
                sentAt: { type: ['string', 'null'], format: 'date-time' },
              }),
            },
          }),
          'The player.',
        ),
        404: problem('Unknown player.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/players/{serviceId}/export': {
    get: {
      operationId: 'exportPlayer',
      tags: ['moderation'],
      summary: "A player's record (admins): the internal export, or the player's copy (GDPR Art. 15, 20)",
      description:
        "One JSON document, streamed as a download, read page by page (bounded memory whatever the history). By default the internal export: a manifest of its parts, then the player, games, every offense in full, the trust history, sanctions, strikes, appeals, statements of reasons, moderators' notes and tags; it holds other people's data and is not for the player. With copy=player, the player's copy, the answer to their data-access request: what the standing page gives them, the words they are reported to have written, and nobody else's data. docs/compliance.md \"Personal data\".",
      security: bearer,
      parameters: [serviceIdParam, ...joiQuery(exportQuery)],
      responses: {
        200: json(ref('PlayerExport'), 'The export.'),
        400: problem('validation_failed: copy is not player.'),
        403: problem('forbidden: admins only.'),
        404: problem('Unknown player.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/players/{serviceId}/timeline': {
    get: {
      operationId: 'playerTimeline',
      tags: ['moderation'],
      summary: "A player's timeline: every report, score change, decision, appeal and note, newest first",
      description:
        'Each event with who (a studio, a moderator, the player, or the service itself) and why; the latest 200. Claims and releases are left out (the audit log has them).',
      security: bearer,
      parameters: [serviceIdParam],
      responses: {
        200: json(
          closed({
            items: {
              type: 'array',
              items: closed({
                at: dateTime,
                kind: { enum: ['report', 'score', 'decision', 'appeal', 'note'] },
                who: closed({
                  kind: { enum: ['studio', 'moderator', 'player', 'service'] },
                  name: { type: ['string', 'null'] },
                }),
                what: { type: 'string' },
                why: { type: ['string', 'null'] },
                caseId: { type: ['string', 'null'] },
              }),
            },
          }),
          'The timeline.',
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
            queues: {
              type: 'array',
              description:
                'Each review queue you may see (general first): open now, and over the window (a case counts in the queue it is in now).',
              items: ref('QueueFigures'),
            },
            appeals: {
              ...closed({
                pending: { type: 'integer', description: 'Open appeals now.' },
                inbound: { type: 'integer', description: 'Appeals filed in the window.' },
                decided: { type: 'integer', description: 'Appeals decided in the window.' },
                medianHandlingSeconds: {
                  type: ['integer', 'null'],
                  description: 'Median time from filing to decision of those.',
                },
                moderators: { type: 'array', items: ref('ModeratorFigures') },
              }),
              description: 'The appeals queue over the same window.',
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
};

/** Components of the document that only this feature's answers use. */
const handling = {
  type: ['integer', 'null'],
  description: 'Median time from opening to resolution of the cases resolved in the window (null: none).',
} as const;

export const schemas = {
  ModeratorFigures: closed({
    username: { type: 'string' },
    resolved: { type: 'integer', description: 'Cases resolved (appeals decided) in the window.' },
    medianHandlingSeconds: handling,
  }),
  QueueFigures: closed({
    key: { type: 'string' },
    name: { type: 'string' },
    visibleTo: { enum: MODERATOR_ROLES },
    pending: { type: 'integer', description: 'Open cases in it now.' },
    overdue: { type: 'integer', description: 'Of those, past their dueAt.' },
    inbound: { type: 'integer', description: 'Cases opened in the window that are in it now.' },
    resolved: { type: 'integer', description: 'Cases resolved in it in the window.' },
    medianHandlingSeconds: handling,
    moderators: {
      type: 'array',
      description: 'Who resolved them, most first.',
      items: ref('ModeratorFigures'),
    },
  }),
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
} as const;
