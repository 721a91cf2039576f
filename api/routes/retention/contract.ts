import { joiBody } from '../../contract.js';
import { closed, dateTime, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { RETENTION_KINDS } from '../../../common/lifecycles/retention.js';
import { runSchema } from '../../../common/usecases/retention.js';

/** The OpenAPI operations of retention (routes.ts beside it; docs/compliance.md "Personal data"). */
const adminOnly = { 403: problem('forbidden: admins only.'), ...moderatorErrors } as const;
const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;

export const paths = {
  '/v1/admin/retention': {
    get: {
      operationId: 'getRetention',
      tags: ['players'],
      summary: "Each kind's retention window, what is due now and the latest runs (admins)",
      description:
        'What a run would remove now, kind by kind (counted, nothing changes), the oldest row still holding each kind, and the last ten runs, scheduled or asked for (docs/compliance.md "Personal data": Retention).',
      security: moderatorSecurity,
      responses: {
        200: json(
          closed({
            intervalMs: {
              type: 'integer',
              description: 'How often the scheduled run comes (RETENTION_INTERVAL_MS).',
            },
            kinds: { type: 'array', items: ref('RetentionKindDue') },
            runs: { type: 'array', items: ref('RetentionRun') },
          }),
          'The windows, what is due and the latest runs.',
        ),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/retention/runs': {
    post: {
      operationId: 'runRetention',
      tags: ['players'],
      summary:
        'Remove what is past its retention window now, or (dryRun) say what that would remove (admins)',
      description:
        'A run takes the lock the scheduled run takes, removes what is due in bounded batches, is recorded and audited (run_retention). A dry run changes nothing and is not recorded.',
      security: moderatorSecurity,
      requestBody: joiBody(runSchema, { required: false }),
      responses: {
        200: json(
          {
            oneOf: [
              ref('RetentionRun'),
              closed({
                dryRun: { const: true },
                kinds: { type: 'array', items: ref('RetentionKindDue') },
              }),
            ],
          },
          'The run with what each kind lost, or (a dry run) what is due.',
        ),
        400: problem('A bad body.'),
        409: problem('retention_running: another run (a worker) holds the lock now; try again later.'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
};

const kindFields = {
  kind: { enum: [...RETENTION_KINDS] },
  what: { type: 'string', description: 'What the kind is, in words.' },
  windowDays: { type: 'integer', description: 'Its window (RETENTION_*_DAYS).' },
  olderThan: { ...dateTime, description: 'The cutoff: rows older than this are due.' },
  moreDue: {
    type: 'boolean',
    description:
      'More rows are due than one run removes (batches of 1,000, at most 100 a kind): the next runs take the rest.',
  },
  oldestHeld: { ...nullableDate, description: 'The oldest row still holding the kind, due or not.' },
} as const;

export const schemas = {
  RetentionKindDue: closed({
    ...kindFields,
    wouldRemove: {
      type: 'integer',
      description: "Rows a run would remove or reduce now (at most one run's worth: see moreDue).",
    },
  }),
  RetentionRun: closed({
    dryRun: { const: false },
    id: { type: 'string' },
    requestedBy: {
      enum: ['schedule', 'operator', 'admin'],
      description:
        'schedule: the job every RETENTION_INTERVAL_MS; operator: the admin tool; admin: the API or the console.',
    },
    moderator: {
      oneOf: [
        closed({ id: { type: 'string', format: 'uuid' }, displayName: { type: 'string' } }),
        { type: 'null' },
      ],
      description: 'The admin who asked, when one did.',
    },
    startedAt: dateTime,
    finishedAt: dateTime,
    removed: { type: 'integer', description: 'Rows removed or reduced, every kind together.' },
    kinds: {
      type: 'array',
      items: closed({
        ...kindFields,
        removed: { type: 'integer', description: 'Rows this kind lost or had reduced.' },
      }),
    },
  }),
} as const;
