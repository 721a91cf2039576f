import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { embeddedServer } from '../services/postgres.js';
import { isAlive } from '../services/process-guard.js';

const run = promisify(execFile);

/**
 * Backups of the embedded set-up (`npm start` without DATABASE_URL), made while the service runs.
 *
 * The embedded PostgreSQL ships no pg_dump or pg_basebackup (only initdb, pg_ctl and postgres), and a
 * pg_dump of another major version refuses the server. So this uses PostgreSQL's own low-level base
 * backup, the mechanism pg_basebackup drives: a temporary physical replication slot keeps the WAL
 * from the backup's start, pg_backup_start marks it, the data folder is copied while the server
 * runs, pg_backup_stop returns the backup_label, and the WAL written meanwhile is copied after it.
 * Started on that copy, PostgreSQL replays the WAL from the label's checkpoint to the backup's end,
 * so it is consistent as of pg_backup_stop: every transaction committed before the backup started is
 * in it.
 *
 * A database alone is not the service: DATA_DIR also holds the client-secret pepper and the other
 * development secrets (dev-secrets.json), the JWT signing key (jwt-signing-key.json) and the
 * embedded server's password (postgres.json). Without them every studio secret answers 401 and every
 * issued token is refused, so the backup carries them too, and the demo data's credentials
 * (demo-credentials.json, where `npm start` seeded them) so a restored demo still prints its sign-in.
 * Keep backup files as secret as those.
 */
const SECRETS = ['dev-secrets.json', 'jwt-signing-key.json', 'postgres.json', 'demo-credentials.json'];
/** What a copy of a running data folder leaves out (PostgreSQL's documentation lists these). */
const EXCLUDE = [
  './postmaster.pid',
  './postmaster.opts',
  './pg_wal/*',
  './pg_replslot/*',
  './pg_stat_tmp/*',
  './pg_dynshmem/*',
  './pg_notify/*',
  './pg_serial/*',
  './pg_snapshots/*',
  './pg_subtrans/*',
];

export interface BackupManifest {
  format: 'player-trust-embedded-backup/1';
  createdAt: string;
  postgresVersion: string;
  startLsn: string;
  stopLsn: string;
  secrets: string[];
}

