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

/** The spec's client credentials: two headers on every studio call. */
export const clientHeaders = [
  { name: 'client_id', in: 'header', required: true, schema: { type: 'string' } },
  { name: 'client_secret', in: 'header', required: true, schema: { type: 'string' } },
];
export const offenseTypes = Object.values(REPORT_KINDS);
