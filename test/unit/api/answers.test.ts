import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

/**
 * Issue 33: a route's JSON answer is typed from the schema its operation declares
 * (`ctx.body = x satisfies Answer<Paths, path, method, status>`, api/contract-types.ts), so an
 * answer that drifts from the document fails to compile. What is not a JSON object built in
 * TypeScript is listed here, each with why, and docs/contributors.md "The contract" lists the same.
 */
const NOT_TYPED: Record<string, { bodies: RegExp[]; why: string }> = {
  'api/routes/console/routes.ts': {
    bodies: [/^fs\.createReadStream\(/, /^landing$/, /^FAVICON$/, /^DOCS_PAGE$/, /^DOCS_INIT$/],
    why: 'the built console, the landing page, the icon and the API reference: files and HTML',
  },
  'api/routes/demo/routes.ts': { bodies: [/^`<!doctype html>/], why: "the demo game's callback page: HTML" },
  'api/routes/docs/routes.ts': { bodies: [/^body$/], why: 'the OpenAPI document itself' },
  'api/routes/notices/routes.ts': {
    bodies: [/^noticeFormPage\(/, /^receiptPage\(/, /^statusFormPage\(/, /^statusPage\(/],
    why: 'the notice form and status pages: HTML (the JSON routes beside them are typed)',
  },
  'api/routes/oauth/routes.ts': {
    bodies: [/^errorPage\(/, /^consentPage\(/],
    why: 'the sign-in and consent pages: HTML',
  },
  'api/routes/operations/routes.ts': {
    bodies: [/^body$/, /^ctx\.body\.replace\(/],
    why: 'Prometheus text (/metrics) and the queue board: not JSON of ours',
  },
  'api/routes/players/export.ts': { bodies: [/^Readable\.from\(/], why: 'the export, streamed as NDJSON' },
  'api/routes/players/routes.ts': {
    bodies: [/^json$/],
    why: 'profiles and offense pages PostgreSQL renders to JSON text; test/integration/rendered-views.test.ts holds them equal to the typed views',
  },
  'api/routes/standing/routes.ts': {
    bodies: [/^standingPage\(/, /^signInPage\(/, /^recordPage\(/],
    why: "the player's standing pages: HTML",
  },
  'api/routes/transparency/routes.ts': { bodies: [/^reportCsv\(/], why: 'the transparency report as CSV' },
};

/** Each `ctx.body = ...;` statement of a source file: its line and its value, as written. */
function bodies(text: string): { line: number; value: string }[] {
  const found: { line: number; value: string }[] = [];
  for (const m of text.matchAll(/ctx\.body = /g)) {
    let depth = 0;
    let end = m.index + m[0].length;
    for (; end < text.length; end++) {
      const c = text[end]!;
      if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) depth--;
      else if (c === ';' && depth === 0) break;
    }
    found.push({
      line: text.slice(0, m.index).split('\n').length,
      value: text.slice(m.index + m[0].length, end).trim(),
    });
  }
  return found;
}

const routeFiles = fs.readdirSync('api/routes').flatMap((dir) =>
  fs
    .readdirSync(path.join('api/routes', dir))
    .filter((f) => f.endsWith('.ts') && f !== 'contract.ts' && f !== 'schema.ts')
    .map((f) => path.join('api/routes', dir, f)),
);

describe('routes answer what their operations declare (issue 33)', () => {
  it('every JSON answer a route sets is checked against its operation, or listed with why not', () => {
    const unlisted: string[] = [];
    for (const file of routeFiles) {
      const allowed = NOT_TYPED[file]?.bodies ?? [];
      for (const { line, value } of bodies(fs.readFileSync(file, 'utf8'))) {
        if (/\bsatisfies\s+(\|\s*)?Answer</.test(value)) continue;
        if (allowed.some((re) => re.test(value))) continue;
        unlisted.push(`${file}:${line}: ${value.slice(0, 60)}`);
      }
    }
    expect(unlisted, 'answers neither typed nor listed').to.deep.equal([]);
  });

  it('the list names only files that have such answers', () => {
    for (const [file, { bodies: patterns }] of Object.entries(NOT_TYPED)) {
      const values = bodies(fs.readFileSync(file, 'utf8')).map((b) => b.value);
      for (const re of patterns)
        expect(
          values.some((v) => re.test(v)),
          `${file}: ${re} matches no answer`,
        ).to.equal(true);
    }
  });

  it('finds an untyped answer (the scan itself works)', () => {
    const found = bodies("router.get('/x', (ctx) => {\n  ctx.body = { a: f(1, [2]) };\n});\n");
    expect(found).to.deep.equal([{ line: 2, value: '{ a: f(1, [2]) }' }]);
  });
});
