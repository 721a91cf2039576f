import type { Queryable } from '../db.js';

/** The demo data's marker (common/usecases/seed.ts): seeded once per database, whoever starts first. */

/** Locks the marker (made on first use) until the transaction ends; true when the demo is seeded. */
export async function lockDemoSeed(db: Queryable): Promise<boolean> {
  await db.query('CREATE TABLE IF NOT EXISTS demo_seed (seeded_at timestamptz NOT NULL DEFAULT now())');
  await db.query('LOCK TABLE demo_seed IN EXCLUSIVE MODE');
  const { rowCount } = await db.query('SELECT 1 FROM demo_seed');
  return Boolean(rowCount);
}

export async function markDemoSeeded(db: Queryable): Promise<void> {
  await db.query('INSERT INTO demo_seed DEFAULT VALUES');
}

/** Moves a template's creation `ms` milliseconds later (the demo's keys 1, 2, 3 follow their order). */
export async function shiftTemplateCreation(db: Queryable, templateId: string, ms: number): Promise<void> {
  await db.query(
    `UPDATE decision_templates SET created_at = created_at + make_interval(secs => $2 / 1000.0) WHERE id = $1`,
    [templateId, ms],
  );
}
