import { underLoad, waitUntil, sleep, fmt, type DrillCase } from '../harness.js';

/** PostgreSQL unreachable: fast 503s, no partial writes, /readyz tells the truth, recovery unaided. */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const r = await underLoad(rig, opts, 'postgres-down', async (load) => {
      // Each poll with when it began and when its answer came.
      const readyz: { at: number; done: number; status: number | 'network' }[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const at = Date.now();
          const status = await fetch(`${rig.apiUrl}/readyz`, { signal: AbortSignal.timeout(3000) }).then(
            (res) => res.status,
            () => 'network' as const,
          );
          readyz.push({ at, done: Date.now(), status });
          await sleep(200);
        }
      })();
      const from = Date.now();
      await rig.pgProxy.cut();
      await sleep(opts.faultSeconds * 1000);
      const restoring = Date.now();
      await rig.pgProxy.open();
      const to = Date.now();
      const recovered = await waitUntil(
        '/readyz 200 again',
        async () => readyz.some((x) => x.at > to && x.status === 200),
        30_000,
      ).then(
        () => readyz.find((x) => x.at > to && x.status === 200)!.at - to,
        () => undefined,
      );
      polling = false;
      await poller;
      // Requests that began during the outage (a little after the cut, before the restore).
      const during = load.attemptsBetween(from + 500, to);
      const refused = during.filter((a) => a.status === 503);
      const slowest = Math.max(0, ...refused.map((a) => a.ms));
      // A 201 finished before the restore would mean a write without the database: must be none.
      const impossible = during.filter((a) => a.status === 201 && a.at + a.ms < to).length;
      // A poll that began during the outage but was answered after the restore may truthfully say
      // ready (the API checked PostgreSQL once it was back): only answers given while the database
      // was still unreachable count.
      const outage = readyz.filter((x) => x.at > from + 500 && x.done < restoring);
      const lies = outage.filter((x) => x.status === 200).length;
      const readyDuring = outage.length;
      return {
        lines: [
          `PostgreSQL unreachable for ${fmt(to - from)}: ${during.length} requests began meanwhile, ${refused.length} answered 503 (slowest ${slowest} ms), ${during.filter((a) => a.status === 201).length - impossible} answered 201 after the restore, ${impossible} before it`,
          `/readyz: ${readyDuring - lies}/${readyDuring} polls during the outage said 503; ready again ${recovered === undefined ? 'NEVER' : `${recovered} ms`} after the restore`,
        ],
        checks: [
          {
            name: 'fast 503 during the outage',
            ok: refused.length > 0 && slowest < 6000,
            detail: `slowest 503 took ${slowest} ms`,
          },
          {
            name: '/readyz tells the truth',
            ok: lies === 0 && readyDuring > 0,
            detail: `${lies} polls said ready during the outage`,
          },
          {
            name: 'the API recovers unaided',
            ok: recovered !== undefined,
            detail: `ready ${recovered} ms after the restore`,
          },
        ],
      };
    });
    return { what: `PostgreSQL unreachable for ${opts.faultSeconds} s under load`, ...r };
  },
};
export default drill;