/** GNU tar exits 1 when a file changed while it was read: expected of a running server's folder. */
async function tar(args: string[], allowChanged = false): Promise<void> {
  try {
    await run('tar', args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    if (allowChanged && (err as { code?: number }).code === 1) return;
    throw new Error(
      `tar ${args[0]} failed: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`,
      { cause: err },
    );
  }
}

/** Backs up the embedded server of `dataDir` (running) and its secrets into one .tar.gz file. */
export async function backupEmbedded(
  dataDir: string,
  out: string,
): Promise<BackupManifest & { file: string; bytes: number }> {
  const server = embeddedServer(dataDir);
  if (!server.url)
    throw new Error(
      `no embedded PostgreSQL runs on ${dataDir}: start the service (npm start) or set DATA_DIR`,
    );
  const file = path.resolve(out);
  const stage = fs.mkdtempSync(path.join(path.dirname(file), '.pt-backup-'));
  try {
    const copied = await copyRunningCluster(server.url, server.dir, path.join(stage, 'postgres'));
    const secrets = SECRETS.filter((name) => fs.existsSync(path.join(dataDir, name)));
    for (const name of secrets) fs.copyFileSync(path.join(dataDir, name), path.join(stage, name));
    const manifest: BackupManifest = {
      format: 'player-trust-embedded-backup/1',
      createdAt: new Date().toISOString(),
      postgresVersion: copied.postgresVersion,
      startLsn: copied.startLsn,
      stopLsn: copied.stopLsn,
      secrets,
    };
    fs.writeFileSync(path.join(stage, 'manifest.json'), JSON.stringify(manifest, null, 2));
    await tar(['-C', stage, '-czf', `${file}.partial`, '.']);
    fs.chmodSync(`${file}.partial`, 0o600);
    fs.renameSync(`${file}.partial`, file);
    return { ...manifest, file, bytes: fs.statSync(file).size };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * A consistent copy of a running server's data folder into `target` (which must not exist): the
 * low-level base backup described above, with its backup_label and the WAL from its start to its end.
 * Started as it is, the copy recovers to the backup's end; with standby.signal, it follows the server.
 */
export async function copyRunningCluster(
  url: string,
  dataFolder: string,
  target: string,
): Promise<{ postgresVersion: string; startLsn: string; stopLsn: string }> {
  fs.mkdirSync(target, { recursive: false, mode: 0o700 });
  const scratch = fs.mkdtempSync(path.join(path.dirname(target), '.pt-copy-'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Temporary: dropped with this session, so a copy that dies keeps no WAL forever.
    await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [
      `pt_copy_${process.pid}`,
    ]);
    const { rows: version } = await client.query<{ server_version: string }>('SHOW server_version');
    const { rows: started } = await client.query<{ lsn: string }>(
      "SELECT pg_backup_start('player-trust copy', true)::text AS lsn",
    );
    await tar(
      [
        '-C',
        dataFolder,
        '-cf',
        path.join(scratch, 'live.tar'),
        ...EXCLUDE.flatMap((e) => ['--exclude', e]),
        '.',
      ],
      true,
    );
    const { rows: stopped } = await client.query<{
      lsn: string;
      labelfile: string;
      spcmapfile: string | null;
    }>('SELECT lsn::text, labelfile, spcmapfile FROM pg_backup_stop(false)');
    await tar(['-C', target, '-xf', path.join(scratch, 'live.tar')]);
    writeOwned(target, 'backup_label', stopped[0]!.labelfile);
    if (stopped[0]!.spcmapfile) writeOwned(target, 'tablespace_map', stopped[0]!.spcmapfile);
    // The WAL from the backup's start to its end: every segment there now (the slot kept them).
    // Segments still being written change under tar: what the copy needs (up to its end) is there.
    await tar(['-C', dataFolder, '-cf', path.join(scratch, 'wal.tar'), './pg_wal'], true);
    await tar(['-C', target, '-xf', path.join(scratch, 'wal.tar')]);
    return {
      postgresVersion: version[0]!.server_version,
      startLsn: started[0]!.lsn,
      stopLsn: stopped[0]!.lsn,
    };
  } finally {
    await client.end().catch(() => undefined);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A file in a data folder, owned like the folder: as root, the embedded server runs as postgres. */
function writeOwned(folder: string, name: string, text: string): void {
  const owner = fs.statSync(path.join(folder, 'PG_VERSION'));
  const file = path.join(folder, name);
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chownSync(file, owner.uid, owner.gid);
}

/**
 * Restores a backup into `dataDir`, the service stopped: the data folder and secrets there are kept
 * beside it (`*.before-restore-<time>`), never deleted, and the backup's take their place. The next
 * start (npm start, or this command's check) replays the WAL to the backup's end.
 */
export async function restoreEmbedded(
  dataDir: string,
  from: string,
): Promise<{ manifest: BackupManifest; keptAside: string[] }> {
  const server = embeddedServer(dataDir);
  if (server.url) throw new Error(`the embedded PostgreSQL on ${dataDir} is running: stop the service first`);
  const lock = path.join(dataDir, 'npm-start.lock');
  const holder = fs.existsSync(lock) ? Number(fs.readFileSync(lock, 'utf8')) : 0;
  if (holder && isAlive(holder))
    throw new Error(`npm start (pid ${holder}) runs on ${dataDir}: stop it first`);
  if (!fs.existsSync(from)) throw new Error(`no such backup file: ${from}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const stage = fs.mkdtempSync(path.join(dataDir, '.pt-restore-'));
  try {
    await tar(['-C', stage, '-xzf', path.resolve(from)]);
    let manifest: BackupManifest;
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(stage, 'manifest.json'), 'utf8')) as BackupManifest;
    } catch {
      throw new Error(`${from} is not a player-trust backup (no manifest.json)`);
    }
    if (manifest.format !== 'player-trust-embedded-backup/1')
      throw new Error(`${from} is a backup of another format (${String(manifest.format)})`);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const keptAside: string[] = [];
    for (const name of ['postgres', ...manifest.secrets]) {
      const current = path.join(dataDir, name);
      if (fs.existsSync(current)) {
        const aside = `${current}.before-restore-${stamp}`;
        fs.renameSync(current, aside);
        keptAside.push(aside);
      }
      fs.renameSync(path.join(stage, name), current);
    }
    return { manifest, keptAside };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}
