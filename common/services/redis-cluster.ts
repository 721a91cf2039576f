import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { guardChild, isAlive } from './process-guard.js';
import { findRedisServer } from './redis.js';

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  dir: string;
  child: ChildProcess | undefined;
}

export interface RedisClusterHandle {
  /** REDIS_URL for the service: every node, comma-separated. */
  url: string;
  nodes: ClusterNode[];
  /** The node serving `port` as master now (after a failover, a former replica). */
  masterPorts(): Promise<number[]>;
  /** The replicas of the master on `port`. */
  replicasOf(port: number): Promise<number[]>;
  pid(port: number): number | undefined;
  /** Starts a killed node again with its data (it rejoins as a replica of whoever took over). */
  restart(port: number): Promise<void>;
  /**
   * Waits until every slot is served by a live master and every node agrees the cluster is ok; with
   * `replicas` (the default), also until every master has its replicas (a killed node restarted has
   * rejoined as one).
   */
  waitHealthy(timeoutMs?: number, opts?: { replicas?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster on this machine from Debian's redis-server and redis-cli, for tests, drills, the
 * benchmark and a local try-out: `masters` masters with `replicasPerMaster` replicas each, every node
 * with the append-only file (fsync every second, as production runs it) and a short node timeout
 * (2 s) so a failover is quick. Made with `redis-cli --cluster create`; nothing of it is home-made.
 */
export async function startRedisCluster(opts: {
  dir: string;
  masters?: number;
  replicasPerMaster?: number;
  nodeTimeoutMs?: number;
}): Promise<RedisClusterHandle> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicasPerMaster ?? 0;
  const server = await findRedisServer();
  const cli = path.join(path.dirname(server), 'redis-cli');
  if (!fs.existsSync(cli)) throw new Error(`redis-cli not found beside ${server}`);
  fs.mkdirSync(opts.dir, { recursive: true });
  const nodes: ClusterNode[] = [];
  const args = (node: ClusterNode) => [
    '--port',
    String(node.port),
    '--bind',
    '127.0.0.1',
    '--dir',
    node.dir,
    '--daemonize',
    'no',
    '--save',
    '',
    '--appendonly',
    'yes',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    '--cluster-node-timeout',
    String(opts.nodeTimeoutMs ?? 2000),
  ];
  const launch = async (node: ClusterNode) => {
    const child = spawn(server, args(node), { stdio: ['ignore', 'pipe', 'pipe'] });
    node.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const onData = (c: Buffer) => {
        out += c.toString();
        if (out.includes('Ready to accept connections')) {
          child.stdout!.off('data', onData);
          // The node's log, for a drill or test that wants to know what it did.
          child.stdout!.pipe(fs.createWriteStream(path.join(node.dir, 'redis.log'), { flags: 'a' }));
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      child.once('exit', (code) =>
        reject(new Error(`redis-server (cluster node ${node.port}) exited ${code}:\n${out}`)),
      );
    });
    guardChild(child.pid!, 'TERM');
  };
  for (let i = 0; i < masters * (1 + replicas); i++) {
    const port = await freePort();
    const node = { port, dir: path.join(opts.dir, `node-${port}`), child: undefined };
    fs.mkdirSync(node.dir, { recursive: true });
    nodes.push(node);
  }
  await Promise.all(nodes.map(launch));
  await run(cli, [
    '--cluster',
    'create',
    ...nodes.map((n) => `127.0.0.1:${n.port}`),
    '--cluster-replicas',
    String(replicas),
    '--cluster-yes',
  ]);

  const ask = async <T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> => {
    const r = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    r.on('error', () => undefined);
    try {
      await r.connect();
      return await fn(r);
    } finally {
      r.disconnect();
    }
  };
  const live = () => nodes.filter((n) => n.child && n.child.exitCode === null && n.child.signalCode === null);
  const clusterNodes = async () => {
    for (const n of live()) {
      try {
        return (await ask(n.port, (r) => r.call('CLUSTER', 'NODES'))) as string;
      } catch {
        // next node
      }
    }
    throw new Error('no cluster node answers');
  };
  const parse = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((line) => {
        const [id, addr, flags, master, , , , , ...slots] = line.split(' ');
        return {
          id: id!,
          port: Number(/:(\d+)@/.exec(addr!)?.[1]),
          // A master serves slots; one that lost them all (or never had any yet) does not count.
          master: flags!.includes('master') && !flags!.includes('fail') && slots.length > 0,
          failed: flags!.includes('fail'),
          masterId: master!,
        };
      });
  const handle: RedisClusterHandle = {
    url: `redis://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    masterPorts: async () =>
      parse(await clusterNodes())
        .filter((n) => n.master)
        .map((n) => n.port),
    replicasOf: async (port) => {
      const all = parse(await clusterNodes());
      const master = all.find((n) => n.port === port);
      const livePorts = new Set(live().map((n) => n.port));
      return all
        .filter((n) => master && n.masterId === master.id && !n.failed && livePorts.has(n.port))
        .map((n) => n.port);
    },
    pid: (port) => nodes.find((n) => n.port === port)?.child?.pid,
    restart: async (port) => {
      const node = nodes.find((n) => n.port === port)!;
      await launch(node);
    },
    waitHealthy: async (timeoutMs = 30_000, wait = {}) => {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(
          live().map((n) =>
            ask(n.port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>).catch(() => 'unreachable'),
          ),
        );
        const ok = states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s));
        // A master that died is still listed as one until the others have timed it out and its
        // replica took over: healthy means every master is a live node.
        const livePorts = new Set(live().map((n) => n.port));
        const masterPorts = ok ? await handle.masterPorts().catch(() => [0]) : [0];
        let healthy = masterPorts.length === masters && masterPorts.every((p) => livePorts.has(p));
        if (healthy && (wait.replicas ?? true))
          for (const p of masterPorts) {
            const of = await handle.replicasOf(p);
            // Listed is not enough: a replica that has not finished its first sync cannot take over.
            const linked = await Promise.all(
              of.map((r) =>
                ask(r, (c) => c.info('replication')).then(
                  (info) => /master_link_status:up/.test(info),
                  () => false,
                ),
              ),
            );
            if (linked.filter(Boolean).length < replicas) healthy = false;
          }
        if (healthy) return;
        if (Date.now() > end)
          throw new Error(
            `the Redis Cluster is not healthy after ${timeoutMs} ms:\n${await clusterNodes().catch((e: Error) => e.message)}`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: async () => {
      await Promise.all(
        nodes.map(
          (n) =>
            new Promise<void>((resolve) => {
              const child = n.child;
              if (!child || child.exitCode !== null || child.signalCode !== null || !isAlive(child.pid!))
                return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
  await handle.waitHealthy();
  return handle;
}
