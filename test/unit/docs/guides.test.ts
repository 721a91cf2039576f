import fs from 'node:fs';
import { expect } from 'chai';
import {
  GUIDES,
  PAGES,
  RUN_PAGES,
  headings,
  localLinks,
  resolveLink,
  shellBlocks,
} from '../../helpers/markdown.js';

/**
 * Issue 52: documentation each reader can use. A short README that maps the guides, a guide per
 * reader with a table of contents, tables narrow enough to read, no link to a missing file or
 * heading, and every shell block either run by the suite or marked illustrative.
 */
describe('the documentation', () => {
  const read = (f: string) => fs.readFileSync(f, 'utf8');

  it('the README is a page or two: what the service is, the two commands, the pages, the guides', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).to.be.at.most(120);
    expect(readme).to.include('npm ci && npm start');
    expect(readme).to.match(/^npm test\b/m);
    for (const page of ['/console', '/docs', '/standing', '/notice', '/notice/status', '/v1/openapi.json'])
      expect(readme, page).to.include(`\`${page}\``);
    for (const guide of GUIDES) expect(readme, guide).to.include(`](${guide})`);
  });

  for (const guide of GUIDES)
    it(`${guide} has a table of contents naming each of its sections`, () => {
      const text = read(guide);
      const sections = headings(text).filter((h) => h.level === 2 && h.text !== 'Contents');
      expect(sections.length).to.be.at.least(3);
      const contents = text.slice(
        text.indexOf('## Contents'),
        text.indexOf('\n## ', text.indexOf('## Contents') + 1),
      );
      expect(text.indexOf('## Contents'), 'a "## Contents"').to.be.greaterThan(0);
      for (const s of sections) expect(contents, s.text).to.include(`](#${s.anchor})`);
    });

  it('every link to a file or heading of the repository resolves', () => {
    const broken: string[] = [];
    for (const page of PAGES)
      for (const { target, line } of localLinks(read(page))) {
        const file = target.startsWith('#') ? page : resolveLink(page, target);
        const anchor = target.includes('#') ? target.slice(target.indexOf('#') + 1) : null;
        if (!fs.existsSync(file)) broken.push(`${page}:${line} ${target}: no file ${file}`);
        else if (anchor && !headings(read(file)).some((h) => h.anchor === decodeURIComponent(anchor)))
          broken.push(`${page}:${line} ${target}: no heading #${anchor} in ${file}`);
      }
    expect(broken).to.deep.equal([]);
  });

  it('prose is wrapped and tables are narrow enough to read', () => {
    const wide: string[] = [];
    for (const page of PAGES) {
      let fence = false;
      read(page)
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*```/.test(line)) fence = !fence;
          // A line over the width is a table row, or one word that cannot be broken (a link, a code span).
          else if (!fence && line.length > 100) {
            const table = line.startsWith('|') && line.length > 120;
            const breakable =
              !line.startsWith('|') &&
              line
                .replace(/`[^`]*`|\[[^\]]*\]\([^)]*\)/g, '')
                .replace(/^\s*(?:[-*]|\d+\.)\s/, '')
                .trim()
                .includes(' ');
            if (table || (breakable && page !== 'docs/performance.md'))
              wide.push(`${page}:${i + 1} (${line.length} characters)`);
          }
        });
    }
    expect(wide).to.deep.equal([]);
  });

  it('every shell block is run by the suite, or marked illustrative', () => {
    const marks = new Set<string>();
    for (const page of PAGES) for (const b of shellBlocks(read(page))) b.marks.forEach((m) => marks.add(m));
    expect([...marks].filter((m) => m !== 'illustrative' && m !== 'stopped')).to.deep.equal([]);
    const runnable = PAGES.flatMap((p) =>
      shellBlocks(read(p)).filter((b) => !b.marks.includes('illustrative')),
    );
    expect(runnable.length).to.be.at.least(12);
    // Every page with a block to run is one the examples test runs.
    const withRunnable = PAGES.filter((p) =>
      shellBlocks(read(p)).some((b) => !b.marks.includes('illustrative')),
    );
    expect(withRunnable.sort()).to.deep.equal([...RUN_PAGES].sort());
  });
});
