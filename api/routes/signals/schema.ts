import Joi from 'joi';
import { SERVICE_ID } from '../../../common/domain/players.js';
import { text } from '../../../common/validation.js';

/** A moderator's list of evasion suspicions: the open ones by default, or one player's every one. */
export const suspicionsQuery = Joi.object({
  serviceId: Joi.string().pattern(SERVICE_ID).description("One player's suspicions, cleared ones included."),
  limit: Joi.number().integer().min(1).max(200).default(50),
});

export const clearSuspicionSchema = Joi.object({
  reason: text(2000)
    .required()
    .description('Why it is not evasion (a household, a shared console): kept in the audit log.'),
});
