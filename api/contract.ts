import type Joi from 'joi';
import joiToJson from 'joi-to-json';

// joi-to-json is CommonJS (module.exports = parse); its typings declare an ES default.
type Parse = typeof import('joi-to-json').parse;
const parse = ((joiToJson as unknown as { default?: Parse }).default ?? joiToJson) as unknown as Parse;

/**
 * Request schemas of the OpenAPI document, derived from the Joi rules the routes validate with
 * (joi-to-json, OpenAPI 3.1 mode), so a rule changed in Joi changes the document. The Joi schema
 * rides along on the request body or parameter under a symbol key (JSON.stringify leaves symbols
 * out, so the served document is plain), where test/integration/contract.test.ts finds it to check
 * that Joi and the document accept the same generated requests.
 */
export const JOI = Symbol('joi');

type JsonSchema = Record<string, unknown>;

/** What Joi.any() converts to: every type, which says nothing. */
const ANY_TYPES = ['array', 'boolean', 'number', 'object', 'string', 'null'];

/** Schemas named with Joi's .id(): components of the document, shared by the operations using them. */
const named: Record<string, JsonSchema> = {};

/**
 * The converter's output made plain:
 * - `x-schema` (set with `.meta({ 'x-schema': {...} })` on a rule with a custom validator, which no
 *   converter can read) replaces the node, keeping the rule's description; `x-also` adds a rule
 *   across fields (a .when() on another field) to the node's allOf;
 * - Joi.any()'s list of every type is dropped;
 * - the branches of a `.when()` (if/then/else) constrain only what they name: the converter gives
 *   them the closed object of their Joi schema, which would refuse every other property.
 */
function plain(node: unknown, inBranch = false): unknown {
  if (Array.isArray(node)) return node.map((n) => plain(n, inBranch));
  if (!node || typeof node !== 'object') return node;
  const src = node as JsonSchema;
  if (typeof src.pattern === 'string')
    // The converter keeps a regular expression's flags after a slash ("^...$/u"); JSON Schema's
    // patterns are Unicode-aware already, and no rule here uses another flag.
    src.pattern = src.pattern.replace(/\/[a-z]+$/, '');
  if (src['x-schema']) {
    const description = src.description;
    return { ...(src['x-schema'] as JsonSchema), ...(description ? { description } : {}) };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === 'x-also') continue;
    // The converter merges a .when()'s forbidden branch into an array's own node (`not: {}` beside
    // its type): the rule across fields is stated in x-also, so the merged copy goes.
    if (key === 'not' && JSON.stringify(value) === '{}' && Object.keys(src).length > 1) continue;
    const atMostOne =
      key === 'oneOf' && Array.isArray(value)
        ? oxorNames(value.filter((v) => JSON.stringify(v) !== '{"not":{}}'))
        : undefined;
    if (atMostOne) {
      // The converter's .oxor(a, b): "exactly one of a, b, or neither of them", as three branches;
      // said plainly: not two of them.
      const pairs = atMostOne.flatMap((a, i) => atMostOne.slice(i + 1).map((b) => [a, b]));
      const both = pairs.map((pair) => plain({ required: pair }));
      out.not = both.length === 1 ? both[0] : { anyOf: both };
      continue;
    }
    if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) {
      // A forbidden branch (`{ not: {} }`, from a .when() on another field) never matches: dropped.
      out[key] = value.filter((v) => JSON.stringify(v) !== '{"not":{}}').map((v) => plain(v, inBranch));
      continue;
    }
    if (key === 'type' && Array.isArray(value) && ANY_TYPES.every((t) => value.includes(t))) continue;
    if (inBranch && (key === 'additionalProperties' || key === 'type')) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as JsonSchema)
          // A forbidden property (Joi.forbidden(), `{ not: {} }`) of a closed object: simply not listed.
          .filter(
            ([, prop]) => !(src.additionalProperties === false && JSON.stringify(prop) === '{"not":{}}'),
          )
          .map(([name, prop]) => [name, plain(prop, false)]),
      );
      continue;
    }
    const branch = key === 'if' || key === 'then' || key === 'else';
    // A boolean schema in a branch (`then: false`, from .xor()) as an object schema, which every
    // OpenAPI tool reads.
    if (branch && typeof value === 'boolean') out[key] = value ? {} : { not: {} };
    else out[key] = plain(value, branch);
  }
  // Redocly's recommended rules: a bound given both ways keeps the exclusive one (Joi's .greater(0)
  // comes with minimum 0), and every required name is a listed property (`{}`: any value), as in the
  // converter's .xor() and .oxor() branches, which only say which names are present.
  if (
    typeof out.exclusiveMinimum === 'number' &&
    typeof out.minimum === 'number' &&
    out.minimum <= out.exclusiveMinimum
  )
    delete out.minimum;
  if (
    typeof out.exclusiveMaximum === 'number' &&
    typeof out.maximum === 'number' &&
    out.maximum >= out.exclusiveMaximum
  )
    delete out.maximum;
  if (Array.isArray(out.required)) {
    const listed = (out.properties as JsonSchema | undefined) ?? {};
    const missing = (out.required as string[]).filter((name) => !(name in listed));
    if (missing.length)
      out.properties = { ...listed, ...Object.fromEntries(missing.map((name) => [name, {}])) };
  }
  if (src['x-also'])
    // A rule across fields that the converter cannot read, stated in JSON Schema beside the Joi rule.
    out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), plain(src['x-also'])];
  return out;
}

