import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** True when a process with this pid exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Starts a detached watchdog that sends `signal` to `childPid` once `ownerPid` is gone. Node cannot
 * ask the kernel to kill a child when its parent dies, so without this a test run or `npm start`
 * killed with SIGKILL would leave its PostgreSQL and Redis running forever.
 */
export function guardChild(childPid: number, signal: 'INT' | 'TERM', ownerPid = process.pid): void {
  const script = `while kill -0 ${ownerPid} 2>/dev/null; do sleep 1; done; kill -${signal} ${childPid} 2>/dev/null`;
  const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
}

/** Reads a small JSON state file, or undefined when it is missing or unreadable. */
export function readState<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function writeState(file: string, state: unknown): void {
  fs.writeFileSync(file, JSON.stringify(state), { mode: 0o600 });
}
