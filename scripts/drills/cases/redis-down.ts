import { underLoad, sleep, fmt, type DrillCase } from '../harness.js';

/** Redis unreachable: reports keep being accepted, the outbox holds their jobs, the relay sends them after. */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const window = { from: 0, to: 0 };
    let maxBacklog = 0;
    const r = await underLoad(rig, opts, 'redis-down', async (load) => {
      window.from = Date.now();
      await rig.redisProxy.cut();
      const until = Date.now() + opts.faultSeconds * 1000;
      while (Date.now() < until) {
        const { rows } = await rig.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL',
        );
        maxBacklog = Math.max(maxBacklog, rows[0]!.n);
        await sleep(250);
      }
      await rig.redisProxy.open();
      window.to = Date.now();
      const during = load.attemptsBetween(window.from, window.to);
      const ok = during.filter((a) => a.status === 201).length;
      return {
        lines: [
          `Redis unreachable for ${fmt(window.to - window.from)}: ${during.length} requests, ${ok} answered 201, ${during.filter((a) => a.status === 503).length} answered 503; outbox backlog peaked at ${maxBacklog}`,
        ],
        checks: [
          {
            name: 'reports accepted while Redis is down',
            ok: during.length > 0 && ok === during.length,
            detail: `${ok}/${during.length} answered 201 during the outage`,
          },
        ],
      };
    });
    return { what: `Redis unreachable for ${opts.faultSeconds} s under load`, ...r };
  },
};
export default drill;
