import fs from 'node:fs';
import path from 'node:path';
import { migrate } from '../../common/data/migrate.js';
import { providePostgres, provideRedis, type ServiceHandle } from '../../common/services/index.js';
import { isAlive } from '../../common/services/process-guard.js';

export interface TestServices {
  databaseUrl: string;
  redisUrl: string;
  postgresVersion: string;
  redisVersion: string;
}

const ROOT = path.resolve('.test-data');
let started: Promise<{ services: TestServices; handles: ServiceHandle[]; dir: string }> | undefined;

/** Removes run folders of earlier test runs whose process is gone (their servers died with it). */
function sweepStaleRuns(): void {
  if (!fs.existsSync(ROOT)) return;
  for (const name of fs.readdirSync(ROOT)) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(ROOT, name), { recursive: true, force: true });
  }
}

/**
 * The real PostgreSQL and Redis every integration test uses, started once per run (lazily, so unit
 * tests alone start nothing): DATABASE_URL / REDIS_URL when set, otherwise throw-away embedded
 * servers under .test-data/run-<pid>.
 */
export function testServices(): Promise<TestServices> {
  started ??= (async () => {
    sweepStaleRuns();
    const dir = path.join(ROOT, `run-${process.pid}`);
    fs.mkdirSync(dir, { recursive: true });
    const pg = await providePostgres({
      dataDir: dir,
      databaseUrl: process.env.DATABASE_URL,
      ephemeral: true,
    });
    const redis = await provideRedis({ dataDir: dir, redisUrl: process.env.REDIS_URL, ephemeral: true });
    await migrate(pg.url);
    return {
      services: {
        databaseUrl: pg.url,
        redisUrl: redis.url,
        postgresVersion: pg.version,
        redisVersion: redis.version,
      },
      handles: [pg, redis],
      dir,
    };
  })();
  return started.then((s) => s.services);
}

export async function stopTestServices(): Promise<void> {
  if (!started) return;
  const { handles, dir, services } = await started;
  process.stderr.write(
    `\n  real services used: PostgreSQL ${services.postgresVersion}, Redis ${services.redisVersion}\n`,
  );
  await Promise.allSettled(handles.map((h) => h.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
}
