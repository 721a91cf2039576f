import { hostsOf, urlForHost, WritableHost, writableHostClient } from './hosts.js';
import pg from 'pg';
import type { Logger } from '../logger.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

export function createPool(url: string, max: number, log?: Logger): pg.Pool {
  // Several hosts (a primary and its standbys): every connection goes to the one that takes writes.
  const hosts = hostsOf(url);
  const pool = new pg.Pool({
    connectionString: hosts ? urlForHost(url, hosts[0]!) : url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    ...(hosts ? { Client: writableHostClient(new WritableHost(url, hosts)) } : {}),
  });
  // An idle client's connection can drop (server restart); the pool replaces it, so only log.
  pool.on('error', (err) => log?.warn({ err: err.message }, 'idle PostgreSQL connection failed'));
  // A checked-out client whose connection drops between queries emits 'error' on itself, which the
  // pool's listener does not cover: unhandled, it would crash the process. The query in progress (or
  // the next one) fails on its own, and the broken client is discarded when it is released.
  pool.on('connect', (client) =>
    client.on('error', (err) => log?.warn({ err: err.message }, 'PostgreSQL connection failed')),
  );
  return pool;
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

export interface TxOptions {
  retries?: number;
  isolation?: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';
}

const isRetryable = (err: unknown) => RETRYABLE.has((err as { code?: string }).code ?? '');
const pause = (attempt: number) => new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 10));

/**
 * Runs `fn` again from the start when PostgreSQL aborted it with a serialization failure or a
 * deadlock (nothing of an aborted transaction was committed), up to `retries` times with a short
 * jittered pause. For a single statement, which is its own transaction; withTransaction uses it too.
 */
export async function withRetries<T>(fn: () => Promise<T>, retries = 5): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetryable(err) || attempt >= retries) throw err;
      await pause(attempt);
    }
  }
}

/**
 * Runs `fn` in a transaction on one client and commits; rolls back on any error. A serialization
 * failure or deadlock runs `fn` again from the start (so `fn` must only touch the database through
 * the client it is given), up to `retries` times (withRetries).
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: TxOptions = {},
): Promise<T> {
  return withRetries(async () => {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query(options.isolation ? `BEGIN ISOLATION LEVEL ${options.isolation}` : 'BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection itself is gone: do not hand it back to the pool
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }, options.retries ?? 5);
}

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}
