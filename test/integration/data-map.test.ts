import fs from 'node:fs';
import pg from 'pg';
import { expect } from 'chai';
import { testServices } from '../helpers/services.js';

/**
 * Issue 36: the compliance officer's guide, "Personal data", maps every table and column. A
 * migration that adds a table or a column the map does not name fails here, so the map cannot fall
 * behind the schema unnoticed.
 */
describe("the personal-data map in the compliance officer's guide names every table and column of the schema", () => {
  it('every table has an item, every column is named once as personal or other, and nothing else is named', async () => {
    const guide = fs.readFileSync('docs/compliance.md', 'utf8');
    const start = guide.indexOf('### Data map');
    expect(start, 'docs/compliance.md has a "### Data map"').to.be.greaterThan(0);
    const section = guide.slice(start, guide.indexOf('\n## ', start));
    const map = new Map<string, { personal: string[]; other: string[] }>();
    const names = (text: string) => [...text.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]!);
    // Each table is an item `- **`table`**` with its lines `  - Personal: ...` and `  - Other: ...`.
    for (const item of section.split(/\n(?=- )/)) {
      const table = /^- \*\*`([a-z_0-9]+)`\*\*/.exec(item)?.[1];
      if (!table) continue;
      const line = (label: string) =>
        item.split(/\n(?= {2}- )/).find((l) => l.startsWith(`  - ${label}:`)) ?? '';
      map.set(table, { personal: names(line('Personal')), other: names(line('Other')) });
    }

    const client = new pg.Client({ connectionString: (await testServices()).databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> 'pgmigrations'
            -- A partition is its parent's rows (matches_p202612 is matches): the map names the parent.
            AND NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid
                             WHERE k.relname = c.table_name)
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
