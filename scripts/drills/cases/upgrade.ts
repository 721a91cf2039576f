import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../common/services/ports.js';
import { embeddedServer } from '../../../common/services/postgres.js';
import type { DemoData } from '../../../common/usecases/seed.js';
import { NpmStart, offensesDone, sleep, type Check, type DrillCase, type DrillResult } from '../harness.js';

const run = promisify(execFile);

/** The release the upgrade starts from (issue 50: the release of 2026-11-24); DRILL_UPGRADE_FROM overrides it. */
const FROM = process.env.DRILL_UPGRADE_FROM ?? 'a3f2bc4';

/**
 * The upgrade drill (issue 50): the previous release (`FROM`, checked out beside this tree with git)
 * serves reports at the drill's rate on the embedded set-up; this release's `admin migrate` runs
 * meanwhile, as docs/operators.md "Upgrades" says to; then the previous release stops and this one starts on
 * the same data. The migration must finish (no deadlock with the running service), no job of the
 * previous release's workers may fail on the new schema, and every report answered 201 by either
 * release must be stored once, filed into its case and enriched.
 */
export async function upgradeDrill(opts: {
  dir: string;
  loadSeconds: number;
  rate: number;
}): Promise<DrillResult> {
  const what = `upgrade from ${FROM} under load: migrate while the previous release serves, then roll`;
  const here = process.cwd();
  try {
    await run('git', ['cat-file', '-e', `${FROM}^{commit}`], { cwd: here });
  } catch {
    return {
      name: 'upgrade',
      what,
      lines: [],
      checks: [],
      ok: true,
      skipped: `the release ${FROM} is not in this clone's history (a shallow clone?)`,
    };
  }
  fs.mkdirSync(opts.dir, { recursive: true });
  const oldTree = path.join(opts.dir, 'previous');
  const dataDir = path.join(opts.dir, 'data');
  fs.rmSync(oldTree, { recursive: true, force: true });
  await run('git', ['worktree', 'prune'], { cwd: here });
  await run('git', ['worktree', 'add', '--detach', '--force', oldTree, FROM], { cwd: here });
  // Its own dependencies are this tree's (a superset, within days of each other): no install.
  fs.symlinkSync(path.join(here, 'node_modules'), path.join(oldTree, 'node_modules'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.NODE_ENV;
  const base = `http://127.0.0.1:${port}`;
  const previous = new NpmStart(env, oldTree, 240_000);
  const current = new NpmStart(env, here, 240_000);
  const lines: string[] = [];
  const checks: Check[] = [];
  const answered: string[] = [];
  let refused = 0;
  let loading = true;
  let load: Promise<void> = Promise.resolve();
  try {
    await previous.start();
    lines.push(`the previous release (${FROM}) started on the embedded set-up`);
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoData;
    const studio = { client_id: demo.game.clientId, client_secret: demo.game.clientSecret };
    load = (async () => {
      for (let n = 0; loading; n++) {
        const player = demo.players[n % demo.players.length]!.serviceId;
        const res = await fetch(`${base}/v1/toxicity/submitReport/${player}`, {
          method: 'POST',
          headers: { ...studio, 'content-type': 'application/json' },
          body: JSON.stringify({
            report: {
              isToxic: true,
              severity: 'low',
              matchId: crypto.randomUUID(),
              reporterId: `drill-${n % 50}`,
              evidence: [{ type: 'text', content: `drill ${n}` }],
            },
          }),
        }).catch(() => undefined);
        if (res?.status === 201)
          answered.push(((await res.json()) as { report: { _id: string } }).report._id);
        else refused++;
        await sleep(1000 / opts.rate);
      }
    })();
    await sleep((opts.loadSeconds * 1000) / 2);

    // This release's migrations while the previous one serves.
    const databaseUrl = embeddedServer(dataDir).url!;
    const started = Date.now();
    const migrated = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'migrate'], {
      cwd: here,
      env: { ...env, DATABASE_URL: databaseUrl },
      maxBuffer: 16 << 20,
    }).then(
      (r) => ({ ok: true, out: r.stdout + r.stderr }),
      (err: { stdout?: string; stderr?: string; message: string }) => ({
        ok: false,
        out: `${err.stdout ?? ''}${err.stderr ?? ''}${err.message}`,
      }),
    );
    const retries = (migrated.out.match(/again in \d+ ms/g) ?? []).length;
    lines.push(
      `this release's admin migrate ran in ${((Date.now() - started) / 1000).toFixed(1)} s under load (${retries} lock retries), exit ${migrated.ok ? 0 : 'non-zero'}`,
    );
    checks.push({
      name: "this release's migrate finished while the previous release served",
      ok: migrated.ok,
      detail: `${((Date.now() - started) / 1000).toFixed(1)} s, ${retries} lock retr${retries === 1 ? 'y' : 'ies'}${migrated.ok ? '' : `: ${migrated.out.slice(-500)}`}`,
    });
    await sleep((opts.loadSeconds * 1000) / 2);
    loading = false;
    await load;
    checks.push({
      name: "no job of the previous release's workers failed on the new schema",
      ok: previous.failedJobs().length === 0,
      detail: previous.failedJobs().slice(0, 3).join(' | ') || 'none',
    });

    // Roll: the previous release stops (finishing what it holds), this one starts on the same data.
    await previous.stop();
    await current.start();
    lines.push('the previous release stopped; this release started on the same data');
    const after = await fetch(`${base}/v1/toxicity/submitReport/${demo.players[0]!.serviceId}`, {
      method: 'POST',
      headers: { ...studio, 'content-type': 'application/json' },
      body: JSON.stringify({ report: { isToxic: true, severity: 'low', matchId: crypto.randomUUID() } }),
    });
    if (after.status === 201) answered.push(((await after.json()) as { report: { _id: string } }).report._id);
    checks.push({
      name: 'this release takes reports after the roll',
      ok: after.status === 201,
      detail: `${after.status}`,
    });
    lines.push(`${answered.length} reports answered 201 (${refused} not accepted)`);

    const db = new pg.Client({ connectionString: embeddedServer(dataDir).url! });
    await db.connect();
    try {
      const stored = await offensesDone(db, answered);
      checks.push({
        name: 'every report answered 201 is stored, once',
        ok: stored.length === answered.length && new Set(answered).size === answered.length,
        detail: `${stored.length} of ${answered.length}`,
      });
      const rows = await offensesDone(db, answered, true);
      const done = rows.filter((r) => r.filed && r.enriched).length;
      checks.push({
        name: 'each filed into its case and enriched, by either release',
        ok: done === answered.length,
        detail: `${done} of ${answered.length}`,
      });
    } finally {
      await db.end();
    }
    checks.push({
      name: "no job of this release's workers failed",
      ok: current.failedJobs().length === 0,
      detail: current.failedJobs().slice(0, 3).join(' | ') || 'none',
    });
  } catch (err) {
    checks.push({ name: 'the drill ran', ok: false, detail: (err as Error).message.slice(0, 1500) });
  } finally {
    loading = false;
    await load.catch(() => undefined);
    await previous.stop();
    await current.stop();
    await run('git', ['worktree', 'remove', '--force', oldTree], { cwd: here }).catch(() => undefined);
  }
  return { name: 'upgrade', what, lines, checks, ok: checks.every((c) => c.ok) };
}

const drill: DrillCase = {
  kind: 'standalone',
  run: ({ dir, steadySeconds, faultSeconds, rate }) =>
    upgradeDrill({ dir: path.join(dir, 'upgrade'), loadSeconds: 2 * steadySeconds + faultSeconds, rate }),
};
export default drill;
