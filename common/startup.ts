import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { writableUrl } from './data/hosts.js';
import { redisVersion } from './services/redis.js';

/**
 * A fault at start that the operator must fix (a folder that cannot be written, a server that cannot
 * be reached): every entry point prints its message as one line and exits 1, with no stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** A URL fit for a log line: its password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

const reason = (err: unknown) => {
  const e = err as NodeJS.ErrnoException & { errors?: Error[] };
  // A refused connection to a name with several addresses comes as an AggregateError.
  const inner = e.errors?.[0] as NodeJS.ErrnoException | undefined;
  return (inner?.code ?? e.code) ? `${inner?.code ?? e.code}: ${inner?.message ?? e.message}` : e.message;
};

/** Kernel file systems (statfs magic numbers) that hold no files of ours: proc, sysfs, cgroup, debugfs. */
const PSEUDO_FS = new Set([0x9fa0, 0x62656572, 0x27e0eb, 0x63677270, 0x64626720, 0x73636673]);

/** The nearest folder of `dir` (or `dir` itself) that exists. */
function nearestExisting(dir: string): string {
  let at = path.resolve(dir);
  while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}

/**
 * DATA_DIR holds the embedded servers, the development secrets and the start lock: it must exist (or
 * be creatable) and be writable. The real cause is named (EACCES, EROFS, ENOTDIR), not whatever the
 * first write that happened to fail would say. A folder on a kernel file system (/proc, /sys) is
 * refused before anything is tried there: Node's recursive mkdir never returns under /proc.
 */
export function ensureWritableDir(dir: string): void {
  const probe = path.join(dir, `.write-probe-${process.pid}`);
  const fail = (code: string, why: string) =>
    new StartupError(
      `DATA_DIR ${dir} is not writable (${code}: ${why}); set DATA_DIR to a folder this user can write`,
    );
  const base = nearestExisting(dir);
  let fsType: number | undefined;
  try {
    fsType = fs.statfsSync(base).type;
  } catch {
    // statfs unsupported here: the writes below say what is wrong.
  }
  if (fsType !== undefined && PSEUDO_FS.has(fsType))
    throw fail('EINVAL', `${base} is on a kernel file system (such as /proc or /sys), which holds no files`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'EROFS'
        ? 'it is on a read-only file system'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : // Node's message starts with the code ("ENOTDIR: not a directory, mkdir ..."): said once.
            (err as Error).message.replace(new RegExp(`^${code}: `), '');
    throw fail(code, why);
  }
}

async function retryUntil(waitMs: number, attempt: () => Promise<void>): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      await attempt();
      return;
    } catch (err) {
      if (Date.now() >= until) throw err;
      await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(0, until - Date.now()))));
    }
  }
}

/** Waits up to `waitMs` for PostgreSQL to answer; then a StartupError naming the URL and the error. */
export async function waitForPostgres(url: string, waitMs: number): Promise<void> {
  try {
    await retryUntil(waitMs, async () => {
      // Several hosts: the one that takes writes must answer.
      const client = new pg.Client({
        connectionString: await writableUrl(url),
        connectionTimeoutMillis: 3000,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
      } finally {
        await client.end().catch(() => undefined);
      }
    });
  } catch (err) {
    throw new StartupError(
      `cannot reach PostgreSQL at ${redactUrl(url)} (waited ${Math.round(waitMs / 1000)} s, STARTUP_WAIT_SECONDS): ${reason(err)}`,
    );
  }
}

/** Waits up to `waitMs` for Redis to answer; then a StartupError naming the URL and the error. */
export async function waitForRedis(url: string, waitMs: number): Promise<void> {
  try {
    await retryUntil(waitMs, () => redisVersion(url).then(() => undefined));
  } catch (err) {
    throw new StartupError(
      `cannot reach Redis at ${redactUrl(url)} (waited ${Math.round(waitMs / 1000)} s, STARTUP_WAIT_SECONDS): ${reason(err)}`,
    );
  }
}

/**
 * Waiting for processes that start at their own pace (a busy machine, tracing on, the first run of
 * tsx): keep waiting while they make progress, give up after `quietMs` without any, and after
 * `maxMs` in any case. Progress is any change of what `observe` is given (the processes' CPU time,
 * what the probe answered).
 */
export class ProgressWatch {
  private lastSample: string | undefined;
  private lastProgress: number;

  constructor(
    private readonly quietMs: number,
    private readonly maxMs: number,
    private readonly started: number,
  ) {
    this.lastProgress = started;
  }

  /** Records what was seen at `now`; whether to keep waiting. */
  observe(now: number, sample: string): boolean {
    if (sample !== this.lastSample) {
      this.lastSample = sample;
      this.lastProgress = now;
    }
    return !this.quiet(now) && now - this.started < this.maxMs;
  }

  /** Whether nothing changed for `quietMs` (the reason to give up, else `maxMs` ran out). */
  quiet(now: number): boolean {
    return now - this.lastProgress >= this.quietMs;
  }
}

/**
 * CPU time (clock ticks) a process and its children have used, from /proc; undefined where there is
 * no /proc (or the process is gone): the caller then sees no progress from it.
 */
export function cpuTicks(pid: number): number | undefined {
  const read = (p: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command (which may hold spaces), from the 3rd: utime is 14th, stime 15th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return undefined;
    }
  };
  const own = read(pid);
  if (own === undefined) return undefined;
  let children: number[] = [];
  try {
    children = fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no list of children here: the process's own time only
  }
  return children.reduce((sum, c) => sum + (read(c) ?? 0), own);
}
