import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { shellBlocks } from '../helpers/markdown.js';
import { freePort, killGroup, npmStart, until, type Started } from '../helpers/npm-start.js';

const run = promisify(execFile);

/**
 * Issue 52: every example runs. The service is started the README's way (`npm start`), and each
 * page's shell blocks are run in the order a reader meets them, with bash stopping at the first
 * failing command, from a checkout, with the values a reader takes from the start banner. `curl`
 * fails on any answer of 400 or above here (`--fail-with-body`), so an example that answers an
 * error fails the test instead of printing it. Blocks marked `illustrative` are not run; blocks
 * marked `stopped` run once `npm start` has stopped, and the service started again afterwards must
 * hold what the examples wrote before.
 */
describe('every example in the README and the guides runs as written, against npm start (issue 52)', function () {
  this.timeout(600_000);
  let dataDir: string;
  let checkout: string;
  let bin: string;
  let port: number;
  let service: Started | undefined;
  const repo = process.cwd();

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-examples-data-'));
    // A reader's checkout: the repository's files, where the examples write theirs (players.jsonl, a backup).
    checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-examples-checkout-'));
    for (const entry of fs.readdirSync(repo))
      if (!['.data', '.test-data', '.git', 'test-artifacts'].includes(entry))
        fs.symlinkSync(path.join(repo, entry), path.join(checkout, entry));
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-examples-bin-'));
    const curl = execFileSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
    // -f (the compliance guide's) and --fail-with-body do not go together: the stricter one stays.
    fs.writeFileSync(
      path.join(bin, 'curl'),
      [
        '#!/bin/bash',
        'args=()',
        'for a in "$@"; do case "$a" in -f|--fail) ;; -sf|-fs) args+=(-s) ;; *) args+=("$a") ;; esac; done',
        `exec ${curl} --fail-with-body "\${args[@]}"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    port = await freePort();
  });

  after(() => {
    if (service) killGroup(service);
    for (const dir of [dataDir, checkout, bin]) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{ base: string; cid: string; secret: string }> {
    service = npmStart(dataDir, port);
    await until('the service is running', () => service!.output().includes('is running at'), 180_000);
    const out = service.output();
    return {
      base: /is running at (\S+)/.exec(out)![1]!,
      cid: /client_id: +(\S+)/.exec(out)![1]!,
      secret: /client_secret: +(\S+)/.exec(out)![1]!,
    };
  }

  async function stop() {
    process.kill(service!.npm.pid!, 'SIGTERM');
    expect(await service!.exited).to.equal(0);
    service = undefined;
  }

  /** A page's blocks, with the values a reader puts in for the banner's placeholders. */
  function blocks(
    page: string,
    which: 'running' | 'stopped',
    banner: { base: string; cid: string; secret: string },
  ) {
    return shellBlocks(fs.readFileSync(path.join(repo, page), 'utf8'))
      .filter((b) => !b.marks.includes('illustrative'))
      .filter((b) => b.marks.includes('stopped') === (which === 'stopped'))
      .map((b) =>
        b.code
          .replaceAll('http://127.0.0.1:3000', banner.base)
          .replaceAll('CID=gm_...', `CID=${banner.cid}`)
          .replaceAll('SECRET=...', `SECRET=${banner.secret}`),
      );
  }

  async function runPage(code: string[], env: Record<string, string> = {}): Promise<string> {
    expect(code.length, 'blocks to run').to.be.greaterThan(0);
    try {
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', code.join('\n')], {
        cwd: checkout,
        env: { PATH: `${bin}:${process.env.PATH}`, HOME: os.homedir(), DATA_DIR: dataDir, ...env },
        maxBuffer: 64 * 1024 * 1024,
      });
      if (process.env.DOCS_EXAMPLES_OUT) fs.appendFileSync(process.env.DOCS_EXAMPLES_OUT, stdout);
      return stdout;
    } catch (e) {
      const { stdout, stderr } = e as { stdout?: string; stderr?: string };
      throw new Error(
        `a block failed:\n${String(stderr).slice(-3000)}\n(stdout: ${String(stdout).slice(-1500)})`,
        { cause: e },
      );
    }
  }

  it('README, studios, moderators, compliance officer, operators: each page runs, and a restore keeps it all', async () => {
    const banner = await start();
    const env = { BASE: banner.base };

    const readme = await runPage(blocks('README.md', 'running', banner));
    expect(readme).to.include('"serviceId":"demo-player-1"');

    const studios = await runPage(blocks('docs/studios.md', 'running', banner));
    expect(studios).to.include('"message":"Anti-cheat report submitted successfully"');
    expect(studios).to.include('created: 2');
    expect(studios).to.include('"notFound":["nobody"]');

    // The moderators' page reads the case the studios' reports opened (the review worker files them).
    const session = (await (
      await fetch(`${banner.base}/v1/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'demo-admin', password: 'demo-admin-password' }),
      })
    ).json()) as { access_token: string };
    const admin = { authorization: `Bearer ${session.access_token}` };
    await until(
      'a case in the queue',
      async () => {
        const { items } = (await (
          await fetch(`${banner.base}/v1/admin/cases?limit=1`, { headers: admin })
        ).json()) as {
          items: unknown[];
        };
        return items.length > 0;
      },
      60_000,
    );
    const moderators = await runPage(blocks('docs/moderators.md', 'running', banner), env);
    expect(moderators).to.include('"outcome":"dismissed"');

    const studioList = await runPage(['npm run -s admin -- studio list --json']);
    const demoStudio = (JSON.parse(studioList) as { studios: { id: string; name: string }[] }).studios[0]!.id;
    await runPage(blocks('docs/compliance.md', 'running', banner), {
      ...env,
      ADMIN: 'demo-admin',
      PASSWORD: 'demo-admin-password',
      STUDIO: demoStudio,
    });
    expect(fs.readFileSync(path.join(checkout, 'transparency-report-2026.csv'), 'utf8')).to.include(
      '"disputes","number_of_disputes_submitted","total","1"',
    );

    const operators = await runPage(blocks('docs/operators.md', 'running', banner), env);
    expect(operators).to.match(/url: postgres:\/\//);
    expect(fs.readdirSync(checkout).filter((f) => /^backup-.*\.tar\.gz$/.test(f))).to.have.length(1);
    expect(fs.readFileSync(path.join(checkout, 'jwt-signing-key.jwk'), 'utf8')).to.include('"kty"');

    await stop();
    await runPage(blocks('docs/operators.md', 'stopped', banner));
    const again = await start();
    const restored = await fetch(`${again.base}/v1/player/acme-1`, {
      headers: { client_id: banner.cid, client_secret: banner.secret },
    });
    expect(restored.status, 'the player the studios page imported, after the restore').to.equal(200);
    await stop();
  });
});
