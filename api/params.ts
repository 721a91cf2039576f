import Joi from 'joi';
import type { Context } from 'koa';
import { UUID } from '../common/domain/ids.js';
import { SERVICE_ID } from '../common/domain/players.js';
import { LSN_TEXT } from '../common/data/replicas.js';
import { notFound, validationError } from '../common/errors.js';
import { fromJoi, JOI } from './contract.js';
import { IDEMPOTENCY_KEY } from './routes/reports/schema.js';

const uuid = Joi.string().pattern(UUID);

/**
 * Every path parameter of the API, declared once: the rule a route reads it with (`param(ctx,
 * name)`: anything else names nothing, 404 "<what> <value> not found") and, derived from that rule,
 * its OpenAPI parameter (`pathParam(name)` in a contract). Use cases keep their own checks for the
 * callers that are not HTTP (the admin tool, the workers).
 */
export const PATH_PARAMS = {
  serviceId: {
    rule: Joi.string().pattern(SERVICE_ID).description("The player's service id."),
    what: 'Player',
  },
  caseId: { rule: uuid, what: 'Case' },
  appealId: { rule: uuid, what: 'Appeal' },
  sanctionId: { rule: uuid, what: 'Sanction' },
  templateId: { rule: uuid, what: 'Template' },
  erasureId: { rule: uuid, what: 'Erasure' },
  waveId: { rule: uuid, what: 'Wave' },
  orderId: { rule: uuid, what: 'Order' },
  disputeId: { rule: uuid, what: 'Dispute' },
  suspicionId: { rule: uuid, what: 'Evasion suspicion' },
  ruleId: { rule: uuid, what: 'Rule' },
  webhookId: { rule: uuid, what: 'Webhook' },
  deliveryId: { rule: uuid, what: 'Delivery' },
  noticeId: {
    // Any string: the notice's status answers one 404 for every way a receipt can be wrong (its id
    // or its secret), so a malformed id is not told apart here.
    rule: Joi.string().description("The notice's id, from its receipt."),
    what: 'Notice',
  },
  flaggerId: { rule: uuid, what: 'Trusted flagger' },
  measureId: { rule: uuid, what: 'Measure' },
  offenseId: { rule: uuid, what: 'Offense' },
  reportId: {
    rule: uuid.description("The report's id: the offense's `_id` its 201 answer gave."),
    what: 'Report',
  },
  filterId: { rule: uuid, what: 'Saved filter' },
  statementId: { rule: uuid, what: 'Statement' },
  studioId: { rule: uuid, what: 'Studio' },
  reporterId: {
    rule: Joi.string()
      // eslint-disable-next-line no-control-regex -- a reporter's id is any text without control characters
      .pattern(/^[^\u0000-\u001f\u007f]{1,128}$/)
      .description("The studio's own id of the reporting player (a report's context.reporterId)."),
    what: 'Reporter',
  },
  platform: {
    rule: Joi.string()
      .max(64)
      .description('`operator` (global decisions), or a studio id (decisions scoped to its games).'),
    what: 'Platform',
  },
  queueKey: { rule: Joi.string().description("A review queue's key."), what: 'Queue' },
  tag: { rule: Joi.string().description('The tag, as it was added.'), what: 'Tag' },
} as const satisfies Record<string, { rule: Joi.StringSchema; what: string }>;
export type PathParam = keyof typeof PATH_PARAMS;

/**
 * Every request header the routes read besides the standard ones (Authorization, Content-Type,
 * Accept), declared once: the rule the route reads it with, and its OpenAPI parameter.
 */
export const HEADERS = {
  client_id: { rule: Joi.string().description("The game's client id."), required: true },
  client_secret: { rule: Joi.string().description("The game's client secret."), required: true },
  'Idempotency-Key': {
    rule: Joi.string()
      .pattern(IDEMPOTENCY_KEY)
      .description(
        'Same key and body within 24 h replays the first response; another body gets 422. A retry while the first is in flight waits for it and replays its answer; a request that failed leaves the key free.',
      ),
    required: false,
  },
  'Consistency-Token': {
    // The middleware (api/middleware/consistency.ts) parses it with the same expression (parseLsn).
    rule: Joi.string()
      .pattern(LSN_TEXT)
      .description(
        'The Consistency-Token of an earlier write: this read sees that write (a standby serves it only once it has replayed it, waiting at most REPLICA_TOKEN_WAIT_MS, else the primary does). Any request may carry it; a malformed one is 400 invalid_consistency_token.',
      ),
    required: false,
  },
  'Notice-Secret': {
    rule: Joi.string().description('The secret the receipt of the notice gave.'),
    required: true,
  },
} as const satisfies Record<string, { rule: Joi.StringSchema; required: boolean }>;
export type Header = keyof typeof HEADERS;

/** The OpenAPI parameter of one of the rules above; JOI carries the rule for the contract test. */
function parameter(name: string, where: 'path' | 'header', rule: Joi.Schema, required: boolean) {
  const { description, ...schema } = fromJoi(rule) as { description?: string } & Record<string, unknown>;
  return {
    name,
    in: where,
    required,
    schema,
    ...(description ? { description } : {}),
    [JOI]: rule,
  };
}

/** A path parameter of an operation (contract.ts), from its rule. */
export const pathParam = (name: PathParam) => parameter(name, 'path', PATH_PARAMS[name].rule, true);
/** A request header of an operation (contract.ts), from its rule. */
export const headerParam = (name: Header) =>
  parameter(name, 'header', HEADERS[name].rule, HEADERS[name].required);

/** A path parameter as a route reads it: one its rule refuses names nothing (404). */
export function param(ctx: Context, name: PathParam): string {
  const value = (ctx.params as Record<string, string>)[name]!;
  if (PATH_PARAMS[name].rule.validate(value).error) throw notFound(`${PATH_PARAMS[name].what} ${value}`);
  return value;
}

/**
 * An optional header as a route reads it: absent is undefined; sent but refused by its rule (empty
 * included: sent but empty is a mistake, not "absent") is a 400 naming it.
 */
export function optionalHeader(ctx: Context, name: Header, message: string): string | undefined {
  const key = name.toLowerCase();
  if (!(key in ctx.headers)) return undefined;
  const value = ctx.get(key);
  if (HEADERS[name].rule.validate(value).error) throw validationError([{ field: name, message }]);
  return value;
}
