import { expect } from 'chai';
import { normalizeSignal, SIGNAL_KINDS, type SignalKind } from '../../../common/domain/signals.js';
import fc from 'fast-check';
import type Joi from 'joi';
import { JOI } from '../../../api/contract.js';
import { openApiDocument } from '../../../api/openapi.js';
import { ajv } from '../../helpers/http.js';
import { samples } from '../../helpers/schema-samples.js';

type Schema = Record<string, unknown>;
const doc = openApiDocument as unknown as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')]!;
const pointer = (path: string) => path.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Rules the document states in words only, because JSON Schema cannot compare two fields: a sample
 * they refuse is left out of the comparison (each is in the description of its schema).
 */
/** A signal whose value is not of its kind's form (docs/studios.md "Linked accounts"): stated in words. */
const badSignalValue = (sample: unknown) => {
  const signals = (sample as { signals?: unknown })?.signals;
  return (
    Array.isArray(signals) &&
    signals.some((s: { kind?: unknown; value?: unknown } | null) => {
      if (typeof s !== 'object' || s === null || typeof s.value !== 'string') return false;
      if (!(SIGNAL_KINDS as readonly unknown[]).includes(s.kind)) return false;
      return normalizeSignal(s.kind as SignalKind, s.value) === undefined;
    })
  );
};

const IN_WORDS_ONLY: Record<string, (sample: unknown) => boolean> = {
  'POST /v1/player/{serviceId}/signals': badSignalValue,
  'POST /v1/signals': badSignalValue,
  'POST /v1/afk/submitReport/{serviceId}': (sample) => {
    const r = (sample as { report?: { afkDurationSeconds?: unknown; matchDurationSeconds?: unknown } })
      ?.report;
    return (
      typeof r?.afkDurationSeconds === 'number' &&
      typeof r.matchDurationSeconds === 'number' &&
      r.afkDurationSeconds > r.matchDurationSeconds
    );
  },
};

interface BodyOperation {
  name: string;
  schema: Schema;
  joi: Joi.Schema;
  at: string;
}
interface QueryOperation {
  name: string;
  params: { name: string; required: boolean; schema: Schema }[];
  joi: Joi.Schema;
}

const bodies: BodyOperation[] = [];
const handWritten: string[] = [];
const queries: QueryOperation[] = [];
for (const [path, item] of Object.entries(doc.paths))
  for (const [method, op] of Object.entries(item)) {
    const name = `${method.toUpperCase()} ${path}`;
    const body = op.requestBody as (Schema & { [JOI]?: Joi.Schema }) | undefined;
    if (body && !body[JOI]) handWritten.push(name);
    if (body?.[JOI]) {
      const content = body.content as Record<string, { schema: Schema }>;
      for (const type of Object.keys(content))
        bodies.push({
          name: `${name} (${type})`,
          schema: content[type]!.schema,
          joi: body[JOI],
          at: `openapi#/paths/${pointer(path)}/${method}/requestBody/content/${pointer(type)}/schema`,
        });
    }
    const params = ((op.parameters as (Schema & { [JOI]?: Joi.Schema })[] | undefined) ?? []).filter(
      (p) => p.in === 'query' && p[JOI],
    );
    if (params.length)
      queries.push({
        name,
        joi: params[0]![JOI]!,
        params: params.map((p) => ({
          name: p.name as string,
          required: p.required === true,
          schema: p.schema as Schema,
        })),
      });
  }

