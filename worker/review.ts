import { QUEUES } from '../common/queues/index.js';
import { reviewProcessor } from './processors/review.js';
import { runWorkerMain } from './run.js';

runWorkerMain(QUEUES.review, reviewProcessor);
