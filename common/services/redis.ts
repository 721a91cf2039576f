import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { parseRedisUrl, type RedisNode } from '../queues/redis-client.js';
import type { ServiceHandle } from './postgres.js';
import { guardChild, isAlive, readState, writeState } from './process-guard.js';

export interface RedisOptions {
  dataDir: string;
  redisUrl?: string | undefined;
  /** No persistence: for throw-away test servers only. */
  ephemeral?: boolean;
  log?: (msg: string) => void;
}

interface RedisState {
  pid: number;
  port: number;
}

/**
 * Redis for the service and the tests. With a REDIS_URL it starts nothing; otherwise it reuses the
 * server already running on `dataDir` or starts `redis-server` with append-only persistence.
 */
export async function provideRedis(options: RedisOptions): Promise<ServiceHandle> {
  const log = options.log ?? (() => undefined);
  if (options.redisUrl) {
    // The API must start (and accept reports into the outbox) while an external Redis is down.
    let unreachable: string | undefined;
    const probe = await redisProbe(options.redisUrl).catch((err: Error) => {
      unreachable = err.message;
      return { version: 'unknown (unreachable at start)', clusterEnabled: undefined };
    });
    return {
      url: options.redisUrl,
      owned: false,
      version: probe.version,
      ...(probe.clusterEnabled !== undefined ? { clusterEnabled: probe.clusterEnabled } : {}),
      ...(unreachable ? { unreachable } : {}),
      stop: async () => undefined,
    };
  }
  const dir = path.join(options.dataDir, 'redis');
  const stateFile = path.join(options.dataDir, 'redis.json');
  fs.mkdirSync(dir, { recursive: true });

  const previous = readState<RedisState>(stateFile);
  if (previous && isAlive(previous.pid)) {
    const url = `redis://127.0.0.1:${previous.port}`;
    try {
      const version = await redisVersion(url);
      log(`using the Redis already running on port ${previous.port}`);
      return { url, owned: false, version, stop: async () => undefined };
    } catch {
      // The pid was reused by an unrelated process: start our own.
    }
  }

  const bin = await findRedisServer(log);
  const port = await freePort();
  const child = spawn(bin, redisServerArgs(port, dir, options.ephemeral ?? false), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForReady(child, log);
  guardChild(child.pid!, 'TERM');
  writeState(stateFile, { pid: child.pid, port });
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    owned: true,
    version: await redisVersion(url),
    pid: child.pid!,
    stop: () => stopChild(child),
  };
}

/**
 * How the embedded Redis is started: on loopback, no RDB snapshots, and (unless throw-away) the
 * append-only file with fsync every second, as production runs it. The crash drill restarts a
 * killed server with the same arguments.
 */
export function redisServerArgs(port: number, dir: string, ephemeral: boolean): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--save',
    '',
    '--appendonly',
    ephemeral ? 'no' : 'yes',
  ];
}

function waitForReady(child: ChildProcess, log: (m: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.on('data', (c: Buffer) => log(c.toString().trim()));
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)),
    );
    child.once('error', reject);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * One connection to Redis for its version and whether it is a cluster node: the probe of start-up
 * checks too. A REDIS_URL with several hosts (a cluster's seed nodes) is probed node by node until
 * one answers. Without an error listener ioredis prints "Unhandled error event" and a stack; the
 * event also carries the cause (ECONNREFUSED) where connect() only says the connection closed, so
 * that is what is thrown.
 */
export async function redisProbe(url: string): Promise<{ version: string; clusterEnabled: boolean }> {
  const topology = parseRedisUrl(url);
  const urls = topology && topology.nodes.length > 1 ? topology.nodes.map((n) => nodeUrl(url, n)) : [url];
  let failure: unknown;
  for (const one of urls) {
    const client = new Redis(one, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 3000,
    });
    let cause: Error | undefined;
    client.on('error', (err: Error) => (cause ??= err));
    try {
      await client.connect();
      const info = await client.info();
      return {
        version: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
        clusterEnabled: /^cluster_enabled:1/m.test(info),
      };
    } catch (err) {
      failure = cause ?? err;
    } finally {
      client.disconnect();
    }
  }
  throw failure;
}

export async function redisVersion(url: string): Promise<string> {
  return (await redisProbe(url)).version;
}

/** The URL of one node of a cluster URL (same scheme and credentials). */
export function nodeUrl(url: string, node: RedisNode): string {
  const t = parseRedisUrl(url)!;
  const first = new URL(t.firstUrl);
  first.hostname = node.host.includes(':') ? `[${node.host}]` : node.host;
  first.port = String(node.port);
  return first.toString();
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/** REDIS_SERVER_BIN, the PATH, Debian's package (as root), redis-memory-server, in that order. */
export async function findRedisServer(log: (m: string) => void = () => undefined): Promise<string> {
  const fromEnv = process.env.REDIS_SERVER_BIN;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`REDIS_SERVER_BIN=${fromEnv} does not exist`);
    return fromEnv;
  }
  const found =
    onPath('redis-server') ?? (fs.existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : undefined);
  if (found) return found;
  if (os.userInfo().uid === 0 && fs.existsSync('/etc/debian_version')) {
    log('redis-server not found: installing Debian package redis-server');
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      if (fs.existsSync('/usr/bin/redis-server')) return '/usr/bin/redis-server';
    } catch (err) {
      log(`apt-get install redis-server failed: ${(err as Error).message}`);
    }
  }
  try {
    // Optional: compiles Redis from source, which needs internet; not a dependency of ours.
    const moduleName = 'redis-memory-server';
    const mod = (await import(moduleName)) as { RedisBinary: { getPath(): Promise<string> } };
    return await mod.RedisBinary.getPath();
  } catch {
    throw new Error(
      'No redis-server found. Install one (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), ' +
        'point REDIS_SERVER_BIN at a redis-server binary, set REDIS_URL to a running server, ' +
        'or `npm install redis-memory-server` on a machine with internet access.',
    );
  }
}
