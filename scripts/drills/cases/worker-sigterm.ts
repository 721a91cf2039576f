import fs from 'node:fs';
import { QUEUES } from '../../../common/queues/index.js';
import { underLoad, waitUntil, sleep, type DrillCase } from '../harness.js';

/** SIGTERM a worker mid-job: its active jobs finish, it exits 0, nothing is left stalled. */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const r = await underLoad(rig, opts, 'worker-sigterm', async () => {
      rig.evidence.delayMs = 1000;
      const proc = rig.procs.get('enrichment')!;
      const before = rig.evidence.requests;
      await waitUntil('an enrichment job in flight', async () => rig.evidence.requests > before, 10_000);
      const active = (await rig.jobCounts(QUEUES.enrichment)).active ?? 0;
      const at = Date.now();
      proc.child.kill('SIGTERM');
      const exit = await proc.exited;
      const tookMs = Date.now() - at;
      rig.evidence.delayMs = 300;
      const left = (await rig.jobCounts(QUEUES.enrichment)).active ?? 0;
      const finished = fs.readFileSync(proc.logFile, 'utf8').includes('"msg":"worker stopped"');
      await sleep(opts.faultSeconds * 1000);
      await rig.launch('enrichment');
      return {
        lines: [
          `SIGTERM to the enrichment worker with ${active} job(s) active: exit ${exit.code} after ${tookMs} ms, ${left} job(s) left active`,
        ],
        checks: [
          {
            name: 'worker exits 0 after its jobs',
            ok: exit.code === 0 && finished && active > 0,
            detail: `exit ${exit.code}, ${active} active at the signal`,
          },
          { name: 'no job left stalled', ok: left === 0, detail: `${left} active after the exit` },
        ],
      };
    });
    return { what: 'SIGTERM the enrichment worker mid-job', ...r };
  },
};
export default drill;
