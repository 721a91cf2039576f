import crypto from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createPool, type Pool } from '../../common/data/db.js';
import { createQueues, QUEUES, webhookRetryOf } from '../../common/queues/index.js';
import { offenseJobId } from '../helpers/reports.js';
import { parseConfig } from '../../common/config.js';
import { OutboxDispatcher, relayOutbox, writeJob, type OutboxRow } from '../../common/queues/outbox.js';
import { createLogger } from '../../common/logger.js';
import sinon from 'sinon';
import { Writable } from 'node:stream';
import { ShardedQueues } from '../../common/queues/shards.js';
import { testServices } from '../helpers/services.js';

describe('outbox relay', () => {
  let pool: Pool;
  let redis: Redis;
  let queues: ShardedQueues;

  before(async () => {
    const services = await testServices();
    pool = createPool(services.databaseUrl, 2);
    redis = new Redis(services.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `o${crypto.randomBytes(4).toString('hex')}`;
    queues = new ShardedQueues([createQueues(redis, prefix, webhookRetryOf(parseConfig({})))], [prefix]);
  });
  after(async () => {
    await queues.close();
    redis.disconnect();
    await pool.end();
  });

  it('sends the rows it can deliver, once each, and is not blocked by a row for a queue it does not know', async () => {
    const tag = crypto.randomBytes(6).toString('hex');
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    // The unknown-queue row comes first, so it would be in every batch the good rows are in.
    await pool.query(
      `INSERT INTO outbox (queue, job_name, job_id, payload, created_at)
       VALUES ('no-such-queue', 'x', $1, '{}', now() - interval '1 minute'),
              ($2, 'review-offense', $3, jsonb_build_object('offenseId', $5::text), now() - interval '1 minute'),
              ($2, 'review-offense', $4, jsonb_build_object('offenseId', $6::text), now() - interval '1 minute')`,
      [
        `${tag}-poison`,
        QUEUES.review,
        offenseJobId(QUEUES.review, ids[0]!),
        offenseJobId(QUEUES.review, ids[1]!),
        ids[0],
        ids[1],
      ],
    );
    try {
      while ((await relayOutbox(pool, queues, { minAgeMs: 0 })) > 0) {
        // drain every deliverable row, including other tests' leftovers, if any
      }
      const { rows } = await pool.query<{ job_id: string; sent: boolean }>(
        'SELECT job_id, sent_at IS NOT NULL AS sent FROM outbox WHERE job_id = ANY($1) ORDER BY job_id',
        [[`${tag}-poison`, ...ids.map((id) => offenseJobId(QUEUES.review, id))]],
      );
      const sent = Object.fromEntries(rows.map((r) => [r.job_id, r.sent]));
      expect(sent[`${tag}-poison`], 'the unknown queue stays for a relay that knows it').to.equal(false);
      for (const id of ids) {
        expect(sent[offenseJobId(QUEUES.review, id)]).to.equal(true);
        const job = await queues.shards[0]![QUEUES.review].getJob(offenseJobId(QUEUES.review, id));
        expect(job?.data).to.deep.equal({ offenseId: id });
      }
      // Sending again (a relay that died before marking rows sent) adds no second job. The queue also
      // holds what the drain above sent of other suites' leftovers: it is counted before and after.
      const held = await queues.shards[0]![QUEUES.review].count();
      await pool.query('UPDATE outbox SET sent_at = NULL WHERE job_id = ANY($1)', [
        ids.map((id) => offenseJobId(QUEUES.review, id)),
      ]);
      expect(await relayOutbox(pool, queues, { minAgeMs: 0 })).to.equal(2);
      expect(await queues.shards[0]![QUEUES.review].count()).to.equal(held);
    } finally {
      await pool.query('DELETE FROM outbox WHERE job_id = ANY($1)', [
        [`${tag}-poison`, ...ids.map((id) => offenseJobId(QUEUES.review, id))],
      ]);
    }
  });

  it('the dispatcher sends one dispatch at a time: rows committed meanwhile go together in the next, each sent once and marked', async () => {
    const review = queues.shards[0]![QUEUES.review];
    const addBulk = sinon.spy(review, 'addBulk');
    const quiet = createLogger('silent', 'test', new Writable({ write: (_c, _e, cb) => cb() }));
    const dispatcher = new OutboxDispatcher(pool, queues, quiet);
    const ids = Array.from({ length: 21 }, () => crypto.randomUUID());
    const rows: OutboxRow[] = [];
    for (const id of ids)
      rows.push(
        ...(await writeJob(pool, {
          queue: QUEUES.review,
          name: 'review-offense',
          id: offenseJobId(QUEUES.review, id),
          payload: { offenseId: id },
        })),
      );
    try {
      // The first batch's dispatch is held at its sent mark (another transaction locks its row), and
      // twenty more batches commit one by one, each in an event loop turn of its own, meanwhile.
      const holder = await pool.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM outbox WHERE id = $1 FOR UPDATE', [rows[0]!.id]);
      dispatcher.enqueue([rows[0]!]);
      while (addBulk.callCount === 0) await new Promise((r) => setTimeout(r, 5));
      for (const row of rows.slice(1)) {
        dispatcher.enqueue([row]);
        await new Promise((r) => setTimeout(r, 1));
      }
      await holder.query('COMMIT');
      holder.release();
      await dispatcher.drain();
      expect(addBulk.args.map((a) => a[0].length)).to.deep.equal([1, 20]);
      const { rows: marked } = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM outbox WHERE id = ANY($1) AND sent_at IS NOT NULL AND shard = 0',
        [rows.map((r) => r.id)],
      );
      expect(Number(marked[0]!.n)).to.equal(21);
      for (const id of ids)
        expect((await review.getJob(offenseJobId(QUEUES.review, id)))?.data).to.deep.equal({ offenseId: id });
    } finally {
      addBulk.restore();
      await pool.query('DELETE FROM outbox WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    }
  });
});
