import pg from 'pg';
import type { Logger } from '../logger.js';
import { withTimeout } from '../timeout.js';
import type { Pool, Queryable } from './db.js';

/**
 * Reads served by PostgreSQL hot standbys (DATABASE_REPLICA_URLS), with read-your-writes.
 *
 * - Every answer that changed data carries a consistency token: a WAL position at or past its commit
 *   (`currentLsn`, read after the commit). A read presenting it is served by a standby that has
 *   replayed that far, waiting at most REPLICA_TOKEN_WAIT_MS for one to get there, then by the primary.
 * - Without a token, a standby more than REPLICA_MAX_LAG_MS behind is skipped. Lag is measured in
 *   time, not bytes: every check samples the primary's flushed WAL position, and a standby's lag is
 *   how long ago the primary first had WAL the standby has not replayed (0 when it has all of it).
 *   An idle primary therefore shows no lag, and a standby stuck on old WAL shows a growing one.
 * - A standby that fails a check, answers an error, or is no longer in recovery (promoted, so no
 *   longer following this primary) is skipped until a check finds it well again; a read it failed is
 *   run again on the primary at once, so its caller never sees the failure.
 *
 * Writes, moderator decisions and everything inside a transaction never come here: they use the
 * primary's pool directly.
 */

/** A WAL position: PostgreSQL's pg_lsn as a number. */
export type Lsn = bigint;

export const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

export function parseLsn(text: string): Lsn | undefined {
  const m = LSN_TEXT.exec(text);
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : undefined;
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export type ReadTarget = 'primary' | 'standby';
export type FallbackReason = 'lag' | 'down' | 'error' | 'token';

/** What the API's metrics count (common/metrics.ts); optional. */
export interface ReadObserver {
  read(target: ReadTarget): void;
  fallback(reason: FallbackReason): void;
  tokenWait(outcome: 'standby' | 'primary', seconds: number): void;
}

export interface ReplicaStatus {
  name: string;
  up: boolean;
  /** Replay lag in ms; undefined while unknown (not checked yet, or down). */
  lagMs: number | undefined;
  replayed: string | undefined;
}

export interface ReadRoutingOptions {
  maxLagMs: number;
  tokenWaitMs: number;
  checkIntervalMs: number;
  poolSize: number;
  log?: Logger;
  observer?: ReadObserver;
}

/** How many primary samples are kept (at the check interval, the lag window they can measure). */
const SAMPLES = 600;
/** How often a standby is asked again while a token read waits for it. */
const WAIT_POLL_MS = 2;

class Replica {
  readonly pool: pg.Pool;
  up = false;
  replayed: Lsn | undefined;
  lagMs: number | undefined;
  private waiters: { lsn: Lsn; deadline: number; resolve: (ok: boolean) => void }[] = [];
  private polling = false;

  constructor(
    readonly name: string,
    url: string,
    poolSize: number,
    queryTimeoutMs: number,
    log: Logger | undefined,
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: Math.max(500, queryTimeoutMs),
      // A standby that stops answering (frozen, or its network gone) must not hold a read: it times
      // out here and runs on the primary.
      query_timeout: queryTimeoutMs,
    });
    this.pool.on('error', (err) =>
      log?.debug({ replica: name, err: err.message }, 'idle standby connection failed'),
    );
    this.pool.on('connect', (client) =>
      client.on('error', (err) =>
        log?.debug({ replica: name, err: err.message }, 'standby connection failed'),
      ),
    );
  }

  /** Resolves true once this standby has replayed `lsn`, false at the deadline. */
  waitFor(lsn: Lsn, deadline: number): Promise<boolean> {
    if (this.replayed !== undefined && this.replayed >= lsn) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.waiters.push({ lsn, deadline, resolve });
      if (!this.polling) void this.poll();
    });
  }

  /** One loop per standby serves every waiting read: a query each WAIT_POLL_MS while any wait. */
  private async poll(): Promise<void> {
    this.polling = true;
    try {
      while (this.waiters.length) {
        try {
          const { rows } = await this.pool.query<{ replayed: string | null }>(
            'SELECT pg_last_wal_replay_lsn()::text AS replayed',
          );
          const replayed = rows[0]!.replayed === null ? undefined : parseLsn(rows[0]!.replayed);
          if (replayed !== undefined && (this.replayed === undefined || replayed > this.replayed))
            this.replayed = replayed;
        } catch {
          this.up = false;
          this.settle(() => false);
          return;
        }
        const now = Date.now();
        this.settle((w) =>
          this.replayed !== undefined && this.replayed >= w.lsn
            ? true
            : now >= w.deadline
              ? false
              : undefined,
        );
        if (this.waiters.length) await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      }
    } finally {
      this.polling = false;
    }
  }

  private settle(outcome: (w: { lsn: Lsn; deadline: number }) => boolean | undefined): void {
    this.waiters = this.waiters.filter((w) => {
      const done = outcome(w);
      if (done === undefined) return true;
      w.resolve(done);
      return false;
    });
  }

  status(): ReplicaStatus {
    return {
      name: this.name,
      up: this.up,
      lagMs: this.up ? this.lagMs : undefined,
      replayed: this.replayed === undefined ? undefined : formatLsn(this.replayed),
    };
  }
}

