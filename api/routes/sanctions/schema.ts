import Joi from 'joi';
import { CURSOR } from '../../../common/cursor.js';
import { LOBBY_PARTIES_MAX, PARTY_ID_MAX, PARTY_MEMBERS_MAX } from '../../../common/domain/parties.js';

/** The sanctions routes' request rules; placing and revoking are the use cases' own (usecases/sanctions.ts). */
export const LOOKUP_MAX = 100;

/** A sanctions listing's filter and page. */
export const listQuery = Joi.object({
  active: Joi.boolean().default(false).description('Only sanctions in force now.'),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

// Any string is taken: one malformed id is answered as invalid, never fails the whole lobby.
// The parties in the lobby (docs/studios.md "Parties at the lobby check"): their members are looked
// up with the other ids; a player belongs to one party, and the whole lobby is at most 100 ids.
export const lookupBody = Joi.object({
  serviceIds: Joi.array().items(Joi.string().allow('')).min(1).max(LOOKUP_MAX),
  parties: Joi.array()
    .items(
      Joi.object({
        party: Joi.string()
          .trim()
          .min(1)
          .max(PARTY_ID_MAX)
          .pattern(/^[\x21-\x7e]+$/, 'printable')
          .required()
          .description("The matchmaker's id of the party (as in a match's party)."),
        serviceIds: Joi.array()
          .items(Joi.string().allow(''))
          .min(1)
          .max(PARTY_MEMBERS_MAX)
          .unique()
          .required()
          .description("The party's members."),
      }),
    )
    .min(1)
    .max(LOBBY_PARTIES_MAX)
    .description(
      "The parties among the lobby: each answered with its trust (its lowest member's) and a warning for each member who lowers it.",
    ),
}).or('serviceIds', 'parties');
