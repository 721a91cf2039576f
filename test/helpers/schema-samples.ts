import fc from 'fast-check';

type Schema = Record<string, unknown>;

/**
 * Requests generated from a JSON Schema of the OpenAPI document (fast-check arbitraries), most of
 * them valid and some deliberately not: a required field left out, a field it does not know, a
 * value of the wrong type, out of its range or enum, too long or too short. Which of them the
 * document accepts is decided by a validator, not by this generator, so the generator only has to
 * reach the interesting cases; the contract test then asks Joi the same question.
 *
 * Free text is drawn from letters, digits, "_", "-" and spaces, and dates from the past:
 * rules relative to the current time (not in the future) are stated in words in the document.
 *
 * A third of the requests are drawn with no deliberate fault anywhere in them: a request of many
 * fields, each faulted now and then, would otherwise be valid too rarely for the count of valid
 * ones to be steady (the griefing report, at about one in twenty, fell under it in one run).
 */
export function samples(schema: Schema, resolve: (ref: string) => Schema): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: draw(schema, resolve, 0, true), weight: 1 },
    { arbitrary: draw(schema, resolve, 0, false), weight: 2 },
  );
}

function draw(
  schema: Schema,
  resolve: (ref: string) => Schema,
  depth: number,
  clean: boolean,
): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') return draw(resolve(schema.$ref), resolve, depth, clean);
  const noise = clean || depth > 4 ? [] : wrongValues(schema);
  const valid = validLike(schema, resolve, depth, clean);
  return noise.length ? fc.oneof({ arbitrary: valid, weight: 15 }, fc.constantFrom(...noise)) : valid;
}

const WORD = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split('')),
  minLength: 1,
  maxLength: 20,
});

function validLike(
  schema: Schema,
  resolve: (ref: string) => Schema,
  depth: number,
  clean: boolean,
): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches && schema.properties && branches.every((b) => !b.type && !b.$ref)) {
    // An object's .or(): branches that only say which of its properties are present, so each branch
    // is the object with those required too (a branch alone has no type to draw from).
    const { oneOf: _one, anyOf: _any, ...object } = schema;
    const required = (object.required as string[] | undefined) ?? [];
    return fc.oneof(
      ...branches.map((b) =>
        objects(
          { ...object, required: [...required, ...((b.required as string[]) ?? [])] },
          resolve,
          depth,
          clean,
        ),
      ),
    );
  }
  if (branches) return fc.oneof(...branches.map((b) => draw({ ...b }, resolve, depth + 1, clean)));
  const type = Array.isArray(schema.type)
    ? (schema.type as string[])[0]
    : (schema.type as string | undefined);
  switch (type) {
    case 'object':
      return objects(schema, resolve, depth, clean);
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = Math.min((schema.maxItems as number | undefined) ?? 4, min + 4);
      const items = schema.items ? draw(schema.items as Schema, resolve, depth + 1, clean) : fc.anything();
      return fc.array(items, { minLength: min, maxLength: max });
    }
    case 'integer':
    case 'number': {
      const min =
        (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined) ?? -1000;
      const max =
        (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined) ?? 100_000;
      return type === 'integer'
        ? fc.integer({ min, max })
        : fc.oneof(
            fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
            fc.double({ min, max, noNaN: true }),
          );
    }
    case 'boolean':
      return fc.boolean();
    case 'string':
      return strings(schema);
    default:
      // Any value (a field the rule leaves to the route, such as a batch item's report).
      return fc.constantFrom<unknown>(1, 'text', true, {}, []);
  }
}

function strings(schema: Schema): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? 64;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time')
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date(Date.now() - 3_600_000),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  if (schema.format === 'uri') return WORD.map((w) => `https://example.com/${w}`);
  if (schema.format === 'email') return WORD.map((w) => `${w}@example.org`);
  if (typeof schema.pattern === 'string') {
    try {
      const re = new RegExp(schema.pattern, 'u');
      return fc.stringMatching(re).filter((s) => s.length >= min && s.length <= max);
    } catch {
      // A pattern fast-check cannot read: plain words, classified by the validator like any other.
    }
  }
  return fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-'.split('')),
    minLength: Math.max(min, 1),
    maxLength: Math.max(min, 1, Math.min(max, 40)),
  });
}

function objects(
  schema: Schema,
  resolve: (ref: string) => Schema,
  depth: number,
  clean: boolean,
): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, prop]) => [name, draw(prop, resolve, depth + 1, clean)]),
  );
  const base = fc.record(model, { requiredKeys: required.filter((r) => r in model) });
  if (clean || depth > 4) return base;
  // Only the required fields: a body whose optional fields depend on one another (an appeal's
  // decision and what may go with it) is valid more often without them.
  const requiredOnly = fc.record(
    Object.fromEntries(Object.entries(model).filter(([k]) => required.includes(k))),
  );
  return fc.oneof(
    { arbitrary: base, weight: 6 },
    { arbitrary: requiredOnly, weight: 2 },
    // A field it does not know.
    base.map((o) => ({ ...o, zzUnknownField: 'x' })),
    // A required field left out.
    ...(required.length
      ? [
          fc
            .tuple(base, fc.constantFrom(...required))
            .map(([o, drop]) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== drop))),
        ]
      : []),
  );
}

/** Values this schema should refuse: of another type, past its bounds, outside its enum. */
function wrongValues(schema: Schema): unknown[] {
  const out: unknown[] = [];
  const type = Array.isArray(schema.type)
    ? (schema.type as string[])[0]
    : (schema.type as string | undefined);
  if (Array.isArray(schema.enum)) out.push('zz-not-a-value');
  if (type === 'string') {
    out.push(12345, { a: 1 });
    if (typeof schema.maxLength === 'number' && schema.maxLength < 5000)
      out.push('z'.repeat(schema.maxLength + 1));
    if (schema.minLength === 1) out.push('');
    if (schema.format === 'uuid' || schema.format === 'date-time' || schema.format === 'uri')
      out.push('not-it');
  }
  if (type === 'integer' || type === 'number') {
    out.push('not-a-number', { a: 1 });
    if (typeof schema.maximum === 'number') out.push(schema.maximum + 1);
    if (typeof schema.minimum === 'number') out.push(schema.minimum - 1);
    if (type === 'integer') out.push(1.5);
  }
  if (type === 'boolean') out.push('not-a-flag', 7);
  if (type === 'array') {
    out.push('not-a-list');
    if (schema.minItems === 1) out.push([]);
  }
  if (type === 'object') out.push('not-an-object', []);
  return out;
}
