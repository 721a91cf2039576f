import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createPool, type Pool } from '../../common/data/db.js';
import { applySourceFunctions, sourceFunctions } from '../../common/data/migrate.js';
import { testServices } from '../helpers/services.js';

/** The body between the $$ quotes of a function file: what PostgreSQL keeps as the function's source. */
const bodyOf = (sql: string) => /\$\$([\s\S]*)\$\$/.exec(sql)![1]!;

describe('Database functions as source files (common/data/functions, applied by migrate when changed)', function () {
  this.timeout(30_000);
  let pool: Pool;
  let url: string;
  let dir: string;
  const write = (body: string, version: number) =>
    fs.writeFileSync(
      path.join(dir, 'pt_test_answer.sql'),
      `-- Version: ${version}\n-- a test function\nCREATE OR REPLACE FUNCTION pt_test_answer() RETURNS int LANGUAGE sql AS $$ ${body} $$;\n`,
    );
  const answer = async () => (await pool.query<{ a: number }>('SELECT pt_test_answer() AS a')).rows[0]!.a;
  const record = async () =>
    (
      await pool.query<{ version: number; sha256: string; applied_at: Date }>(
        "SELECT version, sha256, applied_at FROM pt_source_functions WHERE name = 'pt_test_answer'",
      )
    ).rows[0];

  before(async () => {
    url = (await testServices()).databaseUrl;
    pool = createPool(url, 4);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-functions-'));
  });
  after(async () => {
    await pool.query('DROP FUNCTION IF EXISTS pt_test_answer()');
    await pool.query("DELETE FROM pt_source_functions WHERE name = 'pt_test_answer'");
    await pool.end();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the database runs exactly the file: pt_file_reports source and hash as in common/data/functions', async () => {
    const files = sourceFunctions();
    expect(files.map((f) => f.name)).to.include('pt_file_reports');
    for (const fn of files) {
      const { rows } = await pool.query<{ prosrc: string; sha256: string }>(
        `SELECT p.prosrc, s.sha256 FROM pg_proc p JOIN pt_source_functions s ON s.name = p.proname
          WHERE p.proname = $1`,
        [fn.name],
      );
      expect(rows, fn.name).to.have.length(1);
      expect(rows[0]!.sha256).to.equal(fn.sha256);
      expect(rows[0]!.prosrc).to.equal(bodyOf(fn.sql));
    }
  });

  it('applies a new file, leaves an unchanged one alone, and applies it again once its content changed', async () => {
    write('SELECT 1', 1);
    expect(await applySourceFunctions(url, dir)).to.deep.equal(['pt_test_answer']);
    expect(await answer()).to.equal(1);
    const first = await record();

    expect(await applySourceFunctions(url, dir)).to.deep.equal([]);
    expect((await record())!.applied_at.getTime()).to.equal(first!.applied_at.getTime());

    write('SELECT 2', 2);
    expect(await applySourceFunctions(url, dir)).to.deep.equal(['pt_test_answer']);
    expect(await answer()).to.equal(2);
    expect((await record())!.sha256).not.to.equal(first!.sha256);
  });

  it('a file that fails changes nothing: the previous function and its hash stay', async () => {
    write('SELECT 3', 3);
    await applySourceFunctions(url, dir);
    const before = await record();
    write('SELECT no_such_column FROM no_such_table', 4);
    let failed: unknown;
    await applySourceFunctions(url, dir).catch((err: unknown) => (failed = err));
    expect(String(failed)).to.match(/no_such_table/);
    expect(await answer()).to.equal(3);
    expect((await record())!.sha256).to.equal(before!.sha256);
  });

  it("an older release's file (a process of it restarting during a rolling deploy) never replaces a newer one", async () => {
    write('SELECT 10', 10);
    await applySourceFunctions(url, dir);
    write('SELECT 9', 9);
    expect(await applySourceFunctions(url, dir)).to.deep.equal([]);
    expect(await answer()).to.equal(10);
    expect((await record())!.version).to.equal(10);
  });

  it('a file without its version line is refused before anything is applied', async () => {
    fs.writeFileSync(
      path.join(dir, 'pt_test_answer.sql'),
      'CREATE OR REPLACE FUNCTION pt_test_answer() RETURNS int LANGUAGE sql AS $$ SELECT 0 $$;\n',
    );
    let failed: unknown;
    await applySourceFunctions(url, dir).catch((err: unknown) => (failed = err));
    expect(String(failed)).to.match(/pt_test_answer\.sql: the first line must be "-- Version: <n>"/);
    expect(await answer()).to.equal(10);
  });

  it('processes starting at once apply a changed file once between them', async () => {
    write('SELECT 11', 11);
    const results = await Promise.all(Array.from({ length: 4 }, () => applySourceFunctions(url, dir)));
    expect(results.flat()).to.deep.equal(['pt_test_answer']);
    expect(await answer()).to.equal(11);
  });
});
