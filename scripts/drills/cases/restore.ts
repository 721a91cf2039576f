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

/**
 * The restore drill: the embedded set-up under report load, backed up while it runs (`admin db
 * backup`), its whole DATA_DIR destroyed, restored (`admin db restore`) and started again. Every
 * report answered 201 before the backup started must be there, filed into its case and enriched
 * (the outbox rows the backup holds, re-added by the reconciler to the new, empty Redis); the
 * studio's client secret and a moderator token issued before the backup must still work (the pepper
 * and the signing key came back with the data). A player erased after the backup was taken stays
 * erased: the start applies the erasure ledger (kept outside DATA_DIR) before taking traffic.
 */
export async function restoreDrill(opts: {
  dir: string;
  loadSeconds: number;
  rate: number;
}): Promise<DrillResult> {
  const dataDir = path.join(opts.dir, 'data');
  const backupFile = path.join(opts.dir, 'backup.tar.gz');
  fs.mkdirSync(opts.dir, { recursive: true });
  const port = await freePort();
  // The erasure ledger outside the data folder, as docs/compliance.md "Personal data" says to keep it: the drill
  // destroys DATA_DIR, and the erasures must survive that.
  const ledger = path.join(opts.dir, 'ledger', 'erasure-ledger.jsonl');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ERASURE_LEDGER: ledger,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.NODE_ENV;
  const base = `http://127.0.0.1:${port}`;
  const service = new NpmStart(env);
  const admin = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { env, maxBuffer: 16 << 20 });
  const lines: string[] = [];
  const checks: Check[] = [];
  let loading = true;
  try {
    await service.start();
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoData;
    const studio = { client_id: demo.game.clientId, client_secret: demo.game.clientSecret };
    const signIn = await fetch(`${base}/v1/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: demo.moderator!.username, password: demo.moderator!.password }),
    });
    const moderator = {
      authorization: `Bearer ${((await signIn.json()) as { access_token: string }).access_token}`,
    };

    // Reports at a steady rate; the backup starts halfway through and the load goes on meanwhile.
    const answered: { id: string; sentAt: number }[] = [];
    let refused = 0;
    const load = (async () => {
      for (let n = 0; loading; n++) {
        const player = demo.players[n % demo.players.length]!.serviceId;
        const sentAt = Date.now();
        const res = await fetch(`${base}/v1/anticheat/submitReport/${player}`, {
          method: 'POST',
          headers: { ...studio, 'content-type': 'application/json' },
          body: JSON.stringify({
            report: {
              isCheatDetected: true,
              severity: 'low',
              matchId: crypto.randomUUID(),
              evidence: [{ type: 'text', content: `drill ${n}` }],
            },
          }),
        }).catch(() => undefined);
        if (res?.status === 201)
          answered.push({ id: ((await res.json()) as { report: { _id: string } }).report._id, sentAt });
        else refused++;
        await sleep(1000 / opts.rate);
      }
    })();
    await sleep((opts.loadSeconds * 1000) / 2);
    const backupStartedAt = Date.now();
    const backup = JSON.parse((await admin('db', 'backup', '--out', backupFile, '--json')).stdout) as {
      bytes: number;
    };
    const backupSeconds = (Date.now() - backupStartedAt) / 1000;
    // After the backup: a player erased, which the backup does not know of.
    const erased = demo.players[1]!.serviceId;
    const asked = await fetch(`${base}/v1/admin/players/${erased}/erasure`, {
      method: 'POST',
      headers: moderator,
    });
    const erasure = (await asked.json()) as { id: string; state: string; playerRecordId: string };
    let state = erasure.state;
    for (let i = 0; i < 120 && state !== 'done'; i++) {
      await sleep(250);
      const r = await fetch(`${base}/v1/admin/erasures/${erasure.id}`, { headers: moderator });
      state = ((await r.json()) as { state: string }).state;
    }
    checks.push({
      name: 'a player erased after the backup (admin API), done',
      ok: asked.status === 202 && state === 'done',
      detail: `POST erasure: ${asked.status}, state ${state}`,
    });
    await sleep((opts.loadSeconds * 1000) / 2);
    loading = false;
    await load;
    const before = answered.filter((a) => a.sentAt < backupStartedAt).map((a) => a.id);
    lines.push(
      `${answered.length} reports answered 201 (${before.length} before the backup began, ${refused} not accepted); backup ${backup.bytes} bytes in ${backupSeconds.toFixed(1)} s, taken under load`,
    );

    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    lines.push(`service stopped and ${dataDir} destroyed`);
    await admin('db', 'restore', '--from', backupFile);
    await service.start();
    lines.push('restored with admin db restore; npm start again');

    const db = new pg.Client({ connectionString: embeddedServer(dataDir).url });
    await db.connect();
    try {
      const stored = await offensesDone(db, before);
      checks.push({
        name: 'every report answered 201 before the backup is restored',
        ok: stored.length === before.length,
        detail: `${stored.length} of ${before.length}`,
      });
      const rows = await offensesDone(db, before, true);
      const filed = rows.filter((r) => r.filed && r.enriched).length;
      checks.push({
        name: 'each filed into its case and enriched (the outbox re-sent to the new Redis)',
        ok: filed === before.length,
        detail: `${filed} of ${before.length}`,
      });
      const { rows: unsent } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox
          WHERE sent_at IS NULL AND (payload->'offenseIds' ?| $1::text[] OR payload->>'offenseId' = ANY($1::text[]))`,
        [before],
      );
      checks.push({
        name: 'no outbox row left unsent',
        ok: unsent[0]!.n === 0,
        detail: `${unsent[0]!.n} unsent`,
      });
      const { rows: doubled } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT offense_id FROM case_offenses WHERE offense_id = ANY($1::uuid[])
            GROUP BY offense_id HAVING count(*) > 1) d`,
        [before],
      );
      checks.push({
        name: 'no report filed twice',
        ok: doubled[0]!.n === 0,
        detail: `${doubled[0]!.n} doubled`,
      });
      lines.push(
        `${stored.length} of ${before.length} pre-backup reports restored, ${filed} filed and enriched; ${answered.length - before.length} accepted during or after the backup began (not all in it, as expected)`,
      );
      // The backup holds the erased player whole; the start applied the ledger's tombstone again.
      const { rows: skeleton } = await db.query<{ erased: boolean; named: boolean; words: number }>(
        `SELECT p.erased_at IS NOT NULL AS erased, p.service_id = $2 OR p.full_name <> 'Erased player' AS named,
                (SELECT count(*)::int FROM offenses o WHERE o.player_id = p.id
                    AND (o.description <> '' OR o.evidence <> '[]'::jsonb OR o.match_id IS NOT NULL)) AS words
           FROM players p WHERE p.id = $1`,
        [erasure.playerRecordId, erased],
      );
      const s = skeleton[0];
      checks.push({
        name: 'the erasure made after the backup is applied again on start (erasure ledger)',
        ok: !!s && s.erased && !s.named && s.words === 0,
        detail: s
          ? `erased ${s.erased}, still named ${s.named}, reports with content ${s.words}`
          : 'player missing',
      });
      const lookup = await fetch(`${base}/v1/player/${erased}`, { headers: studio });
      checks.push({
        name: "the erased player's service id answers 404 after the restore",
        ok: lookup.status === 404,
        detail: `GET profile: ${lookup.status}`,
      });
    } finally {
      await db.end();
    }
    checks.push({
      name: 'npm start prints the demo credentials again (they came back with the backup)',
      ok: service.printed(demo.game.clientId),
      detail: service.printed(demo.game.clientId) ? 'printed' : 'not printed',
    });
    const profile = await fetch(`${base}/v1/player/${demo.players[0]!.serviceId}`, { headers: studio });
    checks.push({
      name: "the studio's client secret still works (the pepper came back)",
      ok: profile.status === 200,
      detail: `GET profile: ${profile.status}`,
    });
    const queue = await fetch(`${base}/v1/admin/cases`, { headers: moderator });
    checks.push({
      name: 'a moderator token issued before the backup still works (the signing key came back)',
      ok: queue.status === 200,
      detail: `GET /v1/admin/cases: ${queue.status}`,
    });
    const fresh = await fetch(`${base}/v1/toxicity/submitReport/${demo.players[0]!.serviceId}`, {
      method: 'POST',
      headers: { ...studio, 'content-type': 'application/json' },
      body: JSON.stringify({ report: { isToxic: true, severity: 'low' } }),
    });
    checks.push({
      name: 'new reports are accepted',
      ok: fresh.status === 201,
      detail: `POST report: ${fresh.status}`,
    });
  } catch (err) {
    checks.push({ name: 'the drill ran', ok: false, detail: (err as Error).message });
  } finally {
    loading = false;
    await service.stop();
  }
  return {
    name: 'restore',
    what: 'back up the embedded set-up under load, destroy DATA_DIR, restore, start again',
    lines,
    checks,
    ok: checks.length > 0 && checks.every((c) => c.ok),
  };
}

// npm start's embedded servers, backed up under load and restored on a new folder.
const drill: DrillCase = {
  kind: 'standalone',
  run: (o) => restoreDrill({ dir: o.dir, loadSeconds: o.steadySeconds * 2, rate: o.rate }),
};
export default drill;
