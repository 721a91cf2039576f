import fs from 'node:fs';
import pg from 'pg';
import { expect } from 'chai';
import { testServices } from '../helpers/services.js';

/**
 * Issue 36: README "Personal data" maps every table and column. A migration that adds a table or a
 * column the map does not name fails here, so the map cannot fall behind the schema unnoticed.
 */
describe('the personal-data map in the README names every table and column of the schema', () => {
  it('every table has a row, every column is named once as personal or other, and nothing else is named', async () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const start = readme.indexOf('### Data map');
    expect(start, 'README has a "### Data map"').to.be.greaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start));
    const map = new Map<string, { personal: string[]; other: string[] }>();
    const names = (cell: string) => [...cell.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]!);
    for (const line of section.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      const table = /^`([a-z_0-9]+)`$/.exec(cells[1] ?? '')?.[1];
      if (!table) continue;
      map.set(table, { personal: names(cells[2] ?? ''), other: names(cells[3] ?? '') });
    }

    const client = new pg.Client({ connectionString: (await testServices()).databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> 'pgmigrations'
          ORDER BY c.table_name, c.ordinal_position`,
      );
      const schema = new Map<string, string[]>();
      for (const r of rows) schema.set(r.table_name, [...(schema.get(r.table_name) ?? []), r.column_name]);
      expect([...map.keys()].sort(), 'the tables the map names').to.deep.equal([...schema.keys()].sort());
      for (const [table, columns] of schema) {
        const { personal, other } = map.get(table)!;
        expect(
          personal.filter((c) => other.includes(c)),
          `${table}: a column both personal and other`,
        ).to.deep.equal([]);
        expect([...personal, ...other].sort(), `${table}: the columns the map names`).to.deep.equal(
          [...columns].sort(),
        );
      }
    } finally {
      await client.end();
    }
  });
});
