import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startStandby, type Standby } from '../../../common/services/standby.js';
import {
  DrillRig,
  sleep,
  type Check,
  type DrillResult,
  type DrillCase,
  type StandaloneArgs,
} from '../harness.js';

/**
 * replica-kill: the API reading from a hot standby (DATABASE_REPLICA_URLS) under a profile and lobby
 * read load; the standby is SIGKILLed, stays down for the fault time, and is started again. Not one
 * read may fail; reads go to the primary meanwhile and back to the standby once it is well.
 */
export async function replicaKillDrill(opts: StandaloneArgs): Promise<DrillResult> {
  fs.mkdirSync(opts.dir, { recursive: true });
  let rig: DrillRig | undefined;
  let standby: Standby | undefined;
  try {
    rig = await DrillRig.start({ dir: opts.dir, env: { REPLICA_CHECK_INTERVAL_MS: '100' } });
    standby = await startStandby({
      primaryUrl: rig.databaseUrl,
      primaryDataFolder: path.join(opts.dir, 'postgres'),
      dir: path.join(opts.dir, 'standby'),
    });
    rig.env.DATABASE_REPLICA_URLS = standby.url;
    await rig.launch('api');
    const players = await rig.players(`rk${process.pid}`, 50);
    // Inserted directly, they carry no consistency token: the drill starts once the standby has them
    // (a client that created them through the API would send the token of that answer).
    const onStandby = new pg.Client({ connectionString: standby.url });
    await onStandby.connect();
    try {
      for (;;) {
        const { rows } = await onStandby.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM players WHERE service_id = ANY($1)',
          [players],
        );
        if (rows[0]!.n === players.length) break;
        await sleep(50);
      }
    } finally {
      await onStandby.end();
    }
    const phases = {
      before: {} as Record<string, number>,
      down: {} as Record<string, number>,
      after: {} as Record<string, number>,
    };
    let phase: keyof typeof phases = 'before';
    const failures: string[] = [];
    let reads = 0;
    let loading = true;
    const r = rig;
    const reader = async (k: number) => {
      for (let n = k; loading; n += 8) {
        const started = Date.now();
        const lobby = n % 4 === 0;
        const res = await fetch(
          lobby ? `${r.apiUrl}/v1/players/lookup` : `${r.apiUrl}/v1/player/${players[n % players.length]}`,
          {
            method: lobby ? 'POST' : 'GET',
            headers: r.headers,
            ...(lobby ? { body: JSON.stringify({ serviceIds: players.slice(0, 10) }) } : {}),
            signal: AbortSignal.timeout(10_000),
          },
        ).catch((err: Error) => err);
        reads++;
        if (res instanceof Error || res.status !== 200)
          failures.push(res instanceof Error ? res.message : `${res.status}`);
        else {
          await res.arrayBuffer();
          const source = res.headers.get('read-source') ?? 'none';
          phases[phase][source] = (phases[phase][source] ?? 0) + 1;
        }
        await sleep(Math.max(0, (8 * 1000) / opts.rate - (Date.now() - started)));
      }
    };
    const readers = Array.from({ length: 8 }, (_, k) => reader(k));
    await sleep(opts.steadySeconds * 1000);
    phase = 'down';
    process.kill(standby.pid()!, 'SIGKILL');
    await sleep(opts.faultSeconds * 1000);
    await standby.start();
    phase = 'after';
    await sleep(opts.steadySeconds * 1000);
    loading = false;
    await Promise.all(readers);
    const checks: Check[] = [
      {
        name: 'no read failed',
        ok: failures.length === 0,
        detail: `${failures.length} of ${reads} reads failed (${[...new Set(failures)].slice(0, 3).join(', ')})`,
      },
      {
        name: 'the standby served reads before',
        ok: (phases.before.standby ?? 0) > 0,
        detail: JSON.stringify(phases.before),
      },
      {
        name: 'the primary served reads while it was down',
        ok: (phases.down.primary ?? 0) > 0,
        detail: JSON.stringify(phases.down),
      },
      {
        name: 'the standby serves again after its restart',
        ok: (phases.after.standby ?? 0) > 0,
        detail: JSON.stringify(phases.after),
      },
    ];
    return {
      name: 'replica-kill',
      what: `SIGKILL the hot standby under read load, down for ${opts.faultSeconds} s, then started again`,
      lines: [
        `${reads} reads (profiles and lobby lookups), ${failures.length} failed`,
        `served by: before ${JSON.stringify(phases.before)}; standby down ${JSON.stringify(phases.down)}; after its restart ${JSON.stringify(phases.after)}`,
      ],
      checks,
      ok: checks.every((x) => x.ok),
    };
  } finally {
    await rig?.stop();
    await standby?.stop('immediate').catch(() => undefined);
  }
}

const drill: DrillCase = { kind: 'standalone', run: replicaKillDrill };
export default drill;
