import { QUEUES } from '../../../common/queues/index.js';
import { underLoad, waitUntil, sleep, fmt, type DrillCase } from '../harness.js';

/** SIGKILL both workers mid-job; replacements pick the jobs up after the stalled interval. */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const r = await underLoad(rig, opts, 'worker-kill', async () => {
      const before = rig.evidence.requests;
      await waitUntil('an enrichment job in flight', async () => rig.evidence.requests > before, 10_000);
      const killed: string[] = [];
      for (const kind of ['enrichment', 'review'] as const) {
        const proc = rig.procs.get(kind)!;
        const active =
          (await rig.jobCounts(kind === 'enrichment' ? QUEUES.enrichment : QUEUES.review)).active ?? 0;
        proc.child.kill('SIGKILL');
        await proc.exited;
        killed.push(`${kind} (${active} job(s) active)`);
      }
      await sleep(opts.faultSeconds * 1000);
      await rig.launch('enrichment');
      await rig.launch('review');
      return {
        lines: [
          `SIGKILLed ${killed.join(' and ')}; replacements started after ${fmt(opts.faultSeconds * 1000)}`,
        ],
        checks: [],
      };
    });
    const stalled = rig.logLines('enrichment').filter((l) => String(l.msg).includes('stalled')).length;
    r.lines.push(`stalled jobs picked up again by the replacements: ${stalled}`);
    return { what: 'SIGKILL the enrichment and review workers mid-job', ...r };
  },
};
export default drill;
