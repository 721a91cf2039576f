import { JOB_NAMES } from '../../common/queues/index.js';
import { byJobName } from '../run.js';
import { mailProcessor } from './mail.js';
import { statementsProcessor } from './transparency.js';
import { webhookProcessor } from './webhook.js';

/**
 * The webhooks worker's jobs, all outbound: studios' webhooks and statements to the DSA Transparency
 * Database (HTTP), and e-mails to notifiers (SMTP).
 */
export const outboundProcessor = byJobName({
  [JOB_NAMES.deliverWebhook]: webhookProcessor,
  [JOB_NAMES.submitStatements]: statementsProcessor,
  [JOB_NAMES.sendMail]: mailProcessor,
});
