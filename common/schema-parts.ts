import { REPORT_KINDS } from './domain/reports.js';

/**
 * Building blocks of JSON Schemas in the OpenAPI document, for the response schemas written beside
 * their views (common/view-schemas.ts) and the operations beside their routes (api/routes/<feature>/
 * contract.ts).
 */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
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
/** The stored offense types. */
export const offenseTypes = Object.values(REPORT_KINDS);
