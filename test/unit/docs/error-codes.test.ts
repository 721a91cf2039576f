import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

/** Every `.ts` file of the service (not tests, scripts or the bench). */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The codes the code can send: every code given to an AppError or to the helpers that make one
 * (oauthError, the moderation conflicts), and the fixed codes of the shared helpers.
 */
function codesInSource(): Set<string> {
  const codes = new Set([
    'validation_failed', // validationError
    'not_found', // notFound
    'invalid_client', // unauthorizedClient
    'service_unavailable', // serviceUnavailable, and the error handler's 503
    'internal_error', // the error handler's 500
    'missing_token', // bearerError without a description
    'invalid_token', // bearerError with one
  ]);
  const patterns = [
    /new AppError\(\s*(?:\d{3}|status)\s*,\s*'([a-z_]+)'/g,
    /oauthError\(\s*\d{3}\s*,\s*'([a-z_]+)'/g,
    /conflict\(\s*'([a-z_]+)'/g,
    /\?\s*'([a-z_]+)'\s*:\s*'([a-z_]+)'\s*,\s*detail/g,
  ];
  for (const file of ['api', 'common', 'worker'].flatMap(sources)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const re of patterns)
      for (const m of text.matchAll(re)) for (const c of m.slice(1)) if (c) codes.add(c);
  }
  return codes;
}

/** The codes the studios' guide lists under Errors (each item: `- **<status>** `code` / ...: when`). */
function codesInReadme(): Set<string> {
  const guide = fs.readFileSync('docs/studios.md', 'utf8');
  const start = guide.indexOf('### Errors');
  const section = guide.slice(start, guide.indexOf('\n## ', start));
  const codes = new Set<string>();
  // An item may wrap before its colon; its codes are the spans between the status and the first ': '.
  for (const item of section.split(/\n(?=- \*\*\d{3}\*\* )/).filter((i) => /^- \*\*\d{3}\*\* /.test(i)))
    for (const m of item.slice(0, item.indexOf('`: ') + 1).matchAll(/`([a-z_]+)`/g)) codes.add(m[1]!);
  return codes;
}

describe("the studios' guide's error list", () => {
  it('lists every code the service can send, and no code it cannot', () => {
    const source = codesInSource();
    const readme = codesInReadme();
    expect(source.size).to.be.greaterThan(20);
    expect(
      [...source].filter((c) => !readme.has(c)).sort(),
      'codes missing from docs/studios.md',
    ).to.deep.equal([]);
    expect(
      [...readme].filter((c) => !source.has(c)).sort(),
      'listed codes the code never sends',
    ).to.deep.equal([]);
  });
});

/**
 * The codes a feature's use case raises (common/usecases/<feature>.ts) beside what that feature's
 * operations (api/routes/<feature>/, assembled in the served document) say they answer, under the
 * same status. Issue 50: the tags' 403 listed csrf_failed only, while the service also answers
 * protected_tag. The shared helpers' generic codes (a 503 for a backing service) are named by the
 * shared responses, not each operation.
 */
describe("each feature's OpenAPI operations", () => {
  it('name every code its use case answers, under its status', async () => {
    const { openApiDocument } = await import('../../../api/openapi.js');
    const generic = new Set(['service_unavailable', 'internal_error']);
    const missing: string[] = [];
    const usecases = fs.readdirSync('common/usecases').filter((f) => f.endsWith('.ts'));
    let checked = 0;
    for (const file of usecases) {
      const feature = file.replace(/\.ts$/, '');
      const folder = path.join('api/routes', feature);
      if (!fs.existsSync(folder)) continue;
      // The operations of the paths the feature's route folder declares, as the document serves them.
      const contractFile = path.join(folder, 'contract.ts');
      if (!fs.existsSync(contractFile)) continue;
      const { paths } = (await import(`../../../${contractFile}`)) as { paths?: Record<string, unknown> };
      const templates = Object.keys(paths ?? {}).filter((t) => t in openApiDocument.paths);
      const text = fs.readFileSync(path.join('common/usecases', file), 'utf8');
      for (const m of text.matchAll(/new AppError\(\s*(\d{3})\s*,\s*'([a-z_]+)'/g)) {
        const [, status, code] = m as unknown as [string, string, string];
        if (generic.has(code)) continue;
        checked++;
        const described = templates.some((t) =>
          Object.values(
            (openApiDocument.paths as Record<string, unknown>)[t] as Record<
              string,
              { responses?: Record<string, { description?: string }> }
            >,
          ).some((op) => op?.responses?.[status]?.description?.includes(code)),
        );
        if (!described) missing.push(`${feature}: ${status} ${code}`);
      }
    }
    expect(checked).to.be.greaterThan(30);
    expect(missing).to.deep.equal([]);
  });
});
