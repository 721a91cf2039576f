import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { embeddedServer } from '../services/postgres.js';
import { writableUrl } from './hosts.js';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies every pending numbered migration; node-pg-migrate holds an advisory lock meanwhile. Every
 * process migrates at start-up, and several start at once (npm start's children, a scaled worker
 * kind), so a second one waits for the lock and then finds nothing to do, instead of failing.
 */
export async function migrate(databaseUrl: string, log: (msg: string) => void = () => undefined) {
  const applied = await runner({
    databaseUrl: await writableUrl(databaseUrl),
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    advisoryLockMode: 'wait',
    log,
    logger: { debug: () => undefined, info: log, warn: log, error: log },
  });
  return applied.map((m) => m.name);
}

/**
 * Which migrations this release has applied and which are pending, without applying any (for
 * `admin migrate --status` and `--dry-run`): the database's pgmigrations table against the files.
 */
export async function migrationStatus(config: { databaseUrl?: string | undefined; dataDir: string }) {
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .map((f) => f.replace(/\.sql$/, ''))
    .sort();
  const url = config.databaseUrl ? await writableUrl(config.databaseUrl) : embeddedServer(config.dataDir).url;
  let applied: { name: string; run_on: Date }[] = [];
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const exists = await client.query("SELECT to_regclass('pgmigrations') IS NOT NULL AS ok");
      if ((exists.rows[0] as { ok: boolean }).ok)
        applied = (
          await client.query<{ name: string; run_on: Date }>(
            'SELECT name, run_on FROM pgmigrations ORDER BY id',
          )
        ).rows;
    } finally {
      await client.end();
    }
  } else
    throw new Error(
      `no database to compare with: set DATABASE_URL, or start the embedded one (npm start) on ${config.dataDir}`,
    );
  const done = new Set(applied.map((m) => m.name));
  return {
    applied: applied.map((m) => ({ name: m.name, appliedAt: m.run_on.toISOString() })),
    pending: files.filter((f) => !done.has(f)),
    unknown: applied.filter((m) => !files.includes(m.name)).map((m) => m.name),
  };
}
