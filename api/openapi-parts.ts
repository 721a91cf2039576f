import { pathParam, headerParam } from './params.js';

/** Building blocks of the OpenAPI document's operations, shared by the route folders' contract.ts. */
export { allRequired, closed, dateTime, offenseTypes, ref } from '../common/schema-parts.js';
import { closed, ref } from '../common/schema-parts.js';

/** What every failure answers: the problem document api/middleware/errors.ts renders. */
export const errorResponse = {
  type: 'object',
  description: 'RFC 9457 problem details with a stable machine-readable code.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
    error: { type: 'string', description: 'OAuth 2.0 error code (token endpoint).' },
    error_description: { type: 'string' },
  },
} as const;

export const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('ErrorResponse') } },
});
export const json = <const S extends object>(schema: S, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** What any call may answer when the service fails or a backing service is down. */
export const serverErrors = {
  500: problem('Server error.'),
  503: problem('A backing service is unavailable; retry.'),
};
/** What any moderator call may answer besides its own outcomes. */
export const moderatorErrors = {
  401: problem(
    'No, an invalid, an expired or a disabled moderator session token (WWW-Authenticate says which).',
  ),
  ...serverErrors,
};

/** The spec's client credentials: two headers on every studio call. */
export const clientHeaders = [headerParam('client_id'), headerParam('client_secret')];

/** Rate-limited routes (every studio-authenticated one): their answers carry the RateLimit headers. */
const rateLimitHeaders = {
  'RateLimit-Policy': {
    description:
      'The client\'s quota for this route group (draft-ietf-httpapi-ratelimit-headers): "<group>";q=<requests>;w=1 and "<group>-burst";q=<requests>;w=10.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left: "<group>";r=<remaining>;t=<seconds until the window resets>.',
    schema: { type: 'string' },
  },
};
/** A response of a rate-limited route: it carries the RateLimit headers. */
export const rateLimited = <R extends object>(response: R) => ({ ...response, headers: rateLimitHeaders });
export const tooMany = (description: string) => ({
  ...problem(description),
  headers: { ...rateLimitHeaders, 'Retry-After': { schema: { type: 'integer' } } },
});
export const rateLimitedResponse = tooMany(
  "rate_limited: over the client's rate for this route group; Retry-After says when.",
);

/** What any studio call may answer besides its own outcomes: credentials, its rate, a fault. */
export const studioErrors = {
  401: problem('Missing, unknown or wrong client credentials.'),
  429: rateLimitedResponse,
  ...serverErrors,
} as const;

/** One page of a listing of `item`s. */
export const page = <const N extends string>(item: N) =>
  closed({ items: { type: 'array', items: ref(item) }, nextCursor: { type: ['string', 'null'] } });
/** An operationId from a summary: "Claim a case" -> claimACase. */
export const operationIdOf = (summary: string) =>
  summary.replace(/\W+(\w)/g, (_, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toLowerCase());

/** The player's serviceId in a path. */
export const serviceIdParam = pathParam('serviceId');