/** What a query string carries: text; the document's typed parameters read from it as a server would. */
const asText = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
function fromText(text: string, schema: Schema): unknown {
  if (schema.type === 'integer' && /^-?\d+$/.test(text)) return Number(text);
  if (schema.type === 'number' && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (schema.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** The path parameters and headers of every operation, and which of them are derived from a rule. */
const pathAndHeaders = new Map<string, { where: string; schema: Schema; joi?: Joi.Schema }>();
const notDerived: string[] = [];
for (const [path, item] of Object.entries(doc.paths))
  for (const [method, op] of Object.entries(item))
    for (const p of (op.parameters as (Schema & { [JOI]?: Joi.Schema })[] | undefined) ?? []) {
      if (p.in !== 'path' && p.in !== 'header') continue;
      if (!p[JOI]) notDerived.push(`${method.toUpperCase()} ${path} ${p.name as string}`);
      else
        pathAndHeaders.set(`${p.in} ${p.name as string}`, {
          where: p.in,
          schema: p.schema as Schema,
          joi: p[JOI],
        });
    }

const RUNS = Number(process.env.CONTRACT_RUNS ?? 300);

describe('The contract is derived from the Joi rules: Joi and the document accept the same requests', () => {
  it('derives every request body but the sign-in page form, and the query of every listing', () => {
    // The one hand-written request: the authorization page's form and query (RFC 6749 4.1.1), whose
    // refusals are a page or a redirect by the RFC's order, not a validation error.
    expect(handWritten).to.deep.equal(['POST /v1/oauth/authorize']);
    expect(bodies.length).to.be.greaterThan(20);
    expect(queries.map((q) => q.name)).to.include.members([
      'GET /v1/admin/cases',
      'GET /v1/admin/audit',
      'GET /v1/admin/stats',
      'GET /v1/admin/appeals',
      'GET /v1/player/{serviceId}/offenses',
      'GET /v1/player/{serviceId}/sanctions',
    ]);
  });

  for (const op of bodies)
    it(`${op.name}: generated bodies`, () => {
      const validate = ajv.getSchema(op.at)!;
      expect(validate, op.at).to.not.equal(undefined);
      const inWords = IN_WORDS_ONLY[op.name.replace(/ \(.*\)$/, '')];
      let accepted = 0;
      fc.assert(
        fc.property(samples(op.schema, resolve), (sample) => {
          fc.pre(!inWords?.(sample));
          const byDocument = validate(sample) === true;
          const { error } = op.joi.validate(structuredClone(sample), { abortEarly: false });
          if (byDocument) accepted++;
          expect(
            byDocument,
            `${JSON.stringify(sample)}\n  document: ${byDocument ? 'accepts' : ajv.errorsText(validate.errors)}\n  Joi: ${error ? error.message : 'accepts'}`,
          ).to.equal(!error);
        }),
        { numRuns: RUNS },
      );
      // The generator reaches valid requests, not only refused ones.
      expect(accepted, 'too few generated bodies were valid').to.be.greaterThan(RUNS / 20);
    });

  for (const op of queries)
    it(`${op.name}: generated query strings`, () => {
      const model = Object.fromEntries(op.params.map((p) => [p.name, samples(p.schema, resolve)]));
      const required = op.params.filter((p) => p.required).map((p) => p.name);
      fc.assert(
        fc.property(fc.record(model, { requiredKeys: required }), (values) => {
          const query = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, asText(v)]));
          const byDocument = op.params.every((p) =>
            query[p.name] === undefined
              ? !p.required
              : ajv.validate(p.schema, fromText(query[p.name]!, p.schema)) === true,
          );
          const { error } = op.joi.validate(query, { abortEarly: false });
          expect(
            byDocument,
            `${JSON.stringify(query)}\n  Joi: ${error ? error.message : 'accepts'}`,
          ).to.equal(!error);
        }),
        { numRuns: RUNS },
      );
    });

  it('derives every path parameter and header from the rule its route reads it with (api/params.ts)', () => {
    expect(notDerived).to.deep.equal([]);
    expect([...pathAndHeaders.keys()]).to.include.members([
      'path serviceId',
      'path caseId',
      'header Idempotency-Key',
      'header Notice-Secret',
    ]);
  });

  for (const [name, p] of pathAndHeaders)
    it(`${name}: generated values`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(
          fc.oneof(
            samples(p.schema, resolve).map(asText),
            fc.uuid(),
            fc.uuid().map((u) => u.toUpperCase()),
            fc.string(),
          ),
          (value) => {
            const byDocument = ajv.validate(p.schema, value) === true;
            const { error } = p.joi!.validate(value);
            if (byDocument) accepted++;
            expect(
              byDocument,
              `${JSON.stringify(value)}\n  Joi: ${error ? error.message : 'accepts'}`,
            ).to.equal(!error);
          },
        ),
        { numRuns: RUNS },
      );
      expect(accepted, 'too few generated values were valid').to.be.greaterThan(0);
    });
});
