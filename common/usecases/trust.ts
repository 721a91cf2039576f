import type { Pool } from '../data/db.js';
import { recoverBatch } from '../data/repos/trust.js';

const BATCH = 1000;
const DAY_SECONDS = 86_400;

/**
 * Recovery: players with no new offense for `daysPerPoint` days earn a point back per such period
 * (never above 100). Idempotent at a given `now`; safe to run from several processes at once (rows
 * are claimed with SKIP LOCKED). Each batch is its own transaction, so the work is bounded however
 * many players are due. Returns the totals.
 */
export async function recoverTrust(
  pool: Pool,
  input: { now: Date; daysPerPoint: number },
): Promise<{ players: number; points: number }> {
  const total = { players: 0, points: 0 };
  if (input.daysPerPoint <= 0) return total;
  for (;;) {
    const done = await recoverBatch(pool, input.now, input.daysPerPoint * DAY_SECONDS, BATCH);
    total.players += done.players;
    total.points += done.points;
    if (done.players < BATCH) return total;
  }
}
