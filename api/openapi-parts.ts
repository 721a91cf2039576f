import { SERVICE_ID } from '../common/domain/players.js';
import { REPORT_KINDS } from '../common/domain/reports.js';

/** Building blocks of the OpenAPI document, shared by its parts. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('ErrorResponse') } },
});
export const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
export const dateTime = { type: 'string', format: 'date-time' };

/** An object whose properties are all always present. */
export const allRequired = <P extends Record<string, unknown>>(properties: P) => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
});
/** A response object with exactly these properties, every one of them always present. */
export const closed = <P extends Record<string, unknown>>(properties: P) => ({
  ...allRequired(properties),
  additionalProperties: false,
});

/** The spec's client credentials: two headers on every studio call. */
export const clientHeaders = [
  { name: 'client_id', in: 'header', required: true, schema: { type: 'string' } },
  { name: 'client_secret', in: 'header', required: true, schema: { type: 'string' } },
];
export const offenseTypes = Object.values(REPORT_KINDS);

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

/** One page of a listing of `item`s. */
export const page = (item: string) =>
  closed({ items: { type: 'array', items: ref(item) }, nextCursor: { type: ['string', 'null'] } });
/** An operationId from a summary: "Claim a case" -> claimACase. */
export const operationIdOf = (summary: string) =>
  summary.replace(/\W+(\w)/g, (_, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toLowerCase());

/** The player's serviceId in a path. */
export const serviceIdParam = {
  name: 'serviceId',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: SERVICE_ID.source },
};
