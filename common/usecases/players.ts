import Joi from 'joi';
import type { Queryable } from '../data/db.js';
import { generateServiceId } from '../data/repos/accounts.js';
import { RESERVED_SERVICE_IDS, SERVICE_ID } from '../domain/players.js';
import { AppError } from '../errors.js';
import { check } from '../validation.js';
import { createPlayers, type PlayerInput } from '../data/repos/players.js';

// The import script (scripts/player-import.ts) creates its batches through the same statement.
export { createPlayers, type PlayerInput } from '../data/repos/players.js';

/** No control characters in a name a moderator or another studio will read. */
const PRINTABLE = /^[^\p{Cc}]*$/u;
/** A serviceId a client or an operator chooses (the players table checks the same pattern). */
export const serviceId = Joi.string()
  .pattern(SERVICE_ID)
  .message('must be 1 to 64 letters, digits, _ or -')
  .invalid(...RESERVED_SERVICE_IDS);
/** A player's names, wherever a player is created (the API, an import, the admin tool). */
export const playerFields = {
  gamerTag: Joi.string()
    .trim()
    .min(1)
    .max(64)
    .pattern(PRINTABLE)
    .message('must not contain control characters')
    .meta({ 'x-also': { pattern: '\\S' } })
    .required(),
  fullName: Joi.string()
    .trim()
    .min(1)
    .max(200)
    .pattern(PRINTABLE)
    .message('must not contain control characters')
    .meta({ 'x-also': { pattern: '\\S' } })
    .required(),
};
/** A studio's new player: its own serviceId (the id it knows the player by) or one generated. */
export const createPlayerSchema = Joi.object({
  serviceId: serviceId.description(
    'The id the studio knows the player by; generated when left out. "me" is reserved.',
  ),
  ...playerFields,
});
/** An import line: the serviceId is required, so a re-run finds what an earlier run created. */
const importSchema = Joi.object({ serviceId: serviceId.required(), ...playerFields });

/**
 * `POST /v1/players`: a studio creates a player it wants to report or look up, linked to the calling
 * game. The same serviceId again, for a player already linked to the game, returns that player (a
 * safe retry); a serviceId of a player the game is not linked to, or a gamer tag another player
 * holds, is a 409 and changes nothing.
 */
export async function createPlayerForGame(
  db: Queryable,
  gameId: string,
  input: unknown,
): Promise<{ created: boolean; serviceId: string }> {
  const v = check<{ serviceId?: string; gamerTag: string; fullName: string }>(createPlayerSchema, input);
  const row = { ...v, serviceId: v.serviceId ?? generateServiceId() };
  const [result] = await createPlayers(db, [row], { gameId });
  switch (result!.outcome) {
    case 'created':
      return { created: true, serviceId: row.serviceId };
    case 'present':
      if (result!.wasLinked) return { created: false, serviceId: row.serviceId };
      throw new AppError(
        409,
        'already_exists',
        `A player with serviceId ${row.serviceId} exists and is not linked to this game; a player links a game by signing in to it.`,
      );
    default:
      throw new AppError(
        409,
        'already_exists',
        `Another player has the gamer tag ${JSON.stringify(row.gamerTag)}.`,
      );
  }
}

/** One line of an import file, checked: the player, or why the line is refused. */
export function readImportLine(value: unknown): PlayerInput | { invalid: string } {
  try {
    return check<PlayerInput>(importSchema, value);
  } catch (err) {
    if (err instanceof AppError)
      return { invalid: err.fields?.map((f) => `${f.field} ${f.message}`).join('; ') || err.detail };
    throw err;
  }
}
