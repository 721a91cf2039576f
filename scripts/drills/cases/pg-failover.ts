import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createPool } from '../../../common/data/db.js';
import { freePort } from '../../../common/services/ports.js';
import {
  DrillRig,
  fmt,
  sleep,
  underLoad,
  verify,
  type DrillCase,
  type DrillOptions,
  type DrillResult,
} from '../harness.js';

const run = promisify(execFile);

/** Where Debian's packages put things: pg_autoctl on the PATH, the extension beside PostgreSQL 15. */
function findAutoFailover(): { pgAutoctl: string; pgBin: string } | string {
  const pgAutoctl = ['/usr/bin/pg_autoctl', '/usr/local/bin/pg_autoctl'].find((p) => fs.existsSync(p));
  if (!pgAutoctl)
    return 'pg_autoctl not found (Debian: apt-get install pg-auto-failover-cli postgresql-15-auto-failover)';
  const pgBin = fs
    .readdirSync('/usr/lib/postgresql', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `/usr/lib/postgresql/${d.name}`)
    .find((dir) => fs.existsSync(`${dir}/lib/pgautofailover.so`));
  if (!pgBin)
    return 'the pgautofailover extension is not installed for any PostgreSQL under /usr/lib/postgresql (Debian: apt-get install postgresql-15-auto-failover)';
  return { pgAutoctl, pgBin: `${pgBin}/bin` };
}

/**
 * pg-failover (opt-in: `npm run drill -- pg-failover`): a pg_auto_failover formation from Debian's
 * packages (a monitor, a primary and a secondary, all on this machine), the API and the workers on a
 * multi-host DATABASE_URL naming both nodes, under report load. The primary's node is killed (its
 * pg_autoctl and its PostgreSQL, SIGKILL: a lost machine); the monitor promotes the secondary. While
 * a secondary is healthy, pg_auto_failover makes every commit wait for it (synchronous replication),
 * so every report answered 201 must be on the new primary, once; the API must carry on by itself.
 * Skipped, with the reason, when the packages are missing.
 */