/** The name a standby is shown under (metrics, logs): its host and port, never its password. */
export function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}`;
  } catch {
    return 'standby';
  }
}

export class ReadRouting {
  private readonly replicas: Replica[];
  private readonly samples: { lsn: Lsn; at: number }[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private lsnWaiting: { resolve: (lsn: string) => void; reject: (err: Error) => void }[] = [];
  private lsnScheduled = false;

  constructor(
    private readonly primary: Pool,
    replicaUrls: readonly string[],
    private readonly opts: ReadRoutingOptions,
  ) {
    const queryTimeoutMs = Math.max(1000, opts.maxLagMs);
    this.replicas = replicaUrls.map(
      (url, i) =>
        new Replica(
          replicaName(url) + (replicaUrls.indexOf(url) === i ? '' : `#${i}`),
          url,
          opts.poolSize,
          queryTimeoutMs,
          opts.log,
        ),
    );
  }

  /** Whether any standby is configured: only then do answers carry consistency tokens. */
  get enabled(): boolean {
    return this.replicas.length > 0;
  }

  /** Starts the checks; the first one is awaited, so a healthy standby serves the first read. */
  async start(): Promise<void> {
    if (!this.enabled || this.timer) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), this.opts.checkIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
    await Promise.allSettled(this.replicas.map((r) => r.pool.end()));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => r.status());
  }

  /** One check of every standby, with a sample of the primary's position taken first. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const timeout = Math.max(500, Math.min(this.opts.maxLagMs, 5000));
    try {
      const { rows } = await withTimeout(
        this.primary.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn'),
        timeout,
      );
      this.samples.push({ lsn: parseLsn(rows[0]!.lsn)!, at: Date.now() });
      if (this.samples.length > SAMPLES) this.samples.shift();
    } catch (err) {
      // The primary does not answer: standbys' lag cannot be measured against it, so what they
      // last showed stands (reads go to them if they were within bounds; writes fail anyway).
      this.opts.log?.debug({ err: (err as Error).message }, 'primary WAL position not read');
    }
    await Promise.all(
      this.replicas.map(async (r) => {
        const wasUp = r.up;
        try {
          const { rows } = await withTimeout(
            r.pool.query<{ standby: boolean; replayed: string | null }>(
              'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
            ),
            timeout,
          );
          const { standby, replayed } = rows[0]!;
          if (!standby || replayed === null) throw new Error('not a standby (promoted, or never one)');
          const lsn = parseLsn(replayed)!;
          if (r.replayed === undefined || lsn > r.replayed) r.replayed = lsn;
          r.lagMs = this.lagOf(r.replayed);
          r.up = true;
          if (!wasUp) this.opts.log?.info({ replica: r.name, lagMs: r.lagMs }, 'standby serves reads');
        } catch (err) {
          r.up = false;
          r.lagMs = undefined;
          if (wasUp)
            this.opts.log?.warn(
              { replica: r.name, err: (err as Error).message },
              'standby skipped: reads go elsewhere',
            );
        }
      }),
    );
  }

  /** How long ago the primary first had WAL past `replayed` (0 if it had none; undefined: unknown). */
  private lagOf(replayed: Lsn): number | undefined {
    if (!this.samples.length) return undefined;
    const behind = this.samples.find((s) => s.lsn > replayed);
    return behind ? Date.now() - behind.at : 0;
  }

  /**
   * The primary's WAL position now, for a consistency token: every caller asks after its commit, and
   * the callers of one turn of the event loop share one query sent after all of them asked.
   */
  currentLsn(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.lsnWaiting.push({ resolve, reject });
      if (this.lsnScheduled) return;
      this.lsnScheduled = true;
      setImmediate(() => {
        const batch = this.lsnWaiting;
        this.lsnWaiting = [];
        this.lsnScheduled = false;
        this.primary.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn').then(
          ({ rows }) => batch.forEach((w) => w.resolve(rows[0]!.lsn)),
          (err: Error) => batch.forEach((w) => w.reject(err)),
        );
      });
    });
  }

  /**
   * Runs a read on a standby when one may serve it (within the lag bound, or past `token`), else on
   * the primary. `fn` gets the pool to read from and must only read. A standby that fails the read
   * is skipped and the read runs on the primary.
   */
  async read<T>(
    token: Lsn | undefined,
    fn: (db: Queryable, target: ReadTarget) => Promise<T>,
  ): Promise<{ value: T; target: ReadTarget }> {
    const replica = this.replicas.length ? await this.choose(token) : undefined;
    if (replica) {
      try {
        const value = await fn(replica.pool, 'standby');
        this.opts.observer?.read('standby');
        return { value, target: 'standby' };
      } catch (err) {
        if (!isConnectionLevel(err)) throw err;
        replica.up = false;
        this.opts.observer?.fallback('error');
        this.opts.log?.warn(
          { replica: replica.name, err: (err as Error).message },
          'standby read failed: read again on the primary',
        );
      }
    }
    const value = await fn(this.primary, 'primary');
    this.opts.observer?.read('primary');
    return { value, target: 'primary' };
  }

  private async choose(token: Lsn | undefined): Promise<Replica | undefined> {
    const n = this.replicas.length;
    const start = this.next++ % n;
    const order = Array.from({ length: n }, (_, i) => this.replicas[(start + i) % n]!);
    const up = order.filter((r) => r.up);
    if (!up.length) {
      this.opts.observer?.fallback('down');
      return undefined;
    }
    if (token === undefined) {
      const fresh = up.find((r) => r.lagMs !== undefined && r.lagMs <= this.opts.maxLagMs);
      if (!fresh) this.opts.observer?.fallback('lag');
      return fresh;
    }
    const ready = up.find((r) => r.replayed !== undefined && r.replayed >= token);
    if (ready) return ready;
    // None has replayed the token yet: wait, boundedly, for the one furthest ahead.
    const ahead = up.reduce((a, b) => ((b.replayed ?? 0n) > (a.replayed ?? 0n) ? b : a));
    const began = process.hrtime.bigint();
    const ok = await ahead.waitFor(token, Date.now() + this.opts.tokenWaitMs);
    const seconds = Number(process.hrtime.bigint() - began) / 1e9;
    this.opts.observer?.tokenWait(ok ? 'standby' : 'primary', seconds);
    if (!ok) this.opts.observer?.fallback('token');
    return ok ? ahead : undefined;
  }
}

/**
 * Errors of the standby itself rather than of the read: a lost or refused connection, a timeout,
 * PostgreSQL shutting down, a recovery conflict (40001 on a standby cancels a query whose rows
 * replay removed), or "too many connections". A read that fails for its own reasons (bad input that
 * slipped through) would fail on the primary too, and is not hidden by running it twice.
 */
function isConnectionLevel(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  if (code === undefined) return true; // node-postgres's own: connection ended, timeout
  return (
    /^(08|57P|53)/.test(code) || // connection exception, operator intervention, insufficient resources
    code === '40001' ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code === 'EPIPE'
  );
}
