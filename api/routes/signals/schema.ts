import Joi from 'joi';
import { SERVICE_ID } from '../../../common/domain/players.js';

/** A moderator's list of evasion suspicions: the open ones by default, or one player's every one. */
export const suspicionsQuery = Joi.object({
  serviceId: Joi.string().pattern(SERVICE_ID).description("One player's suspicions, cleared ones included."),
  limit: Joi.number().integer().min(1).max(200).default(50),
});
