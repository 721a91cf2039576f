import { withTransaction, type Pool } from '../data/db.js';
import { recoverBatch } from '../data/repos/trust.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import type { OutboxRow } from '../queues/outbox.js';

const BATCH = 1000;
const DAY_SECONDS = 86_400;

/**
 * Recovery: players with no new offense for `daysPerPoint` days earn a point back per such period
 * (never above 100), recorded in the history and told to their games' studios as trust.changed
 * (reason recovery) in the same transaction. Idempotent at a given `now`; safe to run from several
 * processes at once (rows are claimed with SKIP LOCKED). Each batch is its own transaction, so the
 * work is bounded however many players are due. Returns the totals and the outbox rows to dispatch.
 */
export async function recoverTrust(
  pool: Pool,
  input: { now: Date; daysPerPoint: number },
): Promise<{ players: number; points: number; outbox: OutboxRow[] }> {
  const total = { players: 0, points: 0, outbox: [] as OutboxRow[] };
  if (input.daysPerPoint <= 0) return total;
  for (;;) {
    const done = await withTransaction(pool, async (client) => {
      const batch = await recoverBatch(client, input.now, input.daysPerPoint * DAY_SECONDS, BATCH);
      const outbox = await emitEvents(
        client,
        batch.changed.map((c) => {
          const change = {
            playerId: c.serviceId,
            trustScoreBefore: c.before,
            trustScoreAfter: c.after,
            reason: 'recovery',
          };
          return { type: 'trust.changed' as const, dataByStudio: new Map(c.studios.map((s) => [s, change])) };
        }),
      );
      return { ...batch, outbox };
    });
    total.players += done.players;
    total.points += done.points;
    total.outbox.push(...done.outbox);
    if (done.players < BATCH) return total;
  }
}
