import { QUEUES } from '../common/queues/index.js';
import { enrichmentProcessor } from './processors/enrichment.js';
import { runWorkerMain } from './run.js';

runWorkerMain(QUEUES.enrichment, enrichmentProcessor);
