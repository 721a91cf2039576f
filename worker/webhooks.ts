import { QUEUES } from '../common/queues/index.js';
import { outboundProcessor } from './processors/outbound.js';
import { runWorkerMain } from './run.js';

runWorkerMain(QUEUES.webhooks, outboundProcessor);
