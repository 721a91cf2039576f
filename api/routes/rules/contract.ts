import { pathParam } from '../../params.js';
import { fromJoi, joiBody, joiQuery } from '../../contract.js';
import { closed, dateTime, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { actionsSchema, conditionsSchema, RULE_MODES, RULE_TRIGGERS } from '../../../common/domain/rules.js';
import { backtestSchema, matchListSchema, ruleSchema } from '../../../common/usecases/rules.js';
import { OUTCOMES } from '../../../common/data/repos/moderation.js';

/** The OpenAPI operations of rules (routes.ts beside it; docs/moderators.md "Rules"). */
const ruleId = pathParam('ruleId');
const adminOnly = { 403: problem('forbidden: admins only.'), ...moderatorErrors } as const;
const badBody = {
  400: problem('A bad body (a rule needs a condition and an action; a queue must be in use).'),
  415: problem('Body is not JSON.'),
} as const;

export const paths = {
  '/v1/admin/rules': {
    get: {
      operationId: 'listRules',
      tags: ['rules'],
      summary: 'Rules, newest first, each with its insights (matches, actions, agreement with moderators)',
      security: moderatorSecurity,
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('Rule') } }), 'The rules.'),
        ...moderatorErrors,
      },
    },
    post: {
      operationId: 'createRule',
      tags: ['rules'],
      summary: 'Write a rule (admins): version 1, audited',
      security: moderatorSecurity,
      requestBody: joiBody(ruleSchema),
      responses: {
        201: {
          ...json(ref('Rule'), 'Saved; Location names it.'),
          headers: { Location: { schema: { type: 'string' } } },
        },
        ...badBody,
        ...adminOnly,
      },
    },
  },
  '/v1/admin/rule-backtests': {
    post: {
      operationId: 'backtestRule',
      tags: ['rules'],
      summary:
        "Try a rule's conditions on the cases of the last days against what moderators decided (admins)",
      description:
        'Read-only; the cases opened in the last `days` days as their figures stand now (docs/moderators.md "Rules": Backtest). 503 when it does not finish within 60 s.',
      security: moderatorSecurity,
      requestBody: joiBody(backtestSchema),
      responses: {
        200: json(ref('Backtest'), 'What the rule would have matched, and how that compares.'),
        ...badBody,
        ...adminOnly,
      },
    },
  },
  '/v1/admin/rules/{ruleId}': {
    get: {
      operationId: 'getRule',
      tags: ['rules'],
      summary: 'A rule and its insights',
      security: moderatorSecurity,
      parameters: [ruleId],
      responses: { 200: json(ref('Rule'), 'The rule.'), 404: problem('No such rule.'), ...moderatorErrors },
    },
    put: {
      operationId: 'saveRule',
      tags: ['rules'],
      summary:
        'Save a rule again, every field (admins): its next version, audited; a stopped rule runs again',
      security: moderatorSecurity,
      parameters: [ruleId],
      requestBody: joiBody(ruleSchema),
      responses: {
        200: json(ref('Rule'), 'Saved.'),
        ...badBody,
        404: problem('No such rule.'),
        ...adminOnly,
      },
    },
  },
  '/v1/admin/rules/{ruleId}/approve': {
    post: {
      operationId: 'approveRule',
      tags: ['rules'],
      summary: 'Approve a live rule that places sanctions (a second admin): from now it acts',
      description:
        'Four eyes (docs/moderators.md "Rules"): each version of a live rule with a sanction action waits for an admin other than the one who saved it; audited (approve_rule). No body.',
      security: moderatorSecurity,
      parameters: [ruleId],
      responses: {
        200: json(ref('Rule'), 'Approved: it acts.'),
        403: problem('forbidden (admins only), or own_rule (the admin who saved this version).'),
        404: problem('No such rule.'),
        409: problem('rule_not_awaiting_approval: this version awaits no approval.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/rules/{ruleId}/matches': {
    get: {
      operationId: 'listRuleMatches',
      tags: ['rules'],
      summary: 'What a rule did (live) or would have done (background), newest first',
      security: moderatorSecurity,
      parameters: [ruleId, ...joiQuery(matchListSchema)],
      responses: {
        200: json(
          closed({
            items: { type: 'array', items: ref('RuleMatch') },
            nextCursor: { type: ['string', 'null'] },
          }),
          'A page of matches.',
        ),
        400: problem('A bad query parameter.'),
        404: problem('No such rule.'),
        ...moderatorErrors,
      },
    },
  },
};

export const schemas = {
  Backtest: closed({
    days: { type: 'integer' },
    cases: { type: 'integer', description: 'Cases opened in the window.' },
    matched: { type: 'integer', description: 'Cases the rule would have matched.' },
    players: { type: 'integer', description: 'Players of those cases.' },
    agree: { type: 'integer', description: 'Matched cases moderators upheld.' },
    wouldHaveActedWhereDismissed: { type: 'integer', description: 'Matched cases moderators dismissed.' },
    missed: { type: 'integer', description: 'Upheld cases the rule would not have matched.' },
    pending: { type: 'integer', description: 'Matched cases still open.' },
    agreement: {
      type: ['number', 'null'],
      description: 'agree / (agree + wouldHaveActedWhereDismissed); null when none was decided.',
    },
    sample: {
      type: 'array',
      description: 'The newest matched cases (at most 50).',
      items: closed({
        playerId: { type: 'string' },
        caseId: { type: 'string', format: 'uuid' },
        kind: { type: 'string' },
        decided: { type: ['string', 'null'], enum: [...OUTCOMES, null] },
        verdict: { enum: ['agree', 'would_have_acted_where_dismissed', 'pending'] },
      }),
    },
    tookMs: { type: 'integer' },
  }),
  Rule: closed({
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    version: { type: 'integer' },
    mode: { enum: [...RULE_MODES] },
    trigger: {
      enum: [...RULE_TRIGGERS],
      description: 'What makes it weigh: reports filed, a sanction placed on the player, or the schedule.',
    },
    conditions: fromJoi(conditionsSchema),
    actions: fromJoi(actionsSchema),
    cooldownSeconds: { type: 'integer' },
    capCount: { type: 'integer' },
    capWindowSeconds: { type: 'integer' },
    stopped: {
      oneOf: [closed({ at: dateTime, reason: { type: 'string' } }), { type: 'null' }],
      description: 'A live rule that reached its cap: stopped until saved again.',
    },
    savedBy: { type: 'string', format: 'uuid', description: 'The admin who saved this version.' },
    approval: closed({
      awaiting: {
        type: 'boolean',
        description:
          'A live rule that places sanctions or adds to a wave, saved and not yet approved by a second admin: until then it only records, as in background mode.',
      },
      approvedBy: { type: ['string', 'null'], description: 'The approving admin of this version.' },
      approvedAt: { type: ['string', 'null'], format: 'date-time' },
    }),
    updatedAt: dateTime,
    insights: closed({
      matchesLastDay: { type: 'integer' },
      matchesLastWeek: { type: 'integer' },
      actedLastWeek: { type: 'integer', description: 'Matches in live mode: actions taken.' },
      lastMatchAt: { type: ['string', 'null'], format: 'date-time' },
      decidedUpheld: {
        type: 'integer',
        description: 'Of the cases it matched in the last 30 days, those a moderator upheld (agreement).',
      },
      decidedDismissed: {
        type: 'integer',
        description: 'Of the cases it matched in the last 30 days, those a moderator dismissed.',
      },
    }),
  }),
  RuleMatch: closed({
    ruleVersion: { type: 'integer' },
    mode: { enum: ['background', 'live'], description: 'background: what it would have done; live: done.' },
    caseId: { type: 'string', format: 'uuid' },
    playerId: { type: 'string', description: "The player's serviceId." },
    actions: fromJoi(actionsSchema),
    at: dateTime,
  }),
} as const;
