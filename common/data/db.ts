import pg from 'pg';
import type { Logger } from '../logger.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

export function createPool(url: string, max: number, log?: Logger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client's connection can drop (server restart); the pool replaces it, so only log.
  pool.on('error', (err) => log?.warn({ err: err.message }, 'idle PostgreSQL connection failed'));
  return pool;
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

export interface TxOptions {
  retries?: number;
  isolation?: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';
}

/**
 * Runs `fn` in a transaction on one client and commits; rolls back on any error. A serialization
 * failure or deadlock runs `fn` again from the start (so `fn` must only touch the database through
 * the client it is given), up to `retries` times with a short jittered pause.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: TxOptions = {},
): Promise<T> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
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
      const code = (err as { code?: string }).code;
      if (code && RETRYABLE.has(code) && attempt < retries) {
        await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 10));
        continue;
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}
