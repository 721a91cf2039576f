import fs from 'node:fs';
import { expect } from 'chai';

/**
 * Issue 33: a newcomer who knows one feature knows where every other one lives. The README's table
 * "A feature in one hop" names each route folder with its use case and repository, or says why the
 * names differ; this fails when a folder is missing from it, or the table names a file that is not
 * there.
 */
describe("the README's feature map", () => {
  const readme = fs.readFileSync('README.md', 'utf8');
  const start = readme.indexOf('**A feature in one hop.**');
  const rows = readme
    .slice(start, readme.indexOf('**The contract.**', start))
    .split('\n')
    .filter((l) => /^\| `[a-z-]+`/.test(l))
    .map((l) => l.split('|').map((c) => c.trim()));

  it('lists every route folder once', () => {
    const folders = fs
      .readdirSync('api/routes', { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(rows.map((r) => r[1]!.replaceAll('`', '')).sort()).to.deep.equal(folders);
  });

  it('names only use cases and repositories that exist', () => {
    const names = (cell: string) => [...cell.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!);
    for (const r of rows) {
      for (const u of names(r[2]!))
        expect(fs.existsSync(`common/usecases/${u}.ts`), `use case ${u}`).to.equal(true);
      for (const repo of names(r[3]!))
        expect(fs.existsSync(`common/data/repos/${repo}.ts`), `repository ${repo}`).to.equal(true);
    }
  });
});
