import fs from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '../api/openapi.js';
import { COUNTED_IN_MATCHES, NEEDS_PERIOD } from '../common/domain/sanctions.js';
import { CATEGORY_WORDS } from '../common/domain/notices.js';

/**
 * The console's request and response types, generated from the server's own OpenAPI document by
 * openapi-typescript (never retyped by hand). `npm run build` regenerates them; a test fails when the
 * committed file is out of date.
 */
export const CONSOLE_TYPES = 'console/src/generated/openapi.ts';
/** The lists and limits the console's screens offer, taken from the document and common/domain. */
export const CONSOLE_CONTRACT = 'console/src/generated/contract.ts';

type Schema = { [key: string]: unknown };
const doc = openApiDocument as unknown as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, { properties: Record<string, Schema> }> };
};
/** A request body's field, as the document states it. */
const field = (route: string, name: string, method = 'post'): Schema => {
  const body = doc.paths[route]?.[method]?.requestBody?.content['application/json']?.schema;
  const schema = (body?.properties as Record<string, Schema> | undefined)?.[name];
  if (!schema) throw new Error(`${method} ${route} has no field ${name} in the document`);
  return schema;
};
const max = (route: string, name: string, method = 'post') => {
  const value = field(route, name, method).maxLength;
  if (typeof value !== 'number') throw new Error(`${method} ${route} ${name} states no maxLength`);
  return value;
};
const pattern = (route: string, name: string) => String(field(route, name).pattern);

/** A field anywhere in a request body (`path` through objects and array items), as the document states it. */
function fieldAt(route: string, path: readonly string[], method = 'post'): Schema {
  const walk = (schema: Schema | undefined, rest: readonly string[]): Schema | undefined => {
    if (!schema) return undefined;
    if (rest.length === 0) return schema;
    for (const k of ['allOf', 'anyOf', 'oneOf'])
      for (const s of (schema[k] as Schema[] | undefined) ?? []) {
        const found = walk(s, rest);
        if (found) return found;
      }
    if (schema.items) return walk(schema.items as Schema, rest);
    return walk((schema.properties as Record<string, Schema> | undefined)?.[rest[0]!], rest.slice(1));
  };
  const body = doc.paths[route]?.[method]?.requestBody?.content['application/json']?.schema;
  const found = walk(body, path);
  if (!found) throw new Error(`${method} ${route} has no field ${path.join('.')} in the document`);
  return found;
}
const maxAt = (route: string, path: readonly string[], method = 'post') => {
  const value = fieldAt(route, path, method).maxLength;
  if (typeof value !== 'number') throw new Error(`${method} ${route} ${path.join('.')} states no maxLength`);
  return value;
};
/** The longest a pattern such as ^[a-z0-9][a-z0-9_-]{0,31}$ takes: its first character and the rest. */
const maxOfPattern = (route: string, name: string) => {
  const m = /^\^\[[^\]]+\]\[[^\]]+\]\{0,(\d+)\}\$$/.exec(pattern(route, name));
  if (!m) throw new Error(`${route} ${name}: its pattern states no length`);
  return 1 + Number(m[1]);
};
/** A query parameter's maxLength, as the document states it. */
const queryMax = (route: string, name: string) => {
  const params = (doc.paths[route]?.get as unknown as { parameters?: { name: string; schema: Schema }[] })
    ?.parameters;
  const value = params?.find((p) => p.name === name)?.schema.maxLength;
  if (typeof value !== 'number') throw new Error(`get ${route} ?${name} states no maxLength`);
  return value;
};

/**
 * The console's lists and limits, generated (never copied): a new sanction type or a longer note
 * reaches the console's screens with `npm run build`; a test fails when this file is stale. The one
 * list the document does not state, which sanctions need a period, is common/domain's.
 */
