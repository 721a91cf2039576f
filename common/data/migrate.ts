import path from 'node:path';
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
    databaseUrl,
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
