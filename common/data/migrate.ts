import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { embeddedServer } from '../services/postgres.js';
import { writableUrl } from './hosts.js';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import crypto from 'node:crypto';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
export const FUNCTIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'functions');
/** Held while source functions are compared and applied, so concurrent starts apply each once. */
const FUNCTIONS_LOCK = 0x7074_6675; // 'ptfu'

export interface SourceFunction {
  name: string;
  /** From the file's first line, `-- Version: N`: raised by every change. */
  version: number;
  sha256: string;
  sql: string;
}

/** The database functions kept as source files, one per file, named after the function. */
export function sourceFunctions(dir = FUNCTIONS_DIR): SourceFunction[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => {
      const sql = fs.readFileSync(path.join(dir, f), 'utf8');
      const version = /^-- Version: (\d+)\n/.exec(sql)?.[1];
      if (!version) throw new Error(`${f}: the first line must be "-- Version: <n>"`);
      return {
        name: f.replace(/\.sql$/, ''),
        version: Number(version),
        sha256: crypto.createHash('sha256').update(sql).digest('hex'),
        sql,
      };
    });
}

/** Whether a file should replace what the database has: a newer version, or the same one edited. */
const supersedes = (fn: SourceFunction, stored: { version: number; sha256: string } | undefined) =>
  !stored || fn.version > stored.version || (fn.version === stored.version && fn.sha256 !== stored.sha256);

/**
 * Applies every source function whose file is newer than what the database has (or was never
 * applied), each with its version and hash recorded in the same transaction; an unchanged one, or
 * an older release's, is left alone. Runs after the numbered migrations, so a function may rely on
 * every table they create.
 */
export async function applySourceFunctions(databaseUrl: string, dir = FUNCTIONS_DIR): Promise<string[]> {
  const files = sourceFunctions(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [FUNCTIONS_LOCK]);
    const stored = await storedFunctions(client);
    const applied: string[] = [];
    for (const fn of files) {
      if (!supersedes(fn, stored.get(fn.name))) continue;
      await client.query(fn.sql);
      await client.query(
        `INSERT INTO pt_source_functions (name, version, sha256) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET version = excluded.version, sha256 = excluded.sha256, applied_at = now()`,
        [fn.name, fn.version, fn.sha256],
      );
      applied.push(fn.name);
    }
    await client.query('COMMIT');
    return applied;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

async function storedFunctions(client: pg.Client) {
  const table = await client.query<{ ok: boolean }>(
    "SELECT to_regclass('pt_source_functions') IS NOT NULL AS ok",
  );
  if (!table.rows[0]!.ok) return new Map<string, { version: number; sha256: string }>();
  const { rows } = await client.query<{ name: string; version: number; sha256: string }>(
    'SELECT name, version, sha256 FROM pt_source_functions',
  );
  return new Map(rows.map((r) => [r.name, { version: r.version, sha256: r.sha256 }]));
}

/**
 * How long a migration's statement waits for a table lock the running service holds, at most. Short,
 * and under PostgreSQL's deadlock_timeout (1 s by default): in a lock cycle with the service the
 * migration gives up first, so the service's transaction is not the one aborted; and while it waits
 * for a table's lock, the service's statements on that table queue behind it only this long.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 500;
/** How many times migrate runs again after a lock wait ran out or a deadlock, before it gives up. */
export const MIGRATION_LOCK_ATTEMPTS = 20;

/** A lock wait that ran out (55P03) or a deadlock (40P01): the running service held the lock; worth again. */
export const isLockConflict = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '55P03';
};

/**
 * Runs `attempt` again after a lock conflict, waiting a little longer each time (with jitter), up to
 * `attempts` times; any other error, or the last conflict, is thrown.
 */
export async function retryOnLockConflict<T>(
  attempt: () => Promise<T>,
  opts: {
    attempts: number;
    baseMs: number;
    log?: (msg: string) => void;
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<T> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isLockConflict(err) || n >= opts.attempts) throw err;
      const wait = Math.round(opts.baseMs * Math.min(8, 2 ** (n - 1)) * (0.5 + Math.random()));
      opts.log?.(
        `> ${(err as Error).message}: the running service holds a lock the migration needs; again in ${wait} ms (attempt ${n + 1} of ${opts.attempts})`,
      );
      await sleep(wait);
    }
  }
}

/** The database URL with a session lock_timeout: a statement waiting on the service's locks gives up. */
function withLockTimeout(url: string, ms: number): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c lock_timeout=${ms}`);
  return u.toString();
}

/**
 * Applies every pending numbered migration; node-pg-migrate holds an advisory lock meanwhile. Every
 * process migrates at start-up, and several start at once (npm start's children, a scaled worker
 * kind), so a second one waits for the lock and then finds nothing to do, instead of failing.
 *
 * The README's upgrade runs it while the previous release serves (issue 50), so it must not
 * deadlock with the service: each migration commits on its own (a run that stops leaves the applied
 * ones recorded, and the next run goes on from there), takes its locks with a lock_timeout
 * (MIGRATION_LOCK_TIMEOUT_MS) instead of queueing behind the service's transactions while holding
 * others, and a lock wait that ran out or a deadlock runs the pending ones again, up to
 * MIGRATION_LOCK_ATTEMPTS times.
 */
export async function migrate(databaseUrl: string, log: (msg: string) => void = () => undefined) {
  const url = withLockTimeout(await writableUrl(databaseUrl), MIGRATION_LOCK_TIMEOUT_MS);
  const names: string[] = [];
  await retryOnLockConflict(
    async () => {
      const applied = await runner({
        databaseUrl: url,
        dir: MIGRATIONS_DIR,
        direction: 'up',
        migrationsTable: 'pgmigrations',
        checkOrder: true,
        advisoryLockMode: 'wait',
        singleTransaction: false,
        log,
        logger: { debug: () => undefined, info: log, warn: log, error: log },
      });
      names.push(...applied.map((m) => m.name));
      const functions = await applySourceFunctions(url);
      for (const name of functions) log(`> Applied source function ${name}`);
      names.push(...functions.map((name) => `function ${name}`));
    },
    { attempts: MIGRATION_LOCK_ATTEMPTS, baseMs: 250, log },
  );
  return names;
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
  let stored = new Map<string, { version: number; sha256: string }>();
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
      stored = await storedFunctions(client);
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
    // Source functions newer than what the database has, or never applied.
    pendingFunctions: sourceFunctions()
      .filter((fn) => supersedes(fn, stored.get(fn.name)))
      .map((fn) => `function ${fn.name}`),
  };
}
