import { Cluster, Redis, type RedisOptions } from 'ioredis';

/**
 * One Redis server or a Redis Cluster, behind the same client type: ioredis's Redis and Cluster take
 * the same commands, BullMQ and rate-limiter-flexible take either. REDIS_URL names one server
 * (`redis://host:6379`) or, with several hosts (`redis://:pw@node-1:7000,node-2:7001,node-3:7002`),
 * the seed nodes of a cluster; REDIS_CLUSTER=true makes a single seed a cluster too.
 */
export type RedisClient = Redis | Cluster;

export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisTopology {
  cluster: boolean;
  nodes: RedisNode[];
  /** The URL of the first node alone (probes, one-node tools), with the credentials. */
  firstUrl: string;
  username: string | undefined;
  password: string | undefined;
  tls: boolean;
}

const URL_PARTS = /^(rediss?):\/\/(?:([^@/?#]*)@)?([^/?#]*)([/?#].*)?$/;

/** The hosts of a REDIS_URL (one or several), or undefined when it is not a redis:// URL. */
export function parseRedisUrl(url: string, forceCluster = false): RedisTopology | undefined {
  const m = URL_PARTS.exec(url);
  if (!m || !m[3]) return undefined;
  const nodes: RedisNode[] = [];
  for (const part of m[3].split(',')) {
    const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(part);
    const [host, port] = v6 ? [v6[1]!, v6[2]] : part.split(':');
    if (!host || (port !== undefined && !/^\d{1,5}$/.test(port))) return undefined;
    nodes.push({ host, port: Number(port ?? 6379) });
  }
  const [user, pass] = (m[2] ?? '').split(':');
  const hostText = (n: RedisNode) => (n.host.includes(':') ? `[${n.host}]` : n.host);
  return {
    cluster: forceCluster || nodes.length > 1,
    nodes,
    firstUrl: `${m[1]}://${m[2] ? `${m[2]}@` : ''}${hostText(nodes[0]!)}:${nodes[0]!.port}${m[4] ?? ''}`,
    username: user ? decodeURIComponent(user) : undefined,
    password: pass !== undefined ? decodeURIComponent(pass) : undefined,
    tls: m[1] === 'rediss',
  };
}

/**
 * A client for REDIS_URL: a Redis, or a Cluster over its nodes. `options` are the per-node options
 * (a Cluster passes them to every node's connection).
 */
export function createRedisClient(url: string, forceCluster: boolean, options: RedisOptions): RedisClient {
  const topology = parseRedisUrl(url, forceCluster);
  if (!topology?.cluster) return new Redis(url, options);
  return new Cluster(topology.nodes, {
    redisOptions: {
      ...options,
      ...(topology.username ? { username: topology.username } : {}),
      ...(topology.password ? { password: topology.password } : {}),
      ...(topology.tls ? { tls: {} } : {}),
    },
    // Commands wait while the cluster finds its masters again (a failover); the per-node options
    // decide whether they wait (workers) or fail fast (producers).
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
    slotsRefreshTimeout: 2000,
    // Follow a failover promptly: MOVED answers refresh the slot map, and so does this timer.
    slotsRefreshInterval: 5000,
  });
}

/** The masters of a client (one: itself). */
export function mastersOf(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}
