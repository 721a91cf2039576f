import type { Config } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { QUEUES } from '../../common/queues/index.js';
import { enrichmentProcessor } from '../../worker/processors/enrichment.js';
import { reviewProcessor } from '../../worker/processors/review.js';
import { outboundProcessor } from '../../worker/processors/outbound.js';
import { matchesProcessor } from '../../worker/processors/matches.js';
import { startWorker, type RunningWorker } from '../../worker/run.js';

const PROCESSORS = {
  review: [QUEUES.review, reviewProcessor],
  enrichment: [QUEUES.enrichment, enrichmentProcessor],
  webhooks: [QUEUES.webhooks, outboundProcessor],
  matches: [QUEUES.matches, matchesProcessor],
} as const;

/**
 * A worker of one kind in this process, on the queues of `config` (a test API's), logging nothing:
 * what most suites start beside their API, said once.
 */
export function startTestWorker(config: Config, kind: keyof typeof PROCESSORS): Promise<RunningWorker> {
  const [queue, processor] = PROCESSORS[kind];
  return startWorker(config, queue, processor, createLogger('silent', 'w'));
}
