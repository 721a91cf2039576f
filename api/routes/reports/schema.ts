import Joi from 'joi';
import { REPORT_KINDS } from '../../../common/domain/reports.js';

/** An Idempotency-Key: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** Most reports one bulk request may carry. */
export const BATCH_MAX = 100;

/** A bulk submission: each item's report is validated on its own, and answered on its own. */
export const batchSchema = Joi.object({
  reports: Joi.array()
    .min(1)
    .max(BATCH_MAX)
    .required()
    .items(
      Joi.object({
        kind: Joi.string()
          .valid(...Object.keys(REPORT_KINDS))
          .required(),
        serviceId: Joi.string().max(64).required(),
        report: Joi.any()
          .required()
          .description('The report body of the kind, as its single endpoint takes it.'),
        idempotencyKey: Joi.string().pattern(IDEMPOTENCY_KEY).messages({
          'string.pattern.base': 'must be 1 to 255 visible ASCII characters',
        }),
      }),
    ),
});
