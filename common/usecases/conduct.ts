import { withTransaction, type Pool } from '../data/db.js';
import type { StrikeRung } from '../config.js';
import { summarizeRestriction } from '../lifecycles/conduct.js';
import type { OutboxRow } from '../queues/outbox.js';

/**
 * The summarize-conduct job (review queue, written with a sanction other than a warning): the
 * conduct summaries of the restriction that began, in one transaction, once however often it runs.
 */
export async function summarizeRestrictionJob(
  pool: Pool,
  sanctionId: string,
  now: Date,
  ladder: readonly StrikeRung[],
): Promise<{ summaries: number; outbox: OutboxRow[] }> {
  const made = await withTransaction(pool, (client) => summarizeRestriction(client, sanctionId, now, ladder));
  return { summaries: made.summaries.length, outbox: made.outbox };
}
