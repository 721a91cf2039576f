import { REPORT_KINDS } from './domain/reports.js';

/**
 * Building blocks of JSON Schemas in the OpenAPI document, for the response schemas written beside
 * their views (common/view-schemas.ts) and the operations beside their routes (api/routes/<feature>/
 * contract.ts).
 */
export const ref = <const N extends string>(name: N) => ({ $ref: `#/components/schemas/${name}` as const });
export const dateTime = { type: 'string', format: 'date-time' } as const;

/** An object whose properties are all always present. */
export const allRequired = <const P extends Record<string, unknown>>(properties: P) => ({
  type: 'object' as const,
  required: Object.keys(properties) as (keyof P & string)[],
  properties,
});
/** A response object with exactly these properties, every one of them always present. */
export const closed = <const P extends Record<string, unknown>>(properties: P) => ({
  ...allRequired(properties),
  additionalProperties: false as const,
});
/** The stored offense types. */
export const offenseTypes = Object.values(REPORT_KINDS);
