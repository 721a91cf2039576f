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
 * Applies every pending numbered migration; node-pg-migrate holds an advisory lock meanwhile. Every
 * process migrates at start-up, and several start at once (npm start's children, a scaled worker
 * kind), so a second one waits for the lock and then finds nothing to do, instead of failing.
 */
export async function migrate(databaseUrl: string, log: (msg: string) => void = () => undefined) {
  const url = await writableUrl(databaseUrl);
  const applied = await runner({
    databaseUrl: url,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    advisoryLockMode: 'wait',
    log,
    logger: { debug: () => undefined, info: log, warn: log, error: log },
  });
  const functions = await applySourceFunctions(url);
  for (const name of functions) log(`> Applied source function ${name}`);
  return [...applied.map((m) => m.name), ...functions.map((name) => `function ${name}`)];
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