export async function pgFailoverDrill(opts: DrillOptions & { dir: string }): Promise<DrillResult> {
  const found = findAutoFailover();
  const what = 'kill the primary of a pg_auto_failover formation under report load';
  if (typeof found === 'string')
    return { name: 'pg-failover', what, lines: [], checks: [], ok: true, skipped: found };
  const dir = path.resolve(opts.dir, 'formation');
  fs.mkdirSync(dir, { recursive: true });
  // pg_autoctl will not run as root: as root it runs as the postgres user, in folders that user owns.
  const asRoot = os.userInfo().uid === 0;
  if (asRoot) await run('chown', ['-R', 'postgres', opts.dir]);
  const env = {
    PATH: `${found.pgBin}:${process.env.PATH ?? ''}`,
    // Its configuration and state files inside the drill's folder, not in a home directory.
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    PG_AUTOCTL_DEBUG: '',
  };
  const envLine = Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  const quote = (args: string[]) => args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const autoctl = (args: string[]) =>
    asRoot
      ? run('su', ['postgres', '-s', '/bin/sh', '-c', `${envLine} ${quote([found.pgAutoctl, ...args])}`], {
          maxBuffer: 16 << 20,
        })
      : run(found.pgAutoctl, args, { env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
  const services: ChildProcess[] = [];
  const serve = (pgdata: string) => {
    const log = fs.openSync(path.join(dir, `${path.basename(pgdata)}.log`), 'a');
    const args = [found.pgAutoctl, 'run', '--pgdata', pgdata];
    const child = asRoot
      ? spawn('su', ['postgres', '-s', '/bin/sh', '-c', `exec env ${envLine} ${quote(args)}`], {
          stdio: ['ignore', log, log],
          detached: true,
        })
      : spawn(args[0]!, args.slice(1), {
          env: { ...process.env, ...env },
          stdio: ['ignore', log, log],
          detached: true,
        });
    fs.closeSync(log);
    services.push(child);
    return child;
  };
  const [pm, p1, p2] = [await freePort(), await freePort(), await freePort()];
  const common = ['--hostname', '127.0.0.1', '--listen', '127.0.0.1', '--auth', 'trust', '--no-ssl'];
  const monitorUrl = `postgres://autoctl_node@127.0.0.1:${pm}/pg_auto_failover?sslmode=disable`;
  const lines: string[] = [];
  let rig: DrillRig | undefined;
  let pool: pg.Pool | undefined;
  const nodes: Record<string, ChildProcess> = {};
  /**
   * A lost machine: SIGKILL every process of the node (its pg_autoctl, the services it runs, its
   * PostgreSQL), found by the data folder on their command lines or in their environment (PGDATA),
   * then the postmaster by its pid file.
   */
  const killNode = (name: string) => {
    const pgdata = path.join(dir, name);
    const pids: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      try {
        // pg_autoctl's services rewrite their titles ("pg_autoctl: start/stop postgres") but keep
        // PGDATA in their environment.
        const own = (file: string, item: string) =>
          fs.readFileSync(`/proc/${entry}/${file}`, 'utf8').split('\0').includes(item);
        if (own('cmdline', pgdata) || own('environ', `PGDATA=${pgdata}`)) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    const pidFile = path.join(pgdata, 'postmaster.pid');
    if (fs.existsSync(pidFile)) pids.push(Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]));
    for (const pid of pids)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    return pids.length;
  };
  const state = async () => {
    const monitor = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:${pm}/pg_auto_failover`,
    });
    await monitor.connect();
    try {
      const { rows } = await monitor.query<{ nodeport: number; reportedstate: string; goalstate: string }>(
        'SELECT nodeport, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid',
      );
      return rows;
    } finally {
      await monitor.end();
    }
  };
  const until = async (what: string, ok: () => Promise<boolean>, ms: number) => {
    const end = Date.now() + ms;
    while (!(await ok().catch(() => false))) {
      if (Date.now() > end) throw new Error(`not within ${fmt(ms)}: ${what}`);
      await sleep(250);
    }
  };
  try {
    const started = Date.now();
    await autoctl([
      'create',
      'monitor',
      '--pgdata',
      path.join(dir, 'monitor'),
      '--pgport',
      String(pm),
      ...common,
    ]);
    nodes.monitor = serve(path.join(dir, 'monitor'));
    await until('the monitor answers', async () => (await state()).length >= 0, 30_000);
    for (const [name, port] of [
      ['n1', p1],
      ['n2', p2],
    ] as const) {
      await autoctl([
        'create',
        'postgres',
        '--pgdata',
        path.join(dir, name),
        '--pgport',
        String(port),
        '--monitor',
        monitorUrl,
        '--dbname',
        'player_trust',
        ...common,
      ]);
      nodes[name] = serve(path.join(dir, name));
      if (name === 'n1')
        // Alone in its formation, the first node is 'single' until a secondary joins.
        await until(
          'node 1 runs',
          async () => ['single', 'primary'].includes((await state())[0]?.reportedstate ?? ''),
          60_000,
        );
    }
    await until(
      'a primary and a secondary',
      async () => (await state()).map((n) => n.reportedstate).join(',') === 'primary,secondary',
      90_000,
    );
    lines.push(`pg_auto_failover formation (monitor, primary, secondary) up in ${fmt(Date.now() - started)}`);
    const primaryUrl = `postgres://postgres@127.0.0.1:${p1}/player_trust`;
    const multi = `postgres://postgres@127.0.0.1:${p1},127.0.0.1:${p2}/player_trust`;
    rig = await DrillRig.start({
      dir: path.join(opts.dir, 'rig'),
      databaseUrl: primaryUrl,
      // The processes on both nodes; the reconciler on (the formation is this drill's alone).
      // A failover takes pg_auto_failover about 50 s with its defaults: the load's retries of the
      // reports held meanwhile all come at once after it, more than a game's default burst of 1,000
      // (a drill's other faults last 10 s). A studio sized for such an outage has the burst for it.
      env: {
        DATABASE_URL: multi,
        OUTBOX_RECONCILE_INTERVAL_MS: '60000',
        RATE_LIMIT_REPORTS_BURST: '10000',
      },
    });
    for (const kind of ['api', 'enrichment', 'review', 'webhooks'] as const) await rig.launch(kind);
    const r = rig;
    let promotedAt = 0;
    const result = await underLoad(r, opts, 'pg-failover', async (load) => {
      const { rows: sync } = await r.pool.query<{ s: string }>(
        "SELECT current_setting('synchronous_standby_names') AS s",
      );
      lines.push(
        `synchronous_standby_names on the primary: '${sync[0]!.s}' (pg_auto_failover's, while the secondary is healthy)`,
      );
      const killedAt = Date.now();
      const killed = killNode('n1');
      await sleep(200);
      killNode('n1'); // whatever its supervisor restarted before it died
      await until(
        'the secondary promoted',
        async () =>
          (await state()).some(
            (n) => n.nodeport === p2 && (n.reportedstate === 'wait_primary' || n.reportedstate === 'primary'),
          ),
        120_000,
      );
      promotedAt = Date.now();
      lines.push(
        `primary (node 1) lost: its ${killed} processes (pg_autoctl, its services and PostgreSQL) SIGKILLed; node 2 promoted after ${fmt(promotedAt - killedAt)}`,
      );
      await sleep(2000);
      const after = load.attemptsBetween(promotedAt, Date.now());
      return {
        lines: [],
        checks: [
          {
            name: 'the API resumes by itself',
            ok: after.some((a) => a.status === 201),
            detail: `${after.filter((a) => a.status === 201).length} of ${after.length} requests begun in the 2 s after the promotion answered 201`,
          },
        ],
      };
    });
    pool = createPool(multi, 2);
    const v = await verify({ pool }, result.load, result.players, 90_000);
    const checks = [...result.checks, ...v.checks];
    return {
      name: 'pg-failover',
      what,
      lines: [...lines, ...result.lines, ...v.lines],
      checks,
      ok: checks.every((c) => c.ok),
    };
  } finally {
    await pool?.end();
    await rig?.stop();
    // Twice over: a supervisor killed a moment after its PostgreSQL may have started it again.
    for (let pass = 0; pass < 3; pass++) {
      for (const name of ['n1', 'n2', 'monitor']) killNode(name);
      await sleep(300);
    }
  }
}

// Opt-in: not in the default run (it needs Debian's pg_auto_failover packages; skipped without).
const drill: DrillCase = { kind: 'standalone', optIn: true, run: pgFailoverDrill };
export default drill;
