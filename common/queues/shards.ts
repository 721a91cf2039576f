import type { Queue } from 'bullmq';
import { QUEUES, type QueueName, type Queues } from './index.js';

/**
 * The queues, split into QUEUE_SHARDS shards. BullMQ keeps all of a queue's keys in one Redis Cluster
 * slot (its Lua scripts touch several keys at once, which a cluster refuses with CROSSSLOT unless the
 * keys share a hash tag), so one queue cannot spread over a cluster: shards can. Shard k's queues use
 * the prefix `{<QUEUE_PREFIX>:k}`, whose hash tag puts all its keys in one slot, and different shards
 * land on different masters. On one Redis server with one shard the prefix stays `<QUEUE_PREFIX>`,
 * as it always was.
 *
 * An outbox row's jobs go to the shard of its shard key (the player for offense and sanction jobs,
 * the webhook for deliveries; migration 019), so all of one player's jobs share a shard and keep
 * their order; the relay records the shard on the row when it sends it, and a job re-added later
 * (the reconciler) goes back to the shard it was sent to.
 */
export function shardPrefixes(prefix: string, shards: number, cluster: boolean): string[] {
  if (shards === 1 && !cluster) return [prefix];
  return Array.from({ length: shards }, (_, k) => `{${prefix}:${k}}`);
}

/** A stable hash (FNV-1a, 32 bits) of a key, mod the number of shards: the same on every process. */
export function shardOf(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** What decides a row's shard: the shard it was sent to before, else its shard key, else its job id. */
export interface Shardable {
  job_id: string;
  shard_key?: string | null;
  shard?: number | null;
}

export class ShardedQueues {
  constructor(
    /** Shard k's queues, by name. */
    readonly shards: Queues[],
    readonly prefixes: string[],
  ) {}

  get count(): number {
    return this.shards.length;
  }

  /** The shard of an outbox row (see Shardable). */
  shardFor(row: Shardable): number {
    if (row.shard !== undefined && row.shard !== null && row.shard >= 0 && row.shard < this.count)
      return row.shard;
    return this.count === 1 ? 0 : shardOf(row.shard_key ?? row.job_id, this.count);
  }

  /** Every shard's queue of this name. */
  named(name: QueueName): Queue[] {
    return this.shards.map((s) => s[name]);
  }

  /** Every queue of every shard. */
  all(): Queue[] {
    return this.shards.flatMap((s) => Object.values(s));
  }

  names(): QueueName[] {
    return Object.values(QUEUES);
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
  }
}

/**
 * Which shards a worker serves: WORKER_SHARDS (a list like "0,2" or ranges "0-3"), or all of them.
 * Every shard needs at least one worker of each kind somewhere; scale each shard's on its own.
 */
export function parseShardList(text: string, shards: number): number[] {
  if (text.trim() === '') return Array.from({ length: shards }, (_, k) => k);
  const out = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`"${part}" is not a shard number or range (like 0,2 or 0-3)`);
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    if (to < from) throw new Error(`"${part}" is an empty range`);
    for (let k = from; k <= to; k++) {
      if (k >= shards)
        throw new Error(`shard ${k} does not exist (QUEUE_SHARDS is ${shards}: 0..${shards - 1})`);
      out.add(k);
    }
  }
  return [...out].sort((a, b) => a - b);
}
