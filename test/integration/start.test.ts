import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, npmStart, sleep, until } from '../helpers/npm-start.js';

/** Processes whose command line names this data folder or the API and workers of this checkout. */
function leftovers(dataDir: string, pids: number[]): number[] {
  return pids
    .filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    })
    .concat(
      fs
        .readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .filter((d) => {
          try {
            return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(dataDir);
          } catch {
            return false;
          }
        })
        .map(Number),
    );
}

/** The pids of the service's processes under `npm start`: the API and workers, by their log lines. */
function servicePids(output: string): number[] {
  return [...output.matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1]));
}

describe('npm start as a process manager runs it', function () {
  this.timeout(120_000);
  let dataDir: string;
  let port: number;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-start-'));
    port = await freePort();
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('SIGTERM to npm stops everything; a second npm start on the same DATA_DIR is refused at once', async () => {
    const first = npmStart(dataDir, port);
    try {
      await until('the service is running', () => first.output().includes('is running at'), 90_000);
      // The banner names every page a person opens.
      for (const page of ['/console', '/docs', '/v1/openapi.json', '/standing', '/notice', '/notice/status'])
        expect(first.output(), page).to.match(new RegExp(`http://[^ ]+${page}\\b`));
      // The demo data comes with decision templates: a new moderator's key 1 works on a fresh install.
      const [, username, password] = /demo moderator \(admin\): (\S+) \/ (\S+)/.exec(first.output())!;
      const session = await fetch(`http://127.0.0.1:${port}/v1/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      const { access_token } = (await session.json()) as { access_token: string };
      const templates = await fetch(`http://127.0.0.1:${port}/v1/admin/templates`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      const { items } = (await templates.json()) as { items: { title: string }[] };
      expect(items.map((t) => t.title)).to.deep.equal([
        'Cheating confirmed: 7-day ban',
        'Abusive chat: 24-hour chat restriction',
        'Not enough evidence: dismiss',
      ]);
      const second = npmStart(dataDir, await freePort());
      expect(await Promise.race([second.exited, sleep(30_000).then(() => 'hung')])).to.equal(1);
      expect(second.output()).to.include(`player-trust is already running on ${dataDir}`);

      const pids = servicePids(first.output());
      process.kill(first.npm.pid!, 'SIGTERM');
      await until('every process stopped', () => leftovers(dataDir, pids).length === 0, 60_000);
      expect(first.output()).to.not.match(/"level":(50|60)/); // no error or fatal lines
    } finally {
      try {
        process.kill(-first.npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('SIGINT to npm (what pm2 sends) stops everything gracefully too', async () => {
    const run = npmStart(dataDir, port);
    try {
      await until('the service is running', () => run.output().includes('is running at'), 90_000);
      const pids = servicePids(run.output());
      process.kill(run.npm.pid!, 'SIGINT');
      await until('every process stopped', () => leftovers(dataDir, pids).length === 0, 60_000);
      expect(run.output()).to.include('"msg":"api stopped"');
      // Its last line comes once the embedded PostgreSQL's stop has returned, a moment after its process is gone.
      await until(
        'npm start said it stopped',
        () => /"name":"start","msg":"stopped"/.test(run.output()),
        10_000,
      );
    } finally {
      try {
        process.kill(-run.npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('an embedded server that dies stops the whole service with a message saying so', async () => {
    const run = npmStart(dataDir, port);
    try {
      await until('the service is running', () => run.output().includes('is running at'), 90_000);
      const redis = JSON.parse(fs.readFileSync(path.join(dataDir, 'redis.json'), 'utf8')) as { pid: number };
      const pids = servicePids(run.output());
      process.kill(redis.pid, 'SIGKILL');
      await until('every process stopped', () => leftovers(dataDir, pids).length === 0, 60_000);
      expect(run.output()).to.match(/the embedded Redis \(pid \d+\) stopped unexpectedly/);
    } finally {
      try {
        process.kill(-run.npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});
