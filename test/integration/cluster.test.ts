import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { QUEUES, type QueueName } from '../../common/queues/index.js';
import { offenseJobRows } from '../helpers/reports.js';
import { reconcileOutbox } from '../../common/queues/reconcile.js';
import { parseShardList, shardOf } from '../../common/queues/shards.js';
import { openQueues, provideBackends } from '../../common/runtime.js';
import { startRedisCluster, type RedisClusterHandle } from '../../common/services/redis-cluster.js';
import { StartupError } from '../../common/startup.js';
import { enrichmentProcessor } from '../../worker/processors/enrichment.js';
import { reviewProcessor } from '../../worker/processors/review.js';
import { startWorker, type RunningWorker } from '../../worker/run.js';
import { createTenant, createTestPlayer, startTestApi, type Tenant, type TestApi } from '../helpers/app.js';
import { eventually } from '../helpers/http-server.js';
import { ownDatabase, testServices } from '../helpers/services.js';

/**
 * Issue 22, queues sharded over a Redis Cluster: a 3-master cluster (a replica each) from Debian's
 * redis-server, QUEUE_SHARDS=6. Every job of a player goes to the player's shard; the shards spread
 * over the masters; every report answered 201 gets its case and its enrichment exactly once, also
 * when Redis loses acknowledged jobs and when a master is killed under load and its replica takes
 * over. A REDIS_URL naming a cluster node as one server is refused at start. This suite has a
 * database of its own (the reconciler reads the whole outbox).
 */
