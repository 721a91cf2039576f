import { QUEUES } from '../common/queues/index.js';
import { matchesProcessor } from './processors/matches.js';
import { runWorkerMain } from './run.js';

runWorkerMain(QUEUES.matches, matchesProcessor);
