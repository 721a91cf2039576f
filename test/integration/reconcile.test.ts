import { summarizeRestrictionJob } from '../../common/usecases/conduct.js';
import { UnrecoverableError, Worker } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { startTestWorker } from '../helpers/workers.js';
import { createLogger } from '../../common/logger.js';
import { QUEUES, type QueueName } from '../../common/queues/index.js';
import { offenseJobRows } from '../helpers/reports.js';
import { epochKey, reconcileOutbox, startReconciler } from '../../common/queues/reconcile.js';
import { openQueues } from '../../common/runtime.js';
import { type RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  fileBatch,
  startTestApi,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { eventually } from '../helpers/http-server.js';
import { call } from '../helpers/http.js';
import { ownDatabase } from '../helpers/services.js';
import { saveAccount } from '../../common/data/repos/transparency.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';

/**
 * Issue 22: Redis may lose jobs it acknowledged (a crash cuts the last second of its append-only
 * file, a master fails over before its replica copied the write). The outbox rows are then marked
 * sent and nothing ever added them again. The reconciler re-adds every sent row whose effect is not
 * recorded as done, under its own job id. This suite has a database of its own: the reconciler reads
 * the whole outbox, which other suites share under other queue prefixes.
 */
describe('outbox reconciler: no accepted work lost when Redis loses acknowledged jobs', function () {
  this.timeout(60_000);
  let api: TestApi;
  let tenant: Tenant;
  let workers: RunningWorker[] = [];
  let db: Awaited<ReturnType<typeof ownDatabase>>;

  before(async () => {
    db = await ownDatabase('reconcile');
    api = await startTestApi({ DATABASE_URL: db.url });
    tenant = await createTenant(api.pool, 'Reconcile');
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api.close();
    await db.drop();
  });

  async function report(serviceId: string, n: number): Promise<string> {
    const res = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/toxicity/submitReport/${serviceId}`,
      {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: tenant.headers,
        json: {
          report: {
            isToxic: true,
            severity: 'low',
            matchId: `m${n}`,
            evidence: [{ type: 'text', content: `line ${n}` }],
          },
        },
      },
    );
    expect(res.status, res.text).to.equal(201);
    return res.body.report._id;
  }
  const allSent = (ids: string[]) =>
    eventually('every outbox row sent', async () => {
      const rows = await offenseJobRows(api.pool, ids);
      return rows.every((r) => r.sent) || undefined;
    });
  /** What Redis loses: the jobs of these offenses, acknowledged and marked sent. */
  async function lose(queues: ReturnType<typeof openQueues>['queues'], ids: string[]) {
    const rows = await offenseJobRows(api.pool, ids);
    expect(rows.length, 'two jobs a batch').to.be.greaterThan(1);
    for (const row of rows) {
      const held = await queues.shards[queues.shardFor(row)]![row.queue as QueueName].getJob(row.job_id);
      expect(held, `job ${row.job_id} in Redis before the loss`).to.not.equal(undefined);
      await held!.remove();
    }
    return rows.length;
  }
  const done = async (ids: string[]) => {
    const { rows } = await api.pool.query<{ id: string; cases: number; enriched: boolean }>(
      `SELECT o.id, (SELECT count(*)::int FROM case_offenses co WHERE co.offense_id = o.id) AS cases,
              NOT EXISTS (SELECT 1 FROM jsonb_array_elements(o.evidence) e WHERE NOT e ? 'enrichment') AS enriched
         FROM offenses o WHERE o.id = ANY($1::uuid[]) ORDER BY o.id`,
      [ids],
    );
    return rows;
  };
  const startWorkers = async () => {
    workers = [await startTestWorker(api.config, 'review'), await startTestWorker(api.config, 'enrichment')];
  };

  it('re-adds exactly the lost jobs whose effect is not done, under their ids; each effect happens once', async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    try {
      const player = await createTestPlayer(api.pool);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await report(player.serviceId, i));
      await allSent(ids);
      const [lost, kept] = [ids.slice(0, 2), ids.slice(2)];
      await lose(queues, lost);
      await startWorkers();
      await eventually(
        'the kept jobs done',
        async () => (await done(kept)).every((o) => o.cases === 1 && o.enriched) || undefined,
      );
      // Nothing would ever run the lost ones: they are marked sent.
      expect((await done(lost)).map((o) => [o.cases, o.enriched])).to.deep.equal([
        [0, false],
        [0, false],
      ]);

      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.equal(4);
      await eventually(
        'the lost jobs done',
        async () => (await done(ids)).every((o) => o.cases === 1 && o.enriched) || undefined,
      );
      const { rows } = await api.pool.query<{ reports_count: number }>(
        `SELECT c.reports_count FROM review_cases c JOIN players p ON p.id = c.player_id WHERE p.service_id = $1`,
        [player.serviceId],
      );
      expect(rows).to.deep.equal([{ reports_count: 4 }]); // one case, each report counted once
      // Everything done: a second pass re-adds nothing.
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.equal(0);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it("a lost job of a bulk request's batch is re-added once and files every offense it names", async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    try {
      const players = await Promise.all([1, 2, 3].map(() => createTestPlayer(api.pool)));
      const ids = await fileBatch(
        api.url,
        tenant,
        players.map((p, n) => ({
          kind: 'toxicity',
          serviceId: p.serviceId,
          report: { isToxic: true, severity: 'low', evidence: [{ type: 'text', content: `bulk ${n}` }] },
        })),
      );
      await allSent(ids);
      // One job a queue names the three offenses.
      expect(await lose(queues, ids)).to.equal(2);
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.equal(2);
      await startWorkers();
      await eventually(
        'every offense of the batch done',
        async () => (await done(ids)).every((o) => o.cases === 1 && o.enriched) || undefined,
      );
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.equal(0);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  /** A moderator's ban, with the operator's account in dry run: it owes a statement (its job's row). */
  async function banOwingAStatement() {
    await saveAccount(api.pool, { platform: 'operator', mode: 'dry-run', baseUrl: null, tokenSealed: null });
    const mod = await createTestModerator(api);
    const player = await createTestPlayer(api.pool);
    const placed = await call<{ id: string }>(
      api.url,
      'POST',
      `/v1/admin/players/${player.serviceId}/sanctions`,
      {
        spec: '/v1/admin/players/{serviceId}/sanctions',
        headers: mod.headers,
        json: { type: 'permanent_ban', reason: 'x' },
      },
    );
    expect(placed.status, placed.text).to.equal(201);
    // Its conduct summaries' job (no review worker runs here) done now: the statement's is the one at stake.
    await summarizeRestrictionJob(api.pool, placed.body.id, new Date(), api.config.strikeLadder);
    return placed;
  }

  it('a lost job of statements to the Transparency Database is re-added while its platform has any pending', async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    try {
      const placed = await banOwingAStatement();
      const row = await eventually('the statements job sent', async () => {
        const { rows } = await api.pool.query<{ job_id: string }>(
          `SELECT o.job_id FROM outbox o JOIN transparency_statements t ON o.job_id = 'tdb-' || t.id
            WHERE t.sanction_id = $1 AND o.sent_at IS NOT NULL`,
          [placed.body.id],
        );
        return rows[0];
      });
      // Redis loses it (no worker ran it): the statement would wait for ever.
      await (await queues.shards[0]![QUEUES.webhooks].getJob(row.job_id))!.remove();
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.equal(1);
      expect(await queues.shards[0]![QUEUES.webhooks].getJob(row.job_id)).to.not.equal(undefined);
      workers.push(await startTestWorker(api.config, 'webhooks'));
      await eventually('the statement sent', async () => {
        const { rows } = await api.pool.query<{ state: string }>(
          'SELECT state FROM transparency_statements WHERE sanction_id = $1',
          [placed.body.id],
        );
        return rows[0]?.state === 'sent';
      });
      // Nothing pending: a second pass re-adds nothing.
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.equal(0);
    } finally {
      await api.pool.query(`DELETE FROM transparency_accounts WHERE platform = 'operator'`);
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it('a job Redis holds as completed while its work is not done is run again, not left under its id', async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    try {
      const placed = await banOwingAStatement();
      const state = async () =>
        (
          await api.pool.query<{ state: string }>(
            'SELECT state FROM transparency_statements WHERE sanction_id = $1',
            [placed.body.id],
          )
        ).rows[0]?.state;
      workers.push(await startTestWorker(api.config, 'webhooks'));
      await eventually('the statement sent', async () => (await state()) === 'sent');
      const { rows } = await api.pool.query<{ job_id: string }>(
        `SELECT o.job_id FROM outbox o JOIN transparency_statements t ON o.job_id = 'tdb-' || t.id
          WHERE t.sanction_id = $1`,
        [placed.body.id],
      );
      const job = () => queues.shards[0]![QUEUES.webhooks].getJob(rows[0]!.job_id);
      await eventually('the job completed', async () => (await (await job())?.getState()) === 'completed');
      // Its work is found not done (a job of an earlier release completed too early, or a claim of a
      // worker that died): re-adding under the completed id alone would be a no-op for ever.
      await api.pool.query(
        `UPDATE transparency_statements SET state = 'pending', sent_at = NULL WHERE sanction_id = $1`,
        [placed.body.id],
      );
      // (The earlier statements job of this platform counts too: any pending statement is its work.)
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.be.at.least(1);
      await eventually('the statement sent again', async () => (await state()) === 'sent');
    } finally {
      await api.pool.query(`DELETE FROM transparency_accounts WHERE platform = 'operator'`);
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it('a lost erasure job is re-added while its erasure is pending, and the erasure is done once', async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    try {
      const admin = await createTestModerator(api, 'admin');
      const player = await createTestPlayer(api.pool);
      const asked = await call<{ id: string; state: string }>(
        api.url,
        'POST',
        `/v1/admin/players/${player.serviceId}/erasure`,
        { spec: '/v1/admin/players/{serviceId}/erasure', headers: admin.headers },
      );
      expect([asked.status, asked.body.state]).to.deep.equal([202, 'pending']);
      const row = await eventually('the erasure job sent', async () => {
        const { rows } = await api.pool.query<{ job_id: string }>(
          `SELECT job_id FROM outbox WHERE payload->>'erasureId' = $1 AND sent_at IS NOT NULL`,
          [asked.body.id],
        );
        return rows[0];
      });
      // Redis loses it before any worker ran it: before, the erasure stayed pending for ever.
      await (await queues.shards[0]![QUEUES.review].getJob(row.job_id))!.remove();
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.be.at.least(1);
      expect(await queues.shards[0]![QUEUES.review].getJob(row.job_id)).to.not.equal(undefined);
      workers.push(await startTestWorker(api.config, 'review'));
      await eventually('the erasure done', async () => {
        const { rows } = await api.pool.query<{ state: string }>('SELECT state FROM erasures WHERE id = $1', [
          asked.body.id,
        ]);
        return rows[0]?.state === 'done';
      });
      // Done: a second pass has nothing of it to re-add.
      const again = await api.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox WHERE payload->>'erasureId' = $1`,
        [asked.body.id],
      );
      expect(again.rows[0]!.n).to.equal(1);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it('a lost job of matches is re-added until every match it carries is recorded, and each is recorded once', async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    try {
      const player = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: tenant.game.clientId });
      const matchId = `lost-${Date.now()}`;
      const now = Date.now();
      const sent = await call<{ accepted: number }>(api.url, 'POST', '/v1/matches', {
        spec: '/v1/matches',
        headers: tenant.headers,
        json: {
          matches: [
            {
              matchId,
              mode: 'ranked',
              startedAt: new Date(now - 600_000).toISOString(),
              endedAt: new Date(now).toISOString(),
              players: [{ serviceId: player.serviceId, team: 'a', result: 'win' }],
            },
          ],
        },
      });
      expect(sent.body.accepted).to.equal(1);
      const row = await eventually('the matches job sent', async () => {
        const { rows } = await api.pool.query<{ job_id: string }>(
          `SELECT job_id FROM outbox WHERE job_name = 'record-matches' AND payload->'matches'->0->>'matchId' = $1
              AND sent_at IS NOT NULL`,
          [matchId],
        );
        return rows[0];
      });
      // Redis loses it before any matches worker ran it: the accepted match would never be recorded.
      await (await queues.shards[0]![QUEUES.matches].getJob(row.job_id))!.remove();
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.be.at.least(1);
      expect(await queues.shards[0]![QUEUES.matches].getJob(row.job_id)).to.not.equal(undefined);
      workers.push(await startTestWorker(api.config, 'matches'));
      const count = async () =>
        (
          await api.pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM matches WHERE studio_id = $1 AND match_id = $2',
            [tenant.studioId, matchId],
          )
        ).rows[0]!.n;
      await eventually('the match recorded', async () => (await count()) === 1);
      // Recorded: a second pass re-adds nothing of it, and nothing is recorded twice.
      const again = await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 });
      const held = await queues.shards[0]![QUEUES.matches].getJob(row.job_id);
      expect(again).to.equal(0);
      expect(await held?.getState()).to.equal('completed');
      expect(await count()).to.equal(1);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it('a Redis that restarted (its run id is not the one reconciled against) is reconciled at once', async () => {
    const log = createLogger('silent', 'r');
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, log);
    let stop = async () => undefined as void;
    try {
      const player = await createTestPlayer(api.pool);
      const ids = [await report(player.serviceId, 1), await report(player.serviceId, 2)];
      await allSent(ids);
      await lose(queues, ids);
      // The server's run id as last reconciled against is another's (a restart or a failover).
      await redis.set(epochKey(api.config.queuePrefix), 'an-earlier-server');
      await startWorkers();
      stop = startReconciler(api.pool, queues, redis, log, {
        prefix: api.config.queuePrefix,
        intervalMs: 3_600_000,
        restartWindowSeconds: 3600,
        checkIntervalMs: 100,
      });
      await eventually(
        'the lost jobs done',
        async () => (await done(ids)).every((o) => o.cases === 1 && o.enriched) || undefined,
      );
      const info = await redis.info('server');
      expect(await redis.get(epochKey(api.config.queuePrefix))).to.equal(/^run_id:(\w+)/m.exec(info)![1]);
    } finally {
      await stop();
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it("a rollback: a previous release's worker fails a batch job for good; the reconciler retries it and each offense is filed once", async () => {
    const log = createLogger('silent', 'r');
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, log);
    const connection = new Redis(api.config.redisUrl!, { maxRetriesPerRequest: null });
    // The worker of the release before batch jobs: it knew one-offense jobs only, and failed any
    // other payload for good (its parseOffenseJob).
    const previous = new Worker(
      QUEUES.review,
      async (job) => {
        if (typeof (job.data as { offenseId?: unknown }).offenseId !== 'string')
          throw new UnrecoverableError(`job ${job.id} has no valid offenseId`);
      },
      { connection, prefix: queues.prefixes[0]! },
    );
    try {
      const player = await createTestPlayer(api.pool);
      const ids = [await report(player.serviceId, 1), await report(player.serviceId, 2)];
      await allSent(ids);
      const reviewRows = (await offenseJobRows(api.pool, ids)).filter((r) => r.queue === QUEUES.review);
      const failed = () =>
        Promise.all(
          reviewRows.map(async (r) =>
            queues.shards[queues.shardFor(r)]![QUEUES.review].getJobState(r.job_id),
          ),
        );
      await eventually('the batch jobs failed by the previous worker', async () =>
        (await failed()).every((state) => state === 'failed'),
      );
      await previous.close();
      // Rolled forward again: a worker that knows batch jobs, and the reconciler's pass.
      await startWorkers();
      expect((await done(ids)).map((o) => o.cases)).to.deep.equal([0, 0]);
      expect(await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 })).to.be.greaterThan(0);
      await eventually(
        'every offense filed',
        async () => (await done(ids)).every((o) => o.cases === 1) || undefined,
      );
      const { rows } = await api.pool.query<{ reports_count: number }>(
        `SELECT c.reports_count FROM review_cases c JOIN players p ON p.id = c.player_id WHERE p.service_id = $1`,
        [player.serviceId],
      );
      expect(rows).to.deep.equal([{ reports_count: 2 }]);
    } finally {
      await previous.close();
      connection.disconnect();
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });

  it("this release's worker puts a job of a kind it does not know (a newer release's) back for a worker that does, unspent", async () => {
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, createLogger('silent', 'q'));
    await startWorkers();
    try {
      const queue = queues.shards[0]![QUEUES.review];
      const job = await queue.add(
        'review-offenses-v3',
        { offenseIds: [] },
        { jobId: `future-${Date.now()}` },
      );
      await eventually('the job put back', async () => (await queue.getJobState(job.id!)) === 'delayed');
      const back = (await queue.getJob(job.id!))!;
      expect(back.attemptsMade).to.equal(0);
      expect(back.failedReason ?? null).to.equal(null);
      await back.remove();
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      await queues.close();
      redis.disconnect();
    }
  });
});
