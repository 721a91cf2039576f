import fs from 'node:fs';
import { expect } from 'chai';

/**
 * Issue 33: a newcomer who knows one feature knows where every other one lives. The contributors'
 * guide's list "A feature in one hop" names each route folder with its use case and repository, or
 * says why the names differ; this fails when a folder is missing from it, or the list names a file
 * that is not there.
 */
describe("the contributors' guide's feature map", () => {
  const guide = fs.readFileSync('docs/contributors.md', 'utf8');
  const start = guide.indexOf('**A feature in one hop.**');
  /** Each item: the route folder, then its "use case" and "repository" lines. */
  const rows = guide
    .slice(start, guide.indexOf('**The contract.**', start))
    .split(/\n(?=- \*\*`)/)
    .filter((item) => /^- \*\*`[a-z-]+`\*\*/.test(item))
    .map((item) => {
      const line = (label: string) =>
        item
          .split(/\n(?= {2}- )/)
          .find((l) => l.trimStart().startsWith(`- ${label}`))
          ?.replace(/\s+/g, ' ') ?? '';
      return [
        '',
        /^- \*\*`([a-z-]+)`\*\*/.exec(item)![1]!,
        line('use case').replace(/^.*?\): /, ''),
        line('repository').replace(/^.*?\): /, ''),
      ];
    });

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
