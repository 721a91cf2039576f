import Joi from 'joi';
import { CURSOR, CURSOR_DESCRIPTION } from '../../../common/cursor.js';
import { REPORT_KINDS, SEVERITIES } from '../../../common/domain/reports.js';

/**
 * The moderator routes' request rules: what the routes validate with, and what the OpenAPI document
 * states (api/contract.ts converts them); the bodies of decisions are the use cases' own.
 */
/** The review queue's filters, order and page (GET /v1/admin/cases). */
export const caseQuery = Joi.object({
  status: Joi.string().valid('open', 'resolved').default('open'),
  type: Joi.string().valid(...Object.values(REPORT_KINDS)),
  severity: Joi.string()
    .valid(...SEVERITIES)
    .description('Highest severity.'),
  claimed: Joi.string()
    .valid('any', 'mine', 'unclaimed')
    .default('any')
    .description('unclaimed includes cases whose claim expired.'),
  serviceId: Joi.string().max(64).description('Exactly this player.'),
  player: Joi.string()
    .trim()
    .min(2)
    .max(64)
    .description('Players whose serviceId or gamer tag (any case) starts with this: at least 2 characters.'),
  overdue: Joi.boolean().default(false).description('Only open cases past their dueAt.'),
  tag: Joi.string().trim().lowercase().max(32).description('Cases with this tag.'),
  assigned: Joi.string()
    .valid('any', 'mine')
    .default('any')
    .description('mine: the cases an admin assigned to you.'),
  escalated: Joi.string()
    .valid('exclude', 'only', 'include')
    .default('exclude')
    .description(
      'Escalated open cases: left out (the default), only them, or both; only and include are for admins.',
    ),
  queue: Joi.string()
    .max(40)
    .description(
      'Only the cases in this review queue (its key; 403 for a queue only admins see, to a moderator).',
    ),
  sort: Joi.string()
    .valid('priority', 'age')
    .default('priority')
    .description('Open cases by priority (highest first, then oldest) or by age (oldest first).'),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

/** The audit log's filters and page (GET /v1/admin/audit). */
export const auditQuery = Joi.object({
  caseId: Joi.string().guid(),
  moderatorId: Joi.string().guid(),
  moderator: Joi.string()
    .trim()
    .lowercase()
    .max(64)
    .description("A moderator's username: only what they did (none for an unknown one)."),
  player: Joi.string()
    .max(64)
    .description("A player's serviceId: only actions about them (their cases, appeals, sanctions)."),
  limit: Joi.number().integer().min(1).max(100).default(50),
  cursor: Joi.string().max(64).description(CURSOR_DESCRIPTION),
});

/** The review statistics' window (GET /v1/admin/stats). */
export const statsQuery = Joi.object({ days: Joi.number().integer().min(1).max(90).default(14) });

/** A moderator's sign-in (POST /v1/admin/session and the console's). */
export const sessionBody = Joi.object({
  username: Joi.string().max(64).required(),
  password: Joi.string().max(256).required(),
});

export { assignmentSchema, escalationSchema } from '../../../common/usecases/moderation.js';
