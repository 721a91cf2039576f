import fs from 'node:fs';

/**
 * CPU time per unit of work (issue 40): on a shared machine throughput moves with whatever else runs,
 * CPU seconds spent per report, profile or id move least. Read from /proc/<pid>/stat (user + system
 * time) of every process the bench started, grouped by what it is, before and after a measured
 * round: the API (and its API_PROCESSES), PostgreSQL's backends (the connections' processes: the
 * statements) and its background processes apart (the postmaster, WAL writer, checkpointer,
 * background writer, autovacuum, I/O workers: what writes cost after their commit), Redis, the bare
 * Koa reference, other node processes (workers launched apart); and this process itself, the load
 * generator (with the direct references), reported apart. The drain's workers run in this process:
 * a drain counts this process's CPU over the drain alone as `worker` (harness.ts, drain).
 */
export const CPU_GROUPS = ['api', 'postgres', 'pgbg', 'redis', 'bare', 'other', 'worker'] as const;
export type CpuGroup = (typeof CPU_GROUPS)[number];
export type CpuSeconds = Record<CpuGroup | 'loadgen', number>;

/** Clock ticks a second of /proc's times (USER_HZ): 100 on Linux for every architecture in use. */
const TICKS = 100;

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  ticks: number;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses: fields follow
    // the last ')'. Then: state ppid ... utime (14th field overall) stime (15th).
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), comm, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined; // gone meanwhile
  }
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** What a process is, by its name and command line; undefined for what the bench did not start. */
function groupOf(p: Proc): CpuGroup {
  if (p.comm === 'postgres') {
    // A backend's title is `postgres: <user> <database> <client> <state>`; the postmaster's is its
    // command line, the others' name what they are.
    const title = cmdline(p.pid);
    const background =
      /^postgres: (\S+: )?(checkpointer|background writer|walwriter|autovacuum|logical replication|archiver|io worker|walsender|walreceiver|startup|walsummarizer)/;
    return title.startsWith('postgres:') && !background.test(title) ? 'postgres' : 'pgbg';
  }
  if (p.comm.startsWith('redis-server')) return 'redis';
  const line = cmdline(p.pid);
  if (line.includes('api/server')) return 'api';
  if (line.includes('bare-koa')) return 'bare';
  return 'other';
}

/**
 * CPU seconds so far of every descendant of this process, by group, and of this process itself.
 * Exited processes drop out: a measured round compares snapshots of processes that lived through it.
 */
export function cpuSnapshot(): CpuSeconds {
  const all = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is Proc => p !== undefined);
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: CpuSeconds = {
    api: 0,
    postgres: 0,
    pgbg: 0,
    redis: 0,
    bare: 0,
    other: 0,
    worker: 0,
    loadgen: 0,
  };
  const stack = [...(children.get(process.pid) ?? [])];
  while (stack.length) {
    const p = stack.pop()!;
    out[groupOf(p)] += p.ticks / TICKS;
    stack.push(...(children.get(p.pid) ?? []));
  }
  const self = process.cpuUsage();
  out.loadgen = (self.user + self.system) / 1e6;
  return out;
}

export const cpuDelta = (before: CpuSeconds, after: CpuSeconds): CpuSeconds =>
  Object.fromEntries(
    Object.keys(after).map((k) => [
      k,
      Math.max(0, after[k as keyof CpuSeconds] - before[k as keyof CpuSeconds]),
    ]),
  ) as CpuSeconds;

/** The service's CPU (every group but the load generator and the bare Koa reference's). */
export const serviceCpu = (c: CpuSeconds) => c.api + c.postgres + c.pgbg + c.redis + c.other + c.worker;
