import Joi from 'joi';
import type { Queryable } from '../data/db.js';
import { generateServiceId } from '../data/repos/accounts.js';
import { RESERVED_SERVICE_IDS, SERVICE_ID } from '../domain/players.js';
import { AppError } from '../errors.js';
import { check } from '../validation.js';

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

export interface PlayerInput {
  serviceId: string;
  gamerTag: string;
  fullName: string;
}

type Outcome = 'created' | 'present' | 'gamer_tag_taken';

/**
 * Creates the players of a batch in one statement (one round trip, one commit for a whole batch):
 * a player whose serviceId exists is left as it is ("present"; an earlier line of the same batch
 * counts too), and one whose gamer tag another player holds is refused. With `gameId`, new players
 * are linked to that game, and with `linkExisting` (the operator's import) present ones are too; a
 * studio's API call never links a player who exists, since a player links a game by signing in to it.
 */
export async function createPlayers(
  db: Queryable,
  rows: PlayerInput[],
  opts: { gameId?: string; linkExisting?: boolean } = {},
): Promise<{ outcome: Outcome; wasLinked: boolean }[]> {
  if (rows.length === 0) return [];
  const { rows: result } = await db.query<{ n: number; outcome: Outcome; was_linked: boolean }>(
    `WITH input AS (
       SELECT x.*, row_number() OVER (PARTITION BY x.service_id ORDER BY x.n) = 1 AS first
         FROM jsonb_to_recordset($1::jsonb) AS x(n int, service_id text, gamer_tag text, full_name text)),
     existing AS (
       SELECT p.id, p.service_id,
              EXISTS (SELECT 1 FROM player_games pg WHERE pg.player_id = p.id AND pg.game_id = $2) AS linked
         FROM players p WHERE p.service_id IN (SELECT service_id FROM input)),
     ins AS (
       INSERT INTO players (service_id, gamer_tag, full_name)
       SELECT service_id, gamer_tag, full_name FROM input ORDER BY n
       ON CONFLICT DO NOTHING
       RETURNING id, service_id),
     link AS (
       INSERT INTO player_games (player_id, game_id)
       SELECT id, $2 FROM ins WHERE $2::uuid IS NOT NULL
       UNION SELECT id, $2 FROM existing WHERE $2::uuid IS NOT NULL AND $3
       ON CONFLICT DO NOTHING)
     SELECT i.n,
            CASE WHEN ins.id IS NOT NULL AND i.first THEN 'created'
                 WHEN e.id IS NOT NULL OR ins.id IS NOT NULL THEN 'present'
                 ELSE 'gamer_tag_taken' END AS outcome,
            coalesce(e.linked, false) AS was_linked
       FROM input i LEFT JOIN ins ON ins.service_id = i.service_id LEFT JOIN existing e ON e.service_id = i.service_id
      ORDER BY i.n`,
    [
      JSON.stringify(
        rows.map((r, n) => ({ n, service_id: r.serviceId, gamer_tag: r.gamerTag, full_name: r.fullName })),
      ),
      opts.gameId ?? null,
      opts.linkExisting ?? false,
    ],
  );
  const outcomes = result.map((r) => ({ outcome: r.outcome, wasLinked: r.was_linked }));
  // The statement sees the players of its start: one created meanwhile by a concurrent call with the
  // same serviceId looks like a gamer-tag clash. Those few are looked at again.
  const unsure = rows.filter((_, i) => outcomes[i]!.outcome === 'gamer_tag_taken').map((r) => r.serviceId);
  if (unsure.length > 0) {
    const { rows: found } = await db.query<{ service_id: string; linked: boolean }>(
      `SELECT p.service_id, EXISTS (SELECT 1 FROM player_games pg WHERE pg.player_id = p.id AND pg.game_id = $2) AS linked
         FROM players p WHERE p.service_id = ANY ($1)`,
      [unsure, opts.gameId ?? null],
    );
    const now = new Map(found.map((f) => [f.service_id, f.linked]));
    rows.forEach((r, i) => {
      if (outcomes[i]!.outcome === 'gamer_tag_taken' && now.has(r.serviceId))
        outcomes[i] = { outcome: 'present', wasLinked: now.get(r.serviceId)! };
    });
  }
  return outcomes;
}

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
