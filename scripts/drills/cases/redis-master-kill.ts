import fs from 'node:fs';
import path from 'node:path';
import { startRedisCluster, type RedisClusterHandle } from '../../../common/services/redis-cluster.js';
import {
  DrillRig,
  underLoad,
  verify,
  sleep,
  fmt,
  type DrillResult,
  type DrillCase,
  type StandaloneArgs,
} from '../harness.js';

/**
 * redis-master-kill: the queues on a 3-master Redis Cluster (a replica each, QUEUE_SHARDS=6), the API
 * and every worker as real processes under report load. A master is SIGKILLed and its replica takes
 * over; then, once the killed node is back as a replica, another master is SIGKILLed with its replica
 * frozen (SIGSTOP) first, so the master has acknowledged jobs the replica never copied: the
 * reconciler, seeing the masters' run ids change, re-adds every sent job whose effect is not done.
 * The ledger: every report answered 201 stored once, filed into its case and enriched once.
 */
export async function redisMasterKillDrill(opts: StandaloneArgs): Promise<DrillResult> {
  fs.mkdirSync(opts.dir, { recursive: true });
  let cluster: RedisClusterHandle | undefined;
  let rig: DrillRig | undefined;
  try {
    cluster = await startRedisCluster({
      dir: path.join(opts.dir, 'cluster'),
      masters: 3,
      replicasPerMaster: 1,
    });
    rig = await DrillRig.start({
      dir: opts.dir,
      env: { REDIS_URL: cluster.url, QUEUE_SHARDS: '6', OUTBOX_RECONCILE_INTERVAL_MS: '5000' },
    });
    for (const kind of ['api', 'enrichment', 'review', 'webhooks'] as const) await rig.launch(kind);
    const c = cluster;
    const r = await underLoad(rig, opts, 'redis-master-kill', async () => {
      const lines: string[] = [];
      for (const freeze of [false, true]) {
        const victim = (await c.masterPorts())[0]!;
        const replica = (await c.replicasOf(victim))[0];
        if (freeze && replica) process.kill(c.pid(replica)!, 'SIGSTOP');
        if (freeze) await sleep(1000); // the master acknowledges what the frozen replica never gets
        const killedAt = Date.now();
        process.kill(c.pid(victim)!, 'SIGKILL');
        if (freeze && replica) {
          await sleep(300);
          process.kill(c.pid(replica)!, 'SIGCONT');
        }
        await c.waitHealthy(60_000, { replicas: false });
        const tookOver = Date.now() - killedAt;
        await sleep(Math.max(0, opts.faultSeconds * 500 - tookOver));
        await c.restart(victim);
        await c.waitHealthy(60_000);
        lines.push(
          `master :${victim} SIGKILLed${freeze ? ` with its replica :${replica} frozen for 1.3 s first` : ''}; its replica served its slots after ${fmt(tookOver)}; the killed node rejoined as a replica`,
        );
      }
      return { lines, checks: [] };
    });
    const reconciled = rig
      .logLines('api')
      .filter((l) => String(l.msg).startsWith('redis restarted, failed over'))
      .map((l) => l.readded);
    r.lines.push(`outbox reconciler passes after a failover re-added: ${JSON.stringify(reconciled)}`);
    const v = await verify(rig, r.load, r.players, 90_000);
    const checks = [...r.checks, ...v.checks];
    return {
      name: 'redis-master-kill',
      what: 'SIGKILL a Redis Cluster master under report load, then another with its replica frozen first',
      lines: [...r.lines, ...v.lines],
      checks,
      ok: checks.every((x) => x.ok),
    };
  } finally {
    await rig?.stop();
    await cluster?.stop();
  }
}

const drill: DrillCase = { kind: 'standalone', run: redisMasterKillDrill };
export default drill;
