import crypto from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createPool, isUniqueViolation, withTransaction, type Pool } from '../../common/data/db.js';
import { testServices } from '../helpers/services.js';

describe('real PostgreSQL and Redis', () => {
  let pool: Pool;
  let redisUrl: string;

  before(async () => {
    const services = await testServices();
    pool = createPool(services.databaseUrl, 5);
    redisUrl = services.redisUrl;
  });
  after(() => pool.end());

  const studioCount = async (name: string) =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM studios WHERE name = $1', [name]))
      .rows[0]!.n;

  it('a rolled-back transaction leaves no trace', async () => {
    const name = `rollback-${crypto.randomUUID()}`;
    const failed = withTransaction(pool, async (client) => {
      await client.query('INSERT INTO studios (name) VALUES ($1)', [name]);
      expect((await client.query('SELECT 1 FROM studios WHERE name = $1', [name])).rowCount).to.equal(1);
      throw new Error('abort');
    });
    const err = await failed.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('abort');
    expect(await studioCount(name)).to.equal(0);
  });

  it('a committed transaction changes two tables together', async () => {
    const name = `commit-${crypto.randomUUID()}`;
    const gameId = await withTransaction(pool, async (client) => {
      const studio = await client.query<{ id: string }>(
        'INSERT INTO studios (name) VALUES ($1) RETURNING id',
        [name],
      );
      const game = await client.query<{ id: string }>(
        `INSERT INTO games (studio_id, title, client_id, client_secret_hash) VALUES ($1, 'g', $2, '\\x00') RETURNING id`,
        [studio.rows[0]!.id, `c-${crypto.randomUUID()}`],
      );
      return game.rows[0]!.id;
    });
    const { rows } = await pool.query(
      'SELECT s.name FROM games g JOIN studios s ON s.id = g.studio_id WHERE g.id = $1',
      [gameId],
    );
    expect(rows).to.deep.equal([{ name }]);
  });

  it('a unique constraint rejects a duplicate', async () => {
    const serviceId = `dup-${crypto.randomBytes(4).toString('hex')}`;
    const insert = (tag: string) =>
      pool.query(`INSERT INTO players (service_id, full_name, gamer_tag) VALUES ($1, 'x', $2)`, [
        serviceId,
        tag,
      ]);
    await insert(`a-${serviceId}`);
    const err = await insert(`b-${serviceId}`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isUniqueViolation(err)).to.equal(true);
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM players WHERE service_id = $1',
      [serviceId],
    );
    expect(rows[0]!.n).to.equal(1);
  });

  it('the transaction helper runs the callback again after a serialization failure and commits once', async () => {
    const name = `retry-${crypto.randomUUID()}`;
    const { rows } = await pool.query<{ id: string }>('INSERT INTO studios (name) VALUES ($1) RETURNING id', [
      name,
    ]);
    const id = rows[0]!.id;
    let attempts = 0;
    // A second connection commits a change between our snapshot and our write: under REPEATABLE READ
    // that write fails with 40001, which the helper must retry.
    await withTransaction(
      pool,
      async (client) => {
        attempts++;
        await client.query('SELECT name FROM studios WHERE id = $1', [id]);
        if (attempts === 1)
          await pool.query(`UPDATE studios SET name = name || '-other' WHERE id = $1`, [id]);
        await client.query(`UPDATE studios SET name = name || '-ours' WHERE id = $1`, [id]);
      },
      { isolation: 'REPEATABLE READ' },
    );
    expect(attempts).to.equal(2);
    const after = await pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [id]);
    expect(after.rows[0]!.name).to.equal(`${name}-other-ours`);
  });

  it('a BullMQ job added to the real Redis is processed by a real worker', async () => {
    const prefix = `t${crypto.randomBytes(4).toString('hex')}`;
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue('foundation', { connection, prefix });
    let resolveDone!: (v: unknown) => void;
    const done = new Promise((r) => (resolveDone = r));
    const worker = new Worker('foundation', async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), {
      connection,
      prefix,
    });
    worker.on('completed', (_job, result) => resolveDone(result));
    try {
      await queue.add('double', { n: 21 }, { jobId: 'job-1' });
      expect(await done).to.deep.equal({ doubled: 42 });
      const job = await queue.getJob('job-1');
      expect(await job!.getState()).to.equal('completed');
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});
