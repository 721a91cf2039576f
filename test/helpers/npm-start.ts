import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export interface Started {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` as a process manager runs it: its own process group, output collected. */
export function npmStart(dataDir: string, port: number, env: NodeJS.ProcessEnv = {}): Started {
  let output = '';
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  npm.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  return { npm, output: () => output, exited };
}

export async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(200);
  }
}

/** Ends the whole process group of an `npm start`, whatever state it is in. */
export function killGroup(started: Started): void {
  try {
    process.kill(-started.npm.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}
