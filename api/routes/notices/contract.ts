import { pathParam, headerParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import {
  clientHeaders,
  closed,
  dateTime,
  json,
  moderatorErrors,
  problem,
  rateLimited,
  rateLimitedResponse,
  ref,
  serverErrors,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { NOTICE_CATEGORIES, noticeSchema } from '../../../common/domain/notices.js';
import {
  complaintSchema,
  flaggerSchema,
  noticeListSchema,
  suspendSchema,
} from '../../../common/usecases/notices.js';
import { liftSchema, measuresQuerySchema, unfoundedSchema } from '../../../common/usecases/misuse.js';
import { NOTICE_SOURCES } from '../../../common/domain/reports.js';
import { APPEAL_STATUSES } from '../../../common/lifecycles/appeal.js';

/** The OpenAPI operations of notices and trusted flaggers (routes.ts beside it; docs/moderators.md "Notices"). */
const STANDINGS = ['received', 'in_review', 'action_taken', 'no_action'] as const;
const adminOnly = { 403: problem('forbidden: admins only.'), ...moderatorErrors } as const;
const flaggerId = pathParam('flaggerId');
const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;
const flaggerProps = {
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string' },
  areas: { type: 'array', items: { enum: NOTICE_CATEGORIES } },
  coordinator: { type: 'string' },
  createdAt: dateTime,
  suspended: { type: 'boolean' },
  suspendedAt: nullableDate,
  suspendReason: { type: ['string', 'null'] },
  notices: { type: 'integer' },
  decided: { type: 'integer' },
  upheld: { type: 'integer' },
  accuracy: {
    type: ['number', 'null'],
    description: 'Upheld of decided (0 to 1); null before any is decided.',
  },
} as const;

export const paths = {
  '/v1/notices/games': {
    get: {
      operationId: 'listNoticeGames',
      tags: ['notices'],
      summary: 'The games a notice may name (public): id and title',
      responses: {
        200: json(
          closed({
            items: { type: 'array', items: closed({ id: { type: 'string' }, title: { type: 'string' } }) },
          }),
          'The games.',
        ),
        ...serverErrors,
      },
    },
  },
  '/v1/notices': {
    post: {
      operationId: 'fileNotice',
      tags: ['notices'],
      summary: 'Send a notice (DSA Art. 16): anyone, no credentials; a trusted flagger with its key',
      description:
        'A notice about a player of a game, or what they wrote or made, as illegal or against the rules. The answer is a receipt: keep its secret (shown once) to read where the notice stands. Without Authorization it is a person\'s notice, bounded per address and per e-mail a day; with `Authorization: Bearer <key>` a trusted flagger\'s (Art. 22), ahead in the queue for the categories it is trusted for. The notice takes no points by itself: they are held for a moderator. docs/moderators.md "Notices".',
      security: [{}, { trustedFlaggerKey: [] }],
      requestBody: joiBody(noticeSchema),
      responses: {
        201: {
          ...json(ref('NoticeReceipt'), 'Received; Location names where it stands (with its secret).'),
          headers: { Location: { schema: { type: 'string' } } },
        },
        400: problem('A missing or bad field (every one is named).'),
        401: problem('invalid_flagger_key: the Authorization names no trusted flagger.'),
        403: problem(
          'flagger_suspended: the trusted flagger is suspended; notifier_suspended: notices from this sender are not processed until a time (Art. 23).',
        ),
        404: problem('No such game, or no player of that id or gamer tag plays it.'),
        409: problem(
          'duplicate_notice: the same sender, player and kind in the same match within 24 h, or within the hour.',
        ),
        415: problem('Body is not JSON.'),
        429: {
          ...problem(
            'notice_quota_exceeded: too many notices from this address or e-mail today; Retry-After says when.',
          ),
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
        },
        ...serverErrors,
      },
    },
  },
  '/v1/notices/{noticeId}': {
    get: {
      operationId: 'getNoticeStanding',
      tags: ['notices'],
      summary:
        'Where a notice stands, for whoever holds its receipt (the secret in the Notice-Secret header)',
      description:
        "The decision in general terms (never the sanction's details or a moderator's name), whether automated means were used, and the ways to take it further. An unknown id and a wrong secret answer the same 404.",
      parameters: [pathParam('noticeId'), headerParam('Notice-Secret')],
      responses: {
        200: json(ref('NoticeStanding'), 'Where it stands.'),
        404: problem('No notice with this id and secret.'),
        ...serverErrors,
      },
    },
  },
  '/v1/notices/{noticeId}/complaint': {
    post: {
      operationId: 'fileNoticeComplaint',
      tags: ['notices'],
      summary: "Contest the decision on a notice (DSA Art. 20): its notifier, with the receipt's secret",
      description:
        'Only a dismissal ("no action" by a moderator), once, within NOTICE_COMPLAINT_DAYS (six months) of the decision, free of charge. It goes to the appeals queue and is decided by a moderator other than the one who dismissed the notice; granted, the case reopens. Answers the standing, with the complaint. docs/moderators.md "Notices".',
      parameters: [pathParam('noticeId'), headerParam('Notice-Secret')],
      requestBody: joiBody(complaintSchema),
      responses: {
        201: json(ref('NoticeStanding'), 'Filed: the standing, with the complaint open.'),
        400: problem('A missing or bad statement.'),
        403: problem(
          'notifier_suspended: complaints from this sender are not processed until a time (Art. 23).',
        ),
        404: problem('No notice with this id and secret.'),
        409: problem(
          "not_contestable: not decided yet, action was taken, decided on the player's appeal, or past the window (detail says which); complaint_exists: one was already made.",
        ),
        415: problem('Body is not JSON.'),
        ...serverErrors,
      },
    },
  },
  '/v1/admin/notices': {
    get: {
      operationId: 'listNotices',
      tags: ['notices'],
      summary:
        'Notices for moderators, newest first: where each stands, its complaint, whether marked unfounded',
      description:
        'Never the notifier\'s name or e-mail: deciding does not need them (docs/moderators.md "Notices").',
      security: moderatorSecurity,
      parameters: joiQuery(noticeListSchema),
      responses: {
        200: json(
          closed({
            items: {
              type: 'array',
              items: closed({
                id: { type: 'string', format: 'uuid' },
                receivedAt: dateTime,
                game: closed({ id: { type: 'string' }, title: { type: 'string' } }),
                player: closed({ serviceId: { type: 'string' }, gamerTag: { type: 'string' } }),
                category: { enum: NOTICE_CATEGORIES },
                categoryWords: { type: 'string' },
                source: { enum: NOTICE_SOURCES },
                trustedFlagger: { type: ['string', 'null'], description: "The flagger's name." },
                sender: ref('MisuseSender'),
                offenseId: { type: 'string', format: 'uuid' },
                caseId: { type: ['string', 'null'] },
                status: { enum: STANDINGS },
                reversed: { type: 'boolean' },
                decidedAt: nullableDate,
                complaint: {
                  ...closed({ id: { type: 'string' }, status: { enum: APPEAL_STATUSES } }),
                  type: ['object', 'null'],
                },
                markedUnfounded: { type: 'boolean' },
              }),
            },
            nextCursor: { type: ['string', 'null'] },
          }),
          'A page of notices.',
        ),
        400: problem('A bad query parameter or cursor.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/offenses/{offenseId}/unfounded': {
    post: {
      operationId: 'markUnfounded',
      tags: ['notices'],
      summary:
        "Mark a notice or a game's report manifestly unfounded (DSA Art. 23): a mark against its sender; audited",
      description:
        'Only once its case was dismissed. At MISUSE_WARN_AFTER marks within MISUSE_WINDOW_DAYS the sender is warned; at MISUSE_SUSPEND_AFTER, after a warning, suspended for MISUSE_SUSPENSION_DAYS (a notifier\'s notices and complaints refused; an in-game reporter\'s reports weigh nothing). docs/moderators.md "Notices".',
      security: moderatorSecurity,
      parameters: [pathParam('offenseId')],
      requestBody: joiBody(unfoundedSchema),
      responses: {
        201: json(
          closed({
            offenseId: { type: 'string', format: 'uuid' },
            sender: ref('MisuseSender'),
            marks: { type: 'integer', minimum: 1, description: 'Marks against the sender in the window.' },
            measure: {
              oneOf: [ref('MisuseMeasure'), { type: 'null' }],
              description: 'The measure this mark led to.',
            },
          }),
          'Marked.',
        ),
        400: problem('A missing note.'),
        404: problem('No such offense.'),
        409: problem(
          "not_dismissed: its case was not dismissed; no_sender: it names no reporter (a game server's finding); already_marked.",
        ),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/misuse/measures': {
    get: {
      operationId: 'listMisuseMeasures',
      tags: ['notices'],
      summary: 'Warnings and suspensions under DSA Art. 23, newest first',
      security: moderatorSecurity,
      parameters: joiQuery(measuresQuerySchema),
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('MisuseMeasure') } }), 'The measures.'),
        400: problem('A bad query parameter.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/misuse/measures/{measureId}/lift': {
    post: {
      operationId: 'liftMisuseSuspension',
      tags: ['notices'],
      summary: 'Lift a suspension in force (admins), with a note; audited',
      security: moderatorSecurity,
      parameters: [pathParam('measureId')],
      requestBody: joiBody(liftSchema),
      responses: {
        200: json(ref('MisuseMeasure'), 'Lifted.'),
        400: problem('A missing note.'),
        404: problem('No such measure.'),
        409: problem('suspension_not_in_force: a warning, or a suspension lifted or ended.'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
  '/v1/reports/{reportId}/outcome': {
    get: {
      operationId: 'getReportOutcome',
      tags: ['reports'],
      summary: 'What a game may tell its in-game reporter about a report it filed with a reporterId',
      description:
        'The same standing a notifier reads (received, in_review, action_taken, no_action), in the same general words: for the studio that filed the report, when it named a reporterId (404 otherwise).',
      parameters: [pathParam('reportId'), ...clientHeaders],
      responses: {
        200: rateLimited(
          json(
            closed({
              reportId: { type: 'string' },
              reporterId: { type: 'string' },
              status: { enum: STANDINGS },
              words: { type: 'string' },
              decidedAt: nullableDate,
              reporterStanding: {
                ...closed({
                  measure: { enum: ['warning', 'suspension'] },
                  until: nullableDate,
                  words: { type: 'string' },
                }),
                type: ['object', 'null'],
                description:
                  "The reporter's own standing under DSA Art. 23: warned, or suspended until a time (its reports weigh nothing meanwhile); null otherwise.",
              },
            }),
            'Where it stands.',
          ),
        ),
        401: problem('Missing, unknown or wrong client credentials.'),
        404: problem("No report of the studio's with a reporterId has this id."),
        429: rateLimitedResponse,
        ...serverErrors,
      },
    },
  },
  '/v1/admin/trusted-flaggers': {
    get: {
      operationId: 'listTrustedFlaggers',
      tags: ['notices'],
      summary: 'Trusted flaggers (admins), each with its accuracy: notices sent, decided, upheld',
      security: moderatorSecurity,
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('TrustedFlagger') } }), 'The flaggers.'),
        ...adminOnly,
      },
    },
    post: {
      operationId: 'registerTrustedFlagger',
      tags: ['notices'],
      summary: 'Register a trusted flagger (admins): its API key is in this answer only; audited',
      security: moderatorSecurity,
      requestBody: joiBody(flaggerSchema),
      responses: {
        201: json(
          closed({ ...flaggerProps, apiKey: { type: 'string', description: 'Shown once.' } }),
          'Registered; keep the key, it is not shown again.',
        ),
        400: problem('A missing or bad field.'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/trusted-flaggers/{flaggerId}/suspend': {
    post: {
      operationId: 'suspendTrustedFlagger',
      tags: ['notices'],
      summary: "Suspend a trusted flagger's status, with a reason (admins); audited",
      security: moderatorSecurity,
      parameters: [flaggerId],
      requestBody: joiBody(suspendSchema),
      responses: {
        200: json(ref('TrustedFlagger'), 'Suspended: its notices are refused (403).'),
        400: problem('A missing reason.'),
        404: problem('No such flagger.'),
        409: problem('flagger_suspended: already suspended.'),
        415: problem('Body is not JSON.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/trusted-flaggers/{flaggerId}/reinstate': {
    post: {
      operationId: 'reinstateTrustedFlagger',
      tags: ['notices'],
      summary: 'Reinstate a suspended trusted flagger (admins); audited',
      security: moderatorSecurity,
      parameters: [flaggerId],
      responses: {
        200: json(ref('TrustedFlagger'), 'Reinstated.'),
        404: problem('No such flagger.'),
        409: problem('flagger_not_suspended: it is not suspended.'),
        ...adminOnly,
      },
    },
  },
};

export const schemas = {
  NoticeReceipt: closed({
    noticeId: { type: 'string', format: 'uuid' },
    secret: { type: 'string', description: 'Shown once: with the id, it reads where the notice stands.' },
    status: { enum: ['received'] },
    receivedAt: dateTime,
    warning: {
      type: ['string', 'null'],
      description: 'Set when the sender was warned for manifestly unfounded notices (DSA Art. 23).',
    },
    statusPage: { type: 'string', description: 'The page where a person reads it: /notice/status.' },
  }),
  NoticeStanding: closed({
    noticeId: { type: 'string', format: 'uuid' },
    receivedAt: dateTime,
    game: { type: 'string' },
    category: { enum: NOTICE_CATEGORIES },
    categoryWords: { type: 'string' },
    trustedFlagger: { type: 'boolean' },
    status: { enum: STANDINGS },
    words: { type: 'string', description: 'The decision in general terms.' },
    decidedAt: nullableDate,
    automatedMeans: {
      type: ['string', 'null'],
      description: 'Once decided: whether automated means were used.',
    },
    redress: { type: ['string', 'null'], description: 'Once decided: how to take it further.' },
    complaint: {
      ...closed({
        status: { enum: APPEAL_STATUSES },
        filedAt: dateTime,
        decidedAt: nullableDate,
        words: { type: 'string' },
      }),
      type: ['object', 'null'],
      description: "The notifier's complaint about the decision (DSA Art. 20), once made.",
    },
    contest: closed({
      possible: { type: 'boolean', description: 'Whether the decision may be contested now.' },
      until: { ...nullableDate, description: 'A dismissal: the last day to contest it.' },
      why: { type: ['string', 'null'], description: 'Why it cannot be contested, in words.' },
    }),
    warning: {
      type: ['string', 'null'],
      description: 'Set while the sender is warned or suspended for manifestly unfounded notices (Art. 23).',
    },
  }),
  TrustedFlagger: closed(flaggerProps),
  MisuseSender: {
    type: 'object',
    required: ['kind'],
    additionalProperties: false,
    description:
      "Who a mark or measure counts against: a notifier (by the HMAC key of its e-mail or address, never either itself), a trusted flagger, or a studio's in-game reporter.",
    properties: {
      kind: { enum: ['notifier', 'trusted_flagger', 'reporter'] },
      key: { type: 'string' },
      flaggerId: { type: 'string' },
      name: { type: ['string', 'null'] },
      studioId: { type: 'string' },
      reporterId: { type: 'string' },
    },
  },
  MisuseMeasure: closed({
    id: { type: 'string', format: 'uuid' },
    sender: ref('MisuseSender'),
    kind: { enum: ['warning', 'suspension'] },
    marks: { type: 'integer', minimum: 1, description: 'The marks in the window when it was taken.' },
    createdAt: dateTime,
    endsAt: { ...nullableDate, description: "A suspension's end; null for a warning." },
    liftedAt: nullableDate,
    inForce: { type: 'boolean', description: 'A suspension not lifted whose end is ahead.' },
  }),
} as const;
