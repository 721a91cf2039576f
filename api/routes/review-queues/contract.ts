import { pathParam } from '../../params.js';
import { NOTICE_CATEGORIES } from '../../../common/domain/notices.js';
import { joiBody } from '../../contract.js';
import { closed, dateTime, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { CASE_SOURCES, REPORT_KINDS, SEVERITIES } from '../../../common/domain/reports.js';
import { queueChangeSchema, queueSchema, rulesSchema } from '../../../common/usecases/review-queues.js';
import { MODERATOR_ROLES } from '../../../common/data/repos/moderation.js';

/** The OpenAPI operations of review queues and routing (routes.ts beside it); api/openapi.ts assembles them. */
const queueKey = pathParam('queueKey');
const rules = <const E extends Record<string, unknown> = Record<never, never>>(extra: E = {} as E) =>
  closed({
    items: { type: 'array', items: ref('RoutingRule') },
    defaultQueue: { type: 'string', description: 'Where a case no rule matches goes: general.' },
    ...extra,
  });

export const paths = {
  '/v1/admin/queues': {
    get: {
      operationId: 'listQueues',
      tags: ['moderation'],
      summary:
        'Every review queue in use, general first (any moderator may escalate to any), with the open, overdue and unclaimed cases of those you may see',
      security: moderatorSecurity,
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('ReviewQueue') } }), 'The queues.'),
        ...moderatorErrors,
      },
    },
    post: {
      operationId: 'createQueue',
      tags: ['moderation'],
      summary: 'Add a review queue (admins); routing rules send cases to it',
      security: moderatorSecurity,
      requestBody: joiBody(queueSchema),
      responses: {
        201: json(ref('ReviewQueue'), 'Added (audited: edit_routing).'),
        400: problem('A missing or bad field.'),
        403: problem('forbidden: admins only.'),
        409: problem(
          'queue_exists: the key, or the name of a queue in use, is taken (a key stays taken once used).',
        ),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/queues/{queueKey}': {
    patch: {
      operationId: 'changeQueue',
      tags: ['moderation'],
      summary:
        "Rename a queue, rewrite its description or change who sees it (admins; general stays everyone's)",
      security: moderatorSecurity,
      parameters: [queueKey],
      requestBody: joiBody(queueChangeSchema),
      responses: {
        200: json(ref('ReviewQueue'), 'Changed (audited: edit_routing).'),
        400: problem('No field, a bad one, or general made admins-only.'),
        403: problem('forbidden: admins only.'),
        404: problem('No such queue in use.'),
        409: problem('queue_exists: another queue has that name.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
    delete: {
      operationId: 'archiveQueue',
      tags: ['moderation'],
      summary: 'Archive a queue (admins): only one no rule sends cases to and that holds no open case',
      security: moderatorSecurity,
      parameters: [queueKey],
      responses: {
        204: { description: 'Archived (audited: edit_routing); its resolved cases still name it.' },
        403: problem('forbidden: admins only.'),
        404: problem('No such queue in use.'),
        409: problem('queue_in_use: general, or a queue a rule names or that holds open cases.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/queue-rules': {
    get: {
      operationId: 'listQueueRules',
      tags: ['moderation'],
      summary: 'The routing rules, in order: the first a case matches picks its queue',
      security: moderatorSecurity,
      responses: { 200: json(rules(), 'The rules.'), ...moderatorErrors },
    },
    put: {
      operationId: 'replaceQueueRules',
      tags: ['moderation'],
      summary: 'Replace the routing rules (admins); open cases nobody moved by hand are routed again at once',
      description:
        "A case is matched on its kind, its highest severity and the game (and that game's studio) of its first report; it is routed again at each filing (its severity may rise) and when the rules are saved, unless a moderator moved it to a queue (escalate with queue).",
      security: moderatorSecurity,
      requestBody: joiBody(rulesSchema),
      responses: {
        200: json(
          rules({ rerouted: { type: 'integer', description: 'Open cases that changed queue.' } }),
          'Saved (audited: edit_routing, the rules before and after).',
        ),
        400: problem(
          'A bad rule, a queue not in use, or a studio or game that does not exist (named by field).',
        ),
        403: problem('forbidden: admins only.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/studios': {
    get: {
      operationId: 'listStudios',
      tags: ['moderation'],
      summary: 'The studios and their games by name: what routing rules (and names in the console) refer to',
      security: moderatorSecurity,
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('StudioWithGames') } }), 'Every studio.'),
        ...moderatorErrors,
      },
    },
  },
};

const count = { type: ['integer', 'null'], minimum: 0 } as const;

/** Components of the document that only this feature's answers use. */
export const schemas = {
  ReviewQueue: closed({
    key: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    visibleTo: {
      enum: MODERATOR_ROLES,
      description: 'admin: only admins see its cases and work them.',
    },
    createdAt: dateTime,
    pending: {
      ...count,
      description: 'Open cases in it now (null: a queue only admins see, to a moderator).',
    },
    overdue: { ...count, description: 'Of those, past their dueAt (null as pending).' },
    unclaimed: { ...count, description: 'Of those, held by nobody, no live claim (null as pending).' },
  }),
  RoutingRule: {
    type: 'object',
    description: 'Each criterion left out matches any case.',
    required: ['queue'],
    additionalProperties: false,
    properties: {
      queue: { type: 'string' },
      types: { type: 'array', items: { enum: Object.values(REPORT_KINDS) } },
      minSeverity: { enum: [...SEVERITIES] },
      studios: { type: 'array', items: { type: 'string' } },
      games: { type: 'array', items: { type: 'string' } },
      sources: { type: 'array', items: { enum: [...CASE_SOURCES] } },
      categories: { type: 'array', items: { enum: NOTICE_CATEGORIES } },
    },
  },
  StudioWithGames: closed({
    id: { type: 'string' },
    name: { type: 'string' },
    games: { type: 'array', items: closed({ id: { type: 'string' }, title: { type: 'string' } }) },
  }),
} as const;
