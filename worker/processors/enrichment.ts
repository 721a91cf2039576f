import crypto from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import { withTransaction } from '../../common/data/db.js';
import type { EvidenceItem } from '../../common/domain/reports.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';

export interface TextEnrichment {
  kind: 'text';
  chars: number;
  lines: number;
  sha256: string;
  enrichedAt: string;
}

export type EnrichedItem = EvidenceItem & { enrichment?: TextEnrichment | Record<string, unknown> };

export function analyseText(content: string, now: Date): TextEnrichment {
  return {
    kind: 'text',
    chars: content.length,
    lines: content === '' ? 0 : content.split('\n').length,
    sha256: crypto.createHash('sha256').update(content, 'utf8').digest('hex'),
    enrichedAt: now.toISOString(),
  };
}

/**
 * Evidence enrichment: records on each text evidence item its size, line count and sha256. Items
 * already enriched are left alone, so a re-run changes nothing twice. Fetching URL evidence is
 * tracked in issue 6 and not done here yet.
 */
export const enrichmentProcessor = (deps: ProcessorDeps) => async (job: Job) => {
  const { offenseId } = parseOffenseJob(job);
  return withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{ evidence: EnrichedItem[] }>(
      'SELECT evidence FROM offenses WHERE id = $1 FOR UPDATE',
      [offenseId],
    );
    const row = rows[0];
    if (!row) throw new UnrecoverableError(`offense ${offenseId} does not exist`);
    const now = new Date();
    let changed = 0;
    const evidence = row.evidence.map((item) => {
      if (item.enrichment || item.type !== 'text' || item.content === undefined) return item;
      changed++;
      return { ...item, enrichment: analyseText(item.content, now) };
    });
    if (changed)
      await client.query('UPDATE offenses SET evidence = $2, updated_at = now() WHERE id = $1', [
        offenseId,
        JSON.stringify(evidence),
      ]);
    return { offenseId, enrichedItems: changed };
  });
};
