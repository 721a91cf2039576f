import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { verify, type DrillCase, type DrillOptions, type DrillResult, type DrillRig } from './harness.js';

const CASES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cases');

/**
 * Every drill: one file each in scripts/drills/cases/, named by its file. Adding a drill is adding a
 * file; `npm run drill` and the shortened drills of the tests find it here. Drills on the shared rig
 * come first (they share its processes), then the ones with servers of their own.
 */
export async function loadDrills(): Promise<Map<string, DrillCase>> {
  const files = fs
    .readdirSync(CASES)
    .filter((f) => /\.[jt]s$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  const loaded = await Promise.all(
    files.map(async (f) => {
      const mod = (await import(pathToFileURL(path.join(CASES, f)).href)) as { default?: DrillCase };
      if (!mod.default) throw new Error(`scripts/drills/cases/${f} has no default export (its DrillCase)`);
      return [f.replace(/\.[jt]s$/, ''), mod.default] as const;
    }),
  );
  const rank = (c: DrillCase) => (c.kind === 'rig' ? 0 : 1);
  return new Map(loaded.sort((a, b) => rank(a[1]) - rank(b[1])));
}

/** Runs one drill of the shared rig (its processes up), then verifies the ledger of its load. */
export async function runDrill(
  rig: DrillRig,
  drills: Map<string, DrillCase>,
  name: string,
  opts: DrillOptions,
): Promise<DrillResult> {
  const drill = drills.get(name);
  if (drill?.kind !== 'rig')
    throw new Error(
      `no rig drill ${name}; drills: ${[...drills]
        .filter(([, c]) => c.kind === 'rig')
        .map(([n]) => n)
        .join(', ')}`,
    );
  const r = await drill.run(rig, opts);
  const v = await verify(rig, r.load, r.players);
  const checks = [...r.checks, ...v.checks];
  return { name, what: r.what, lines: [...r.lines, ...v.lines], checks, ok: checks.every((c) => c.ok) };
}
