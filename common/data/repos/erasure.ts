import type { Queryable } from '../db.js';
import type { ErasureRow, ErasureState } from '../shapes/erasure.js';

/**
 * Reads for erasure (docs/compliance.md "Personal data"); common/lifecycles/erasure.ts is the only code that
 * writes erasures and applies them.
 */

/**
 * A player not erased, with how many of their games are `studioId`'s and how many another studio's;
 * undefined when there is none.
 */
export async function erasablePlayer(db: Queryable, serviceId: string, studioId: string | null) {
  const { rows } = await db.query<{ id: string; own_games: number; other_games: number }>(
    `SELECT p.id,
            count(*) FILTER (WHERE g.studio_id = $2)::int AS own_games,
            count(*) FILTER (WHERE g.studio_id IS DISTINCT FROM $2 AND g.id IS NOT NULL)::int AS other_games
       FROM players p LEFT JOIN player_games pg ON pg.player_id = p.id LEFT JOIN games g ON g.id = pg.game_id
      WHERE p.service_id = $1 AND p.erased_at IS NULL
      GROUP BY p.id`,
    [serviceId, studioId],
  );
  const r = rows[0];
  return r && { id: r.id, ownGames: r.own_games, otherGames: r.other_games };
}

export async function findErasure(db: Queryable, id: string): Promise<ErasureRow | undefined> {
  const { rows } = await db.query<ErasureRow>('SELECT * FROM erasures WHERE id = $1', [id]);
  return rows[0];
}

/** Erasures (in one state, or all), newest request first. */
export async function erasureRows(db: Queryable, state: ErasureState | null, limit: number) {
  const { rows } = await db.query<ErasureRow>(
    `SELECT * FROM erasures WHERE ($1::text IS NULL OR state = $1) ORDER BY requested_at DESC, id DESC LIMIT $2`,
    [state, limit],
  );
  return rows;
}

export async function countAwaitingConfirmation(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM erasures WHERE state = 'awaiting_confirmation'`,
  );
  return rows[0]!.n;
}

/** Of these players (row ids), the ones not erased. */
export async function notErased(db: Queryable, playerIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM players WHERE id = ANY ($1::uuid[]) AND erased_at IS NULL',
    [playerIds],
  );
  return rows.map((r) => r.id);
}