export function consoleContract(): string {
  const values = {
    SANCTION_TYPES: doc.components.schemas.Sanction!.properties.type!.enum,
    NEEDS_PERIOD: [...NEEDS_PERIOD],
    COUNTED_IN_MATCHES: [...COUNTED_IN_MATCHES],
    OFFENSE_TYPES: doc.components.schemas.ReviewCase!.properties.type!.enum,
    SEVERITIES: doc.components.schemas.ReviewCase!.properties.highestSeverity!.enum,
    // The Transparency Database categories a notice, a flagger's areas and a routing rule name, with
    // the words the public form shows for each.
    NOTICE_CATEGORIES: (
      (doc.components.schemas.TrustedFlagger!.properties.areas!.items as Schema).enum as string[]
    ).map((c) => [c, CATEGORY_WORDS[c] ?? c]),
    CASE_SOURCES: (doc.components.schemas.RoutingRule!.properties.sources!.items as Schema).enum as string[],
    // Orders and disputes (issue 51): the Member States an order may come from, and the enums.
    MEMBER_STATES: doc.components.schemas.AuthorityOrder!.properties.memberState!.enum,
    ORDER_KINDS: doc.components.schemas.AuthorityOrder!.properties.kind!.enum,
    DISPUTE_SUBJECTS: doc.components.schemas.Dispute!.properties.subject!.enum,
    DISPUTE_OUTCOMES: (doc.components.schemas.Dispute!.properties.outcome!.enum as (string | null)[]).filter(
      (o) => o !== null,
    ),
    LIMITS: {
      caseNote: max('/v1/admin/cases/{caseId}/resolve', 'note'),
      note: max('/v1/admin/cases/{caseId}/notes', 'body'),
      tagPattern: pattern('/v1/admin/cases/{caseId}/tags', 'tag'),
      queueKeyPattern: pattern('/v1/admin/queues', 'key'),
      queueName: max('/v1/admin/queues', 'name'),
      queueDescription: max('/v1/admin/queues', 'description'),
      templateTitle: max('/v1/admin/templates', 'title'),
      playerReason: max('/v1/admin/templates', 'playerReason'),
      username: max('/v1/admin/cases/{caseId}/assign', 'username'),
      escalationNote: max('/v1/admin/cases/{caseId}/escalate', 'note'),
      appealNote: max('/v1/admin/appeals/{appealId}/decide', 'note'),
      savedFilterName: max('/v1/admin/saved-filters', 'name'),
      tag: maxOfPattern('/v1/admin/cases/{caseId}/tags', 'tag'),
      queueKey: maxOfPattern('/v1/admin/queues', 'key'),
      keptReason: maxAt('/v1/admin/appeals/{appealId}/decide', ['keep', 'reason']),
      muteNote: max('/v1/admin/studios/{studioId}/reporters/{reporterId}/mute', 'note'),
      revokeReason: max('/v1/admin/players/{serviceId}/sanctions/{sanctionId}/revoke', 'reason'),
      sanctionReason: max('/v1/admin/players/{serviceId}/sanctions', 'reason'),
      sanctionMatches: Number(fieldAt('/v1/admin/players/{serviceId}/sanctions', ['matches']).maximum),
      unfoundedNote: max('/v1/admin/offenses/{offenseId}/unfounded', 'note'),
      liftNote: max('/v1/admin/misuse/measures/{measureId}/lift', 'note'),
      ruleName: max('/v1/admin/rules', 'name'),
      waveName: max('/v1/admin/waves', 'name'),
      waveReason: maxAt('/v1/admin/waves', ['sanction', 'reason']),
      waveCancelReason: max('/v1/admin/waves/{waveId}/cancel', 'reason'),
      waveRollbackReason: max('/v1/admin/waves/{waveId}/rollback', 'reason'),
      flaggerSuspendReason: max('/v1/admin/trusted-flaggers/{flaggerId}/suspend', 'reason'),
      flaggerName: max('/v1/admin/trusted-flaggers', 'name'),
      flaggerCoordinator: max('/v1/admin/trusted-flaggers', 'coordinator'),
      tdbBaseUrl: max('/v1/admin/transparency/accounts/{platform}', 'baseUrl', 'put'),
      tdbToken: max('/v1/admin/transparency/accounts/{platform}', 'token', 'put'),
      platform: queryMax('/v1/admin/transparency-report', 'platform'),
      orderAuthority: max('/v1/admin/compliance/orders', 'authority'),
      orderReference: max('/v1/admin/compliance/orders', 'reference'),
      orderAction: max('/v1/admin/compliance/orders', 'action'),
      disputeBody: max('/v1/admin/compliance/disputes', 'body'),
      disputeReference: max('/v1/admin/compliance/disputes', 'reference'),
    },
  };
  return `/* Generated by scripts/gen-console-types.ts from the OpenAPI document and common/domain: do not edit. */\n${Object.entries(
    values,
  )
    .map(([name, value]) => `export const ${name} = ${JSON.stringify(value)} as const;`)
    .join('\n')}\n`;
}

export async function consoleTypes(): Promise<string> {
  const body = astToString(await openapiTS(structuredClone(openApiDocument) as never));
  return `/* Generated by scripts/gen-console-types.ts from the OpenAPI document (api/openapi.ts): do not edit. */\n${body}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Written only when it changed: a new mtime alone would make the console look older than its
  // sources and be built again (scripts/console-build.ts).
  for (const [file, text] of [
    [CONSOLE_TYPES, await consoleTypes()],
    [CONSOLE_CONTRACT, consoleContract()],
  ] as const)
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
      fs.writeFileSync(file, text);
      process.stdout.write(`wrote ${file}\n`);
    }
}
