import type { FromView, View, ViewSchemas } from '../common/view-schemas.js';
import type { errorResponse } from './openapi-parts.js';
import type * as oauth from './routes/oauth/contract.js';
import type * as health from './routes/health/contract.js';
import type * as admin from './routes/admin/contract.js';
import type * as consolePages from './routes/console/contract.js';
import type * as templates from './routes/templates/contract.js';
import type * as notes from './routes/notes/contract.js';
import type * as savedFilters from './routes/saved-filters/contract.js';
import type * as queues from './routes/review-queues/contract.js';
import type * as transparency from './routes/transparency/contract.js';
import type * as compliance from './routes/compliance/contract.js';
import type * as erasures from './routes/erasures/contract.js';
import type * as retention from './routes/retention/contract.js';
import type * as waves from './routes/waves/contract.js';
import type * as rules from './routes/rules/contract.js';
import type * as notices from './routes/notices/contract.js';

/**
 * The named response schemas of the document (what api/openapi.ts puts under components.schemas
 * besides the request bodies): the views' (common/view-schemas.ts) and each feature's own.
 */
export type Components = ViewSchemas & { ErrorResponse: typeof errorResponse } & typeof oauth.schemas &
  typeof health.schemas &
  typeof admin.schemas &
  typeof consolePages.schemas &
  typeof templates.schemas &
  typeof notes.schemas &
  typeof savedFilters.schemas &
  typeof queues.schemas &
  typeof transparency.schemas &
  typeof compliance.schemas &
  typeof erasures.schemas &
  typeof retention.schemas &
  typeof waves.schemas &
  typeof rules.schemas &
  typeof notices.schemas;

/**
 * The TypeScript type of a named response schema, derived from its declaration (json-schema-to-ts);
 * a route checks its answer against its operation instead (`Answer`, below), which reads this.
 */
export type Body<N extends keyof Components> = N extends keyof ViewSchemas
  ? View<N>
  : FromView<Components[N], Components>;
/** The type of a response schema declared inline in a contract (exported `as const` beside it). */
type Of<S> = S extends { $ref: `#/components/schemas/${infer N extends keyof Components}` }
  ? Body<N>
  : FromView<S, Components>;

/**
 * The JSON schema an operation declares for a status (`json(schema, ...)` in its contract); never when
 * it declares none. A contract whose responses depend on a condition has a union of response maps:
 * each that has the status gives its schema.
 */
type ResponseSchema<Operation, Status extends number> = Operation extends { responses: infer R }
  ? SchemaAt<R, Status>
  : never;
type SchemaAt<R, Status extends number> = R extends unknown
  ? [StatusKey<R, Status>] extends [never]
    ? never
    : NonNullable<R[StatusKey<R, Status>]> extends { content: { 'application/json': { schema: infer S } } }
      ? S
      : never
  : never;
/** A status as a key: 200, or "200" where a response map was spread from an `as const` object. */
type StatusKey<R, Status extends number> = Status extends keyof R
  ? Status
  : `${Status}` extends keyof R
    ? `${Status}`
    : never;

/**
 * The type of what an operation answers with a status, derived from the schema its contract declares
 * (a type that nothing satisfies when it declares no JSON answer for that status).
 */
export type Reply<Operation, Status extends number = 200> = [ResponseSchema<Operation, Status>] extends [
  never,
]
  ? { 'no application/json response declared for this status': Status }
  : Of<ResponseSchema<Operation, Status>>;
/** Reply of the operation at `paths[P][M]` (a route folder's `typeof paths`). */
export type Answer<
  Paths,
  P extends keyof Paths,
  M extends keyof Paths[P],
  Status extends number = 200,
> = Reply<Paths[P][M], Status>;
