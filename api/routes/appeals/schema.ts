import Joi from 'joi';
import { CURSOR } from '../../../common/cursor.js';

/** The appeals queue's filters and page (GET /v1/admin/appeals). */
export const queueQuery = Joi.object({
  status: Joi.string().valid('open', 'granted', 'denied').default('open'),
  serviceId: Joi.string().max(64),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});
