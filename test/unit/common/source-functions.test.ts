import fs from 'node:fs';
import { expect } from 'chai';
import { sourceFunctions } from '../../../common/data/migrate.js';

/**
 * The content of every released version of each source function. migrate applies a file only when
 * its Version is newer than the database's (or the same version edited), so a change released
 * without raising the Version would be skipped by a database that has the old one: this list makes
 * such a change fail here. A change adds a line: the new version and its file's sha256.
 */
const VERSIONS = JSON.parse(
  fs.readFileSync(new URL('function-versions.json', import.meta.url), 'utf8'),
) as Record<string, Record<string, string>>;

describe('Source functions: every change raises the Version line', () => {
  it('each file is the content listed for its version', () => {
    const files = sourceFunctions();
    expect(files.map((f) => f.name).sort()).to.deep.equal(Object.keys(VERSIONS).sort());
    for (const fn of files)
      expect(
        fn.sha256,
        `${fn.name}.sql changed: raise its "-- Version:" line and list the new version's sha256 in function-versions.json`,
      ).to.equal(VERSIONS[fn.name]![String(fn.version)]);
  });
});
