import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTenant, createTestModerator, startTestApi, type TestApi } from '../helpers/app.js';

const run = promisify(execFile);

/**
 * Issue 51: the compliance officer's guide (docs/compliance.md) is runnable as written: its shell
 * blocks, run one after another with bash (stopping at the first failing command) against a real
 * service, record what they say and download the report.
 */
describe("the compliance officer's guide runs as written (issue 51)", function () {
  this.timeout(60_000);
  let api: TestApi;

  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api?.close();
  });

  it('every command of docs/compliance.md succeeds, in order, and does what the guide says', async () => {
    const guide = fs.readFileSync(path.resolve('docs/compliance.md'), 'utf8');
    const blocks = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).to.be.at.least(4);
    const admin = await createTestModerator(api, 'admin');
    const studio = await createTenant(api.pool, 'Guide');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-guide-'));
    try {
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', blocks.join('\n')], {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          BASE: api.url,
          ADMIN: admin.username,
          PASSWORD: admin.password,
          STUDIO: studio.studioId,
        },
      });
      expect(stdout).to.include('"items"');
      const csv = fs.readFileSync(path.join(dir, 'transparency-report-2026.csv'), 'utf8');
      expect(csv).to.include('"disputes","number_of_disputes_submitted","total","1"');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const { rows } = await api.pool.query('SELECT kind, action FROM authority_orders WHERE platform = $1', [
      studio.studioId,
    ]);
    expect(rows).to.deep.equal([{ kind: 'act', action: 'Account suspended; chat kept for the authority.' }]);
    const account = await api.pool.query('SELECT mode FROM transparency_accounts WHERE platform = $1', [
      studio.studioId,
    ]);
    expect(account.rows).to.deep.equal([{ mode: 'dry-run' }]);
  });
});
