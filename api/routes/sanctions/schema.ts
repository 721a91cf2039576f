import Joi from 'joi';
import { CURSOR } from '../../../common/cursor.js';

/** The sanctions routes' request rules; placing and revoking are the use cases' own (usecases/sanctions.ts). */
export const LOOKUP_MAX = 100;

/** A sanctions listing's filter and page. */
export const listQuery = Joi.object({
  active: Joi.boolean().default(false).description('Only sanctions in force now.'),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

// Any string is taken: one malformed id is answered as invalid, never fails the whole lobby.
export const lookupBody = Joi.object({
  serviceIds: Joi.array().items(Joi.string().allow('')).min(1).max(LOOKUP_MAX).required(),
});
