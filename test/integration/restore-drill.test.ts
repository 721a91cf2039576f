import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { formatResult } from '../../scripts/drills/harness.js';
import { restoreDrill } from '../../scripts/drills/cases/restore.js';

/**
 * `npm run drill -- restore`, shortened: npm start's embedded set-up under report load, backed up with
 * `admin db backup` while it runs, its DATA_DIR destroyed, restored with `admin db restore`, started
 * again: every report answered 201 before the backup began is back, filed and enriched, and the
 * studio's secret and an earlier moderator token still work.
 */
describe('restore drill (shortened)', function () {
  this.timeout(300_000);
  const dir = path.resolve('.test-data', `restore-${process.pid}`);
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('backup under load, DATA_DIR destroyed, restore: nothing accepted before the backup is lost', async () => {
    const result = await restoreDrill({ dir, loadSeconds: 4, rate: 10 });
    expect(result.ok, formatResult(result)).to.equal(true);
  });
});
