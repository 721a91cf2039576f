import fs from 'node:fs';
import { expect } from 'chai';

/**
 * Issue 33: a use case calls repositories (common/data/repos/) and life cycles (common/lifecycles/)
 * and runs no SQL of its own; a route calls use cases. A use case that must run a statement itself
 * would be listed here with why (none is).
 */
const STILL_RUN_SQL: string[] = [];

/** A statement run through pg: `.query(` or `.query<...>(` on a pool, a client or a Queryable. */
const RUNS_SQL = /\.query\s*(<[^>]*(>[^>]*)*>)?\s*\(/;

describe('use cases run no SQL of their own (issue 33)', () => {
  const files = fs
    .readdirSync('common/usecases')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.replace(/\.ts$/, ''));

  it('only the listed use cases run statements themselves', () => {
    const running = files.filter((f) => RUNS_SQL.test(fs.readFileSync(`common/usecases/${f}.ts`, 'utf8')));
    expect(
      running.filter((f) => !STILL_RUN_SQL.includes(f)),
      'SQL in a use case',
    ).to.deep.equal([]);
    expect(
      STILL_RUN_SQL.filter((f) => !running.includes(f)),
      'listed but free of SQL now: take it off the list',
    ).to.deep.equal([]);
  });

  it('the scan finds a statement', () => {
    expect(RUNS_SQL.test("await db.query<{ id: string }>('SELECT 1')")).to.equal(true);
    expect(RUNS_SQL.test("await client.query('SELECT 1')")).to.equal(true);
    expect(RUNS_SQL.test('await tagsOfSubject(db, kind, id)')).to.equal(false);
  });

  it('routes run no statements either, but the readiness probe (SELECT 1)', () => {
    const routeFiles = fs.readdirSync('api/routes').flatMap((dir) =>
      fs
        .readdirSync(`api/routes/${dir}`)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `api/routes/${dir}/${f}`),
    );
    const running = routeFiles.filter((f) => {
      const text = fs.readFileSync(f, 'utf8').replace("deps.pool.query('SELECT 1')", '');
      return RUNS_SQL.test(text);
    });
    expect(running).to.deep.equal([]);
  });
});
