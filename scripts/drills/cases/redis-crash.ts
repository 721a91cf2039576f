import path from 'node:path';
import { DrillRig, underLoad, sleep, type DrillCase } from '../harness.js';

/**
 * A machine crash under Redis: SIGKILLed under load with the last second cut from its append-only
 * file, so jobs Redis acknowledged (their outbox rows marked sent) are gone. The reconciler sees the
 * restarted server's new run id and re-adds them: every report answered 201 is filed and enriched,
 * exactly once.
 */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    let skipped = false;
    const r = await underLoad(rig, opts, 'redis-crash', async () => {
      // The workers are held (SIGSTOP) over the crash, as a busy service's backlog would be: the jobs
      // Redis acknowledged in its last second are then only in Redis when it loses them.
      const workers = (['enrichment', 'review'] as const).map((k) => rig.procs.get(k)!.child);
      for (const w of workers) w.kill('SIGSTOP');
      let crash: Awaited<ReturnType<DrillRig['crashRedis']>>;
      try {
        crash = await rig.crashRedis(1000, Math.min(opts.faultSeconds, 3) * 1000);
      } finally {
        for (const w of workers) w.kill('SIGCONT');
      }
      if (!crash) {
        skipped = true;
        return { lines: ['not run: Redis is not the drill’s own (REDIS_URL is set)'], checks: [] };
      }
      await sleep(Math.max(0, opts.faultSeconds - 3) * 1000);
      const reconciled = rig
        .logLines('api')
        .filter((l) => String(l.msg).startsWith('redis restarted, failed over or was emptied'));
      return {
        lines: [
          `Redis SIGKILLed under load; ${crash.cutBytes} bytes (its last second) cut from ${path.basename(crash.file)}; restarted on the same port and folder`,
          `reconciler passes (jobs whose effect was not done, re-sent under their ids): ${reconciled.map((l) => String(l.readded)).join(', ') || 'none yet'}`,
        ],
        checks: [
          {
            name: 'acknowledged writes were lost',
            ok: crash.cutBytes > 0,
            detail: `${crash.cutBytes} bytes cut`,
          },
        ],
      };
    });
    return {
      what: skipped
        ? 'Redis crash (skipped: needs the drill’s own Redis)'
        : 'SIGKILL Redis under load with its last second of AOF lost (a machine crash), restart it',
      ...r,
    };
  },
};
export default drill;
