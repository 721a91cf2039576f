import { JOB_NAMES } from '../../common/queues/index.js';
import { byJobName } from '../run.js';
import { statementsProcessor } from './transparency.js';
import { webhookProcessor } from './webhook.js';

/** The webhooks worker's jobs, all outbound HTTP: studios' webhooks, statements to the DSA Transparency Database. */
export const outboundProcessor = byJobName({
  [JOB_NAMES.deliverWebhook]: webhookProcessor,
  [JOB_NAMES.submitStatements]: statementsProcessor,
});
