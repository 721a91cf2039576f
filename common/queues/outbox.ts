import type { Pool, Queryable } from '../data/db.js';
import type { Logger } from '../logger.js';
import type { QueueName } from './index.js';
import type { ShardedQueues } from './shards.js';
import { producerSpans } from '../tracing/spans.js';

export interface OutboxRow {
  id: string;
  queue: QueueName;
  job_name: string;
  job_id: string;
  payload: Record<string, unknown>;
  /** What the row's shard derives from (migration 019): the player, or the webhook; null: the job id. */
  shard_key?: string | null;
  /** The shard it was sent to (null until sent). */
  shard?: number | null;
}

/**
 * One job written to the outbox in the caller's transaction (sent once it commits): the one way a
 * single job is asked for. Set-based writes (a delivery a webhook, a statement a sanction) insert
 * their rows in the statement that makes them. `shardKey`: what its shard derives from (the player,
 * the webhook); null, its job id.
 */
export async function writeJob(
  db: Queryable,
  job: {
    queue: QueueName;
    name: string;
    id: string;
    payload: Record<string, unknown>;
    shardKey?: string | null;
  },
): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    `INSERT INTO outbox (queue, job_name, job_id, payload, shard_key) VALUES ($1, $2, $3, $4, $5::uuid)
     RETURNING id::text, queue, job_name, job_id, payload, shard_key`,
    [job.queue, job.name, job.id, JSON.stringify(job.payload), job.shardKey ?? null],
  );
  return rows;
}

/**
 * A row whose payload names `runAt` is a job for later (a sanction's expiry): BullMQ holds it as a
 * delayed job until then. Sent late (Redis was down), it runs at once.
 */
function delayOf(row: OutboxRow): { delay?: number } {
  const runAt = typeof row.payload.runAt === 'string' ? Date.parse(row.payload.runAt) : NaN;
  return Number.isNaN(runAt) ? {} : { delay: Math.max(0, runAt - Date.now()) };
}

/**
 * Adds the rows' jobs under their own ids to their shards, one addBulk per queue of a shard (a job id
 * BullMQ holds is a no-op). Returns the shard of each row, in order, for the row to record.
 */
export async function send(queues: ShardedQueues, rows: OutboxRow[]): Promise<number[]> {
  const shards = rows.map((r) => queues.shardFor(r));
  // Tracing on: a `send <queue>` span for each row that carries a trace, named in its job's data.
  const traced = producerSpans(rows);
  const groups = new Map<string, { shard: number; name: QueueName; list: number[] }>();
  rows.forEach((row, i) => {
    const key = `${shards[i]}|${row.queue}`;
    const group = groups.get(key) ?? { shard: shards[i]!, name: row.queue, list: [] };
    group.list.push(i);
    groups.set(key, group);
  });
  try {
    await Promise.all(
      [...groups.values()].map(({ shard, name, list }) =>
        queues.shards[shard]![name].addBulk(
          list.map((i) => {
            const r = rows[i]!;
            return { name: r.job_name, data: traced.data[i]!, opts: { jobId: r.job_id, ...delayOf(r) } };
          }),
        ),
      ),
    );
  } catch (err) {
    traced.end(err);
    throw err;
  }
  traced.end();
  return shards;
}

/** Rows an API process's dispatch sends at most at once (its addBulk calls and sent mark). */
const DISPATCH_MAX = 1000;

/** Marks rows sent, recording each one's shard. */
const MARK_SENT = `UPDATE outbox SET sent_at = now(), shard = s.shard
    FROM unnest($1::bigint[], $2::smallint[]) AS s(id, shard)
   WHERE outbox.id = s.id AND outbox.sent_at IS NULL`;

/**
 * Sends outbox rows right after their transaction committed, batching the rows of concurrent requests
 * into one addBulk per queue and one UPDATE. One dispatch is in flight at a time: rows committed
 * meanwhile wait for it and go together in the next (at most DISPATCH_MAX a dispatch), so under load
 * the Redis calls and the sent marks are shared by more batches of reports (issue 40) instead of one
 * each. A failure (Redis down) only logs: the rows stay unsent and the relay sends them later.
 */
export class OutboxDispatcher {
  private pending: OutboxRow[] = [];
  private scheduled = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly queues: ShardedQueues,
    private readonly log: Logger,
  ) {}

  enqueue(rows: OutboxRow[]): void {
    this.pending.push(...rows);
    this.schedule();
  }

  private schedule(): void {
    // The dispatch under way takes what waits when it ends.
    if (this.scheduled || this.inFlight.size || !this.pending.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.pending.splice(0, DISPATCH_MAX);
      const p = this.flush(batch).finally(() => {
        this.inFlight.delete(p);
        this.schedule();
      });
      this.inFlight.add(p);
    });
  }

  private async flush(batch: OutboxRow[]): Promise<void> {
    try {
      const shards = await send(this.queues, batch);
      // The mark is committed without waiting for its WAL flush (synchronous_commit off for this
      // one transaction): losing it to a crash only makes the relay add the jobs again, a no-op by
      // their ids, and their processors are idempotent. It saves a second durable commit per batch
      // of reports, which would otherwise cost as much as the reports' own.
      await this.pool.query({
        name: 'outbox-mark-sent',
        text: `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
               UPDATE outbox SET sent_at = now(), shard = s.shard
                 FROM async, unnest($1::bigint[], $2::smallint[]) AS s(id, shard)
                WHERE outbox.id = s.id AND outbox.sent_at IS NULL`,
        values: [batch.map((r) => r.id), shards],
      });
    } catch (err) {
      this.log.warn(
        { err: (err as Error).message, rows: batch.length },
        'outbox dispatch failed; the relay will retry',
      );
    }
  }

  /** Waits for dispatches under way (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.pending.length || this.scheduled || this.inFlight.size) {
      await Promise.all([...this.inFlight, new Promise((r) => setImmediate(r))]);
    }
  }
}

/**
 * Claims unsent rows older than `minAgeMs` with FOR UPDATE SKIP LOCKED, so several relays (in every
 * API process and the relay worker) share the backlog without blocking or double-sending. Rows are
 * marked sent only after BullMQ accepted them; a relay dying in between leaves them to the next one,
 * and the job ids make that second add a no-op.
 */
export async function relayOutbox(
  pool: Pool,
  queues: ShardedQueues,
  opts: { batch?: number; minAgeMs?: number } = {},
) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<OutboxRow>(
      `SELECT id, queue, job_name, job_id, payload, shard_key FROM outbox
        WHERE sent_at IS NULL AND queue = ANY($3::text[])
          AND created_at < now() - make_interval(secs => $2::float8 / 1000)
        ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      // Only rows this process can deliver: a row for a queue it does not know (a newer release's,
      // or a bad one) must not fail, and so block, every batch it would be claimed with.
      [opts.batch ?? 500, opts.minAgeMs ?? 2000, queues.names()],
    );
    if (rows.length) {
      const shards = await send(queues, rows);
      await client.query(MARK_SENT, [rows.map((r) => r.id), shards]);
    }
    await client.query('COMMIT');
    return rows.length;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Runs the relay every `intervalMs` until stopped; returns the stop function. */
export function startRelayLoop(
  pool: Pool,
  queues: ShardedQueues,
  log: Logger,
  intervalMs: number,
): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = async () => {
    if (stopped) return;
    try {
      let sent: number;
      do {
        sent = await relayOutbox(pool, queues);
        if (sent) log.info({ sent }, 'outbox relay sent jobs');
      } while (sent && !stopped);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'outbox relay failed; retrying');
    }
  };
  const timer = setInterval(() => {
    running = running.then(tick);
  }, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