/** The names of the converter's .oxor() shape: `{required: [a]}, ..., {not: {oneOf: [...]}}`. */
function oxorNames(branches: unknown[]): string[] | undefined {
  const last = branches[branches.length - 1] as JsonSchema | undefined;
  const singles = branches.slice(0, -1) as JsonSchema[];
  const isSingle = (b: JsonSchema) =>
    Object.keys(b).length === 1 && Array.isArray(b.required) && b.required.length === 1;
  if (!last || singles.length < 2 || !singles.every(isSingle)) return undefined;
  if (Object.keys(last).length !== 1 || !(last.not as JsonSchema | undefined)?.oneOf) return undefined;
  return singles.map((b) => (b.required as string[])[0]!);
}

/** Joi's own description of a rule (schema.describe()), as far as the refinement below reads it. */
interface Described {
  type?: string;
  flags?: { id?: string };
  allow?: unknown[];
  rules?: { name: string; args?: Record<string, unknown> }[];
  keys?: Record<string, Described>;
  items?: Described[];
  matches?: { schema?: Described }[];
}

/**
 * What the converter leaves out of strings, put back from Joi's own description: Joi refuses an
 * empty string unless the rule allows one (minLength 1), and a trimmed text refuses one of spaces
 * only (not blank). Walks the description and the converted schema side by side, and leaves any
 * part whose shapes differ (a custom validator's x-schema) as it is.
 */
function refine(desc: Described | undefined, node: unknown): void {
  if (!desc || !node || typeof node !== 'object') return;
  let target = node as JsonSchema;
  if (typeof target.$ref === 'string' && desc.flags?.id) target = named[desc.flags.id] ?? target;
  const has = (rule: string) => desc.rules?.some((r) => r.name === rule) ?? false;
  const types = Array.isArray(target.type) ? (target.type as string[]) : [target.type];
  if (desc.type === 'string' && types.includes('string') && !desc.allow?.includes('')) {
    if (!has('min') && target.minLength === undefined) target.minLength = 1;
    const nonBlank = (target.allOf as JsonSchema[] | undefined)?.some((s) => s.pattern === '\\S');
    if (has('trim') && !nonBlank && target.pattern === undefined && target.enum === undefined)
      target.allOf = [...((target.allOf as unknown[] | undefined) ?? []), { pattern: '\\S' }];
  }
  const properties = target.properties as Record<string, unknown> | undefined;
  if (desc.keys && properties)
    for (const [key, sub] of Object.entries(desc.keys)) refine(sub, properties[key]);
  if (desc.items?.length === 1) refine(desc.items[0], target.items);
  const branches = (target.anyOf ?? target.oneOf) as unknown[] | undefined;
  if (desc.matches && branches?.length === desc.matches.length)
    desc.matches.forEach((m, i) => refine(m.schema, branches[i]));
}

/** A Joi rule as the document's JSON Schema; its named parts (`.id()`) become components. */
export function fromJoi(schema: Joi.Schema): JsonSchema {
  const converted = parse(schema, 'open-api-3.1') as JsonSchema & { schemas?: Record<string, JsonSchema> };
  const { schemas, ...rest } = converted;
  for (const [name, definition] of Object.entries(schemas ?? {}))
    named[name] = plain(definition) as JsonSchema;
  const result = plain(rest) as JsonSchema;
  refine(schema.describe() as Described, result);
  return result;
}

/** The components named by the rules converted so far (the assembler adds them to the document). */
export const requestComponents = (): Record<string, JsonSchema> => ({ ...named });

/** A request body validated by `schema`, in each of `contentTypes` (JSON unless told). */
export function joiBody(
  schema: Joi.Schema,
  opts: { contentTypes?: string[]; description?: string; required?: boolean } = {},
) {
  const converted = fromJoi(schema);
  return {
    required: opts.required ?? true,
    ...(opts.description ? { description: opts.description } : {}),
    content: Object.fromEntries(
      (opts.contentTypes ?? ['application/json']).map((type) => [type, { schema: converted }]),
    ),
    [JOI]: schema,
  };
}

/**
 * The query parameters of an operation, one per key of the Joi object that validates its query
 * string, each with its rule's description; `JOI` on each names the object and the key.
 */
export function joiQuery(schema: Joi.ObjectSchema) {
  const converted = fromJoi(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(converted.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return {
      name,
      in: 'query',
      ...(converted.required?.includes(name) ? { required: true } : {}),
      schema: rest,
      ...(description ? { description } : {}),
      [JOI]: schema,
    };
  });
}