describe('Queues sharded over a Redis Cluster', function () {
  this.timeout(180_000);
  const SHARDS = 6;
  let dir: string;
  let cluster: RedisClusterHandle;
  let api: TestApi;
  let tenant: Tenant;
  let workers: RunningWorker[] = [];
  let db: Awaited<ReturnType<typeof ownDatabase>> | undefined;
  let dbUrl: string;
  const log = createLogger('silent', 'cluster-test');

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-cluster-'));
    db = await ownDatabase('cluster');
    dbUrl = db.url;
    cluster = await startRedisCluster({ dir, masters: 3, replicasPerMaster: 1 });
    api = await startTestApi({
      DATABASE_URL: dbUrl,
      REDIS_URL: cluster.url,
      QUEUE_SHARDS: String(SHARDS),
      OUTBOX_RECONCILE_INTERVAL_MS: '2000',
      OUTBOX_RELAY_INTERVAL_MS: '200',
    });
    tenant = await createTenant(api.pool, 'Cluster');
    workers = [
      await startWorker(api.config, QUEUES.review, reviewProcessor, log),
      await startWorker(api.config, QUEUES.enrichment, enrichmentProcessor, log),
    ];
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api?.close();
    await cluster?.stop();
    await db?.drop();
    if (!process.env.KEEP_CLUSTER_DIR) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Files a report (retrying 503 and dropped connections, as a careful client does); its offense id. */
  async function report(serviceId: string, n: number): Promise<string> {
    const key = `c-${serviceId}-${n}`;
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await fetch(`${api.url}/v1/toxicity/submitReport/${serviceId}`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({
          report: {
            isToxic: true,
            severity: 'low',
            matchId: `m${n}`,
            evidence: [{ type: 'text', content: `line ${n}` }],
          },
        }),
      }).catch(() => undefined);
      if (res?.status === 201 || res?.status === 200)
        return ((await res.json()) as { report: { _id: string } }).report._id;
      expect([undefined, 503, 409], `report answered ${res?.status}`).to.include(res?.status);
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`report ${key} never accepted`);
  }
  /** Each offense: cases it is in, whether its evidence is enriched. */
  const done = async (ids: string[]) => {
    const { rows } = await api.pool.query<{ id: string; cases: number; enriched: boolean }>(
      `SELECT o.id, (SELECT count(*)::int FROM case_offenses co WHERE co.offense_id = o.id) AS cases,
              NOT EXISTS (SELECT 1 FROM jsonb_array_elements(o.evidence) e WHERE NOT e ? 'enrichment') AS enriched
         FROM offenses o WHERE o.id = ANY($1::uuid[])`,
      [ids],
    );
    return rows;
  };
  const allDone = (ids: string[], ms = 60_000) =>
    eventually(
      `all ${ids.length} offenses filed into one case and enriched`,
      async () => {
        const rows = await done(ids);
        return (rows.length === ids.length && rows.every((o) => o.cases === 1 && o.enriched)) || undefined;
      },
      ms,
    );

  it("every job of a player goes to the player's shard; shards spread over the masters; each report's jobs run once", async () => {
    const players = await Promise.all(Array.from({ length: 24 }, () => createTestPlayer(api.pool)));
    const ids = (
      await Promise.all(
        players.map(async (p) => [await report(p.serviceId, 1), await report(p.serviceId, 2)]),
      )
    ).flat();
    await allDone(ids);
    // A job names the offenses of a batch of reports on one shard: every player it names is of the
    // shard it was sent to.
    const { rows } = await api.pool.query<{
      shard: number;
      sent: boolean;
      players: string[];
      offenses: string[];
    }>(
      `SELECT ob.shard, ob.sent_at IS NOT NULL AS sent, array_agg(x.player_id::text) AS players,
              array_agg(x.id::text) AS offenses
         FROM outbox ob CROSS JOIN jsonb_array_elements_text(ob.payload->'offenseIds') e(id)
         JOIN offenses x ON x.id = e.id::uuid
        WHERE ob.payload->'offenseIds' ?| $1::text[] GROUP BY ob.id`,
      [ids],
    );
    expect(rows.flatMap((r) => r.offenses).sort(), 'each offense in one job of each queue').to.deep.equal(
      [...ids, ...ids].sort(),
    );
    expect(new Set(rows.flatMap((r) => r.players)).size).to.equal(24);
    for (const r of rows) {
      expect(r.sent).to.equal(true);
      for (const player of r.players) expect(r.shard, `player ${player}`).to.equal(shardOf(player, SHARDS));
    }
    const used = new Set(rows.map((r) => r.shard));
    expect(used.size, 'shards used').to.be.greaterThan(2);
    // Each shard's prefix is hash-tagged: all its keys in one slot; the slots sit on different masters.
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, log);
    if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
    try {
      expect(queues.prefixes).to.deep.equal(
        Array.from({ length: SHARDS }, (_, k) => `{${api.config.queuePrefix}:${k}}`),
      );
      const owners = new Set<string>();
      for (const prefix of queues.prefixes) {
        const slot = (await redis.call('CLUSTER', 'KEYSLOT', `${prefix}:x`)) as number;
        const shards = (await redis.call('CLUSTER', 'SHARDS')) as unknown[];
        const owner = shards.findIndex((s) => {
          const slots = (s as unknown[])[1] as number[];
          for (let i = 0; i < slots.length; i += 2)
            if (slot >= slots[i]! && slot <= slots[i + 1]!) return true;
          return false;
        });
        owners.add(String(owner));
      }
      expect(owners.size, 'masters holding shards').to.be.greaterThan(1);
      // Exactly once: each offense is in one completed job of each queue in all (a job id is unique
      // within its queue, and no other shard holds it).
      for (const name of [QUEUES.review, QUEUES.enrichment]) {
        const named: string[] = [];
        for (const q of queues.named(name))
          for (const job of await q.getJobs(['completed'], 0, -1))
            for (const id of (job.data?.offenseIds as string[] | undefined) ?? [])
              if (ids.includes(id)) named.push(id);
        expect(named.sort(), name).to.deep.equal([...ids].sort());
      }
      const { rows: cases } = await api.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM review_cases c WHERE c.reports_count <> 2`,
      );
      expect(cases[0]!.n, "cases with other than their player's 2 reports").to.equal(0);
    } finally {
      await queues.close();
      redis.disconnect();
    }
  });

  it('the rate limiter counts in the cluster: answers carry RateLimit, and over the limit is a 429', async () => {
    const limited = await startTestApi({
      DATABASE_URL: dbUrl,
      REDIS_URL: cluster.url,
      QUEUE_SHARDS: String(SHARDS),
      RATE_LIMIT_READS_PER_SECOND: '3',
      RATE_LIMIT_READS_BURST: '0',
    });
    try {
      const player = await createTestPlayer(limited.pool);
      // The client connects in the background: the first checks may go through unlimited.
      await eventually('the limiter answers', async () => {
        const res = await fetch(`${limited.url}/v1/player/${player.serviceId}`, { headers: tenant.headers });
        await res.arrayBuffer();
        return res.status === 429 || undefined;
      });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${limited.url}/v1/player/${player.serviceId}`, { headers: tenant.headers });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status === 200) expect(res.headers.get('ratelimit')).to.match(/r=\d+/);
      }
      expect(statuses).to.include(429);
      const metrics = await (await fetch(`${limited.url}/metrics`)).text();
      expect(metrics).to.match(/player_trust_rate_limiter_unavailable_total\{group="reads"\} 0/);
    } finally {
      await limited.close();
    }
  });

  it('a worker serves only the shards WORKER_SHARDS names; the others wait for theirs', async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    const low = parseShardList('0-2', SHARDS);
    const partial = { ...api.config, workerShards: low };
    workers = [
      await startWorker(partial, QUEUES.review, reviewProcessor, log),
      await startWorker(partial, QUEUES.enrichment, enrichmentProcessor, log),
    ];
    const players = await Promise.all(Array.from({ length: 16 }, () => createTestPlayer(api.pool)));
    const ids = await Promise.all(players.map((p) => report(p.serviceId, 1)));
    const rows = await eventually('all sent', async () => {
      const found = await offenseJobRows(api.pool, ids);
      return (found.every((r) => r.sent) && found) || undefined;
    });
    const reviews = rows.filter((r) => r.queue === QUEUES.review);
    const served = reviews.filter((r) => low.includes(r.shard!)).flatMap((r) => r.payload.offenseIds!);
    const waiting = reviews.filter((r) => !low.includes(r.shard!)).flatMap((r) => r.payload.offenseIds!);
    expect([...served, ...waiting].sort()).to.deep.equal([...ids].sort());
    expect(served.length, 'reports on shards 0-2').to.be.greaterThan(0);
    expect(waiting.length, 'reports on shards 3-5').to.be.greaterThan(0);
    await allDone(served);
    await new Promise((r) => setTimeout(r, 500));
    expect(
      (await done(waiting)).filter((o) => o.cases > 0),
      'shards 3-5 untouched',
    ).to.deep.equal([]);
    // Their own workers come: they are done too.
    const high = { ...api.config, workerShards: parseShardList('3-5', SHARDS) };
    workers.push(
      await startWorker(high, QUEUES.review, reviewProcessor, log),
      await startWorker(high, QUEUES.enrichment, enrichmentProcessor, log),
    );
    await allDone(waiting);
  });

  it('jobs the cluster lost after acknowledging them are re-added to their shard and run once', async () => {
    const player = await createTestPlayer(api.pool);
    const { rows: found } = await api.pool.query<{ id: string }>(
      'SELECT id FROM players WHERE service_id = $1',
      [player.serviceId],
    );
    const shard = shardOf(found[0]!.id, SHARDS);
    const { redis, queues } = openQueues(api.config, api.config.redisUrl!, log);
    // The workers wait, so the jobs are lost before they run.
    for (const w of workers) for (const bw of w.workers) await bw.pause();
    try {
      const ids = [await report(player.serviceId, 1), await report(player.serviceId, 2)];
      // One report at a time: a batch each, its two jobs on the player's shard.
      const sent = await eventually('both sent', async () => {
        const rows = await offenseJobRows(api.pool, ids);
        return (rows.length === 4 && rows.every((r) => r.sent && r.shard === shard) && rows) || undefined;
      });
      for (const row of sent) {
        const held = await queues.shards[shard]![row.queue as QueueName].getJob(row.job_id);
        expect(held, row.job_id).to.not.equal(undefined);
        await held!.remove();
      }
      // Lost: removed from the cluster while the outbox says sent. A pass of the reconciler re-adds
      // them: this one, or the API's own (every 2 s here), whichever comes first; the later one finds
      // them held again (same ids), so between them the four come back once and run once.
      const readded = await reconcileOutbox(api.pool, queues, { windowSeconds: 3600 });
      expect(readded).to.be.at.most(4);
      for (const w of workers) for (const bw of w.workers) bw.resume();
      await allDone(ids);
      // Re-added to the shard they were sent to, under their ids.
      for (const row of sent)
        expect(
          await queues.shards[shard]![row.queue as QueueName].getJobState(row.job_id),
          row.job_id,
        ).to.equal('completed');
    } finally {
      for (const w of workers) for (const bw of w.workers) bw.resume();
      await queues.close();
      redis.disconnect();
    }
  });

  async function killMasterUnderLoad(freezeReplica: boolean) {
    const players = await Promise.all(Array.from({ length: 12 }, () => createTestPlayer(api.pool)));
    await cluster.waitHealthy(30_000);
    const logsFrom = api.logs.lines.length;
    const victim = (await cluster.masterPorts())[0]!;
    const replica = (await cluster.replicasOf(victim))[0];
    const accepted: string[] = [];
    let load = true;
    const loaders = players.map(async (p, i) => {
      for (let n = 0; load && n < 60; n++) {
        accepted.push(await report(p.serviceId, 1000 + n));
        await new Promise((r) => setTimeout(r, 20 + i));
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    // Frozen, the replica copies nothing more: what the master acknowledges from now on is lost
    // when the replica takes over.
    if (freezeReplica && replica) process.kill(cluster.pid(replica)!, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, freezeReplica ? 1000 : 300));
    process.kill(cluster.pid(victim)!, 'SIGKILL');
    if (freezeReplica && replica) {
      await new Promise((r) => setTimeout(r, 300));
      process.kill(cluster.pid(replica)!, 'SIGCONT');
    }
    await new Promise((r) => setTimeout(r, 1500));
    load = false;
    await Promise.all(loaders);
    await cluster.waitHealthy(30_000, { replicas: false });
    expect(await cluster.masterPorts()).to.not.include(victim);
    await allDone(accepted, 90_000);
    const rows = await done(accepted);
    expect(rows.filter((r) => r.cases !== 1)).to.deep.equal([]);
    const readded = api.logs.lines
      .slice(logsFrom)
      .filter((l) => String(l.msg).startsWith('redis restarted, failed over'))
      .map((l) => l.readded);
    process.stdout.write(
      `      ${accepted.length} reports accepted across the failover; each filed once and enriched (reconciler passes re-added ${JSON.stringify(readded)})\n`,
    );
    await cluster.restart(victim);
    await cluster.waitHealthy(30_000);
  }

  it('a master SIGKILLed under report load: its replica takes over; every report answered 201 gets its case and enrichment once', () =>
    killMasterUnderLoad(false));

  it('the same with the replica frozen first, so the master acknowledged jobs the replica never had', () =>
    killMasterUnderLoad(true));

  it('a cluster node given as a single server is refused at start, naming CROSSSLOT and the fix', async () => {
    const node = `redis://127.0.0.1:${(await cluster.masterPorts())[0]}`;
    const config = parseConfig({
      ...process.env,
      DATABASE_URL: dbUrl,
      REDIS_URL: node,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    });
    const err = await provideBackends(config, log, { migrate: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(StartupError);
    expect((err as Error).message)
      .to.match(/CROSSSLOT/)
      .and.match(/REDIS_CLUSTER=true/);
    // The other way round: a plain server named as a cluster.
    const plain = parseConfig({
      ...process.env,
      DATABASE_URL: dbUrl,
      REDIS_URL: (await testServices()).redisUrl,
      REDIS_CLUSTER: 'true',
      NODE_ENV: 'test',
    });
    const err2 = await provideBackends(plain, log, { migrate: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err2 as Error).message).to.match(/not a Redis Cluster node/);
  });
});
