import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DrillRig, formatResult, type DrillResult } from './drills/harness.js';
import { loadDrills, runDrill } from './drills/registry.js';

/**
 * npm run drill [-- <drill> ...] [--fault-seconds 10] [--steady-seconds 5] [--rate 40] [--json FILE]
 *
 * Starts PostgreSQL and Redis (or uses DATABASE_URL / REDIS_URL) behind cuttable proxies, the API and
 * every worker as real processes, and runs each drill under a steady report load, printing what it
 * did and the counts that prove nothing was lost or doubled. Exits 1 when a drill fails.
 */
const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    'fault-seconds': { type: 'string', default: '10' },
    'steady-seconds': { type: 'string', default: '5' },
    rate: { type: 'string', default: '40' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
// Every drill is a file of scripts/drills/cases/ (the harness beside it: servers, ledger, load, report).
const DRILLS = await loadDrills();
const ALL = [...DRILLS.keys()];
const OPT_IN = ALL.filter((n) => {
  const drill = DRILLS.get(n)!;
  return drill.kind === 'standalone' && drill.optIn;
});
const names = positionals.length ? positionals : ALL.filter((n) => !OPT_IN.includes(n));
const unknown = names.filter((n) => !ALL.includes(n));
if (values.help || unknown.length) {
  process.stdout.write(
    `${unknown.length ? `unknown drill: ${unknown.join(', ')}\n` : ''}Usage: npm run drill [-- <drill> ...] [--fault-seconds 10] [--steady-seconds 5] [--rate 40] [--json FILE]\nDrills: ${ALL.join(', ')} (${OPT_IN.join(', ')}: opt-in, run only when named)\n`,
  );
  process.exit(unknown.length ? 2 : 0);
}
const opts = {
  faultSeconds: Number(values['fault-seconds']),
  steadySeconds: Number(values['steady-seconds']),
  rate: Number(values.rate),
};
for (const [k, v] of Object.entries(opts))
  if (!Number.isFinite(v) || v <= 0 || v > 600) {
    process.stderr.write(`--${k} must be a number of 0 < n <= 600\n`);
    process.exit(2);
  }

const dir = path.resolve('.drill', `run-${process.pid}`);
const rigNames = names.filter((n) => DRILLS.get(n)?.kind === 'rig');
const rig = rigNames.length
  ? await DrillRig.start({
      dir,
      databaseUrl: process.env.DATABASE_URL,
      redisUrl: process.env.REDIS_URL,
    })
  : undefined;
let stopping = false;
const cleanUp = async () => {
  if (stopping) return;
  stopping = true;
  await rig?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));

const results: DrillResult[] = [];
try {
  process.stdout.write(
    `drills: ${names.join(', ')}; ${opts.rate} reports/s, ${opts.steadySeconds} s steady before and after a ${opts.faultSeconds} s fault\n`,
  );
  if (rig) for (const kind of ['api', 'enrichment', 'review', 'webhooks'] as const) await rig.launch(kind);
  for (const name of names) {
    const drill = DRILLS.get(name)!;
    const result =
      drill.kind === 'standalone'
        ? await drill.run({ dir: path.join(dir, name), ...opts })
        : await runDrill(rig!, DRILLS, name, opts);
    results.push(result);
    process.stdout.write(`\n${formatResult(result)}\n`);
  }
} catch (err) {
  process.stderr.write(`drill failed to run: ${(err as Error).stack ?? String(err)}\nlogs: ${dir}\n`);
  stopping = true; // keep the logs
  await rig?.stop();
  process.exit(1);
}
if (values.json) fs.writeFileSync(values.json, JSON.stringify({ opts, results }, null, 2));
const failed = results.filter((r) => !r.ok).map((r) => r.name);
const skipped = results.filter((r) => r.skipped).length;
process.stdout.write(
  `\n${results.length - failed.length - skipped} passed, ${failed.length} failed${failed.length ? `: ${failed.join(', ')}` : ''}${skipped ? `, ${skipped} skipped` : ''}\n`,
);
await cleanUp();
process.exit(failed.length ? 1 : 0);
