import crypto from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createPool, type Pool } from '../../common/data/db.js';
import { createQueues, QUEUES, webhookRetryOf } from '../../common/queues/index.js';
import { offenseJobId } from '../helpers/reports.js';
import { parseConfig } from '../../common/config.js';
import { relayOutbox } from '../../common/queues/outbox.js';
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
});
