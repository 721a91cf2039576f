import { QUEUES } from '../common/queues/index.js';
import { webhookProcessor } from './processors/webhook.js';
import { runWorkerMain } from './run.js';

runWorkerMain(QUEUES.webhooks, webhookProcessor);
