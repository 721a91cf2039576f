import type { Queryable } from '../db.js';

/** The reads of the matches use case (common/usecases/matches.ts); common/lifecycles/matches.ts writes. */

/** Which of `ids` are games of the studio. */
export async function studioGames(
  db: Queryable,
  studioId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await db.query<{ id: string }>({
    name: 'match-studio-games',
    text: 'SELECT id FROM games WHERE studio_id = $1 AND id = ANY($2::uuid[])',
    values: [studioId, [...new Set(ids)]],
  });
  return new Set(rows.map((r) => r.id));
}

/** The rosters of the studio's matches already recorded among `matchIds`, by match id. */
export async function recordedRosters(
  db: Queryable,
  studioId: string,
  matchIds: readonly string[],
): Promise<Map<string, Buffer>> {
  if (!matchIds.length) return new Map();
  const { rows } = await db.query<{ match_id: string; roster: Buffer }>({
    name: 'match-recorded-rosters',
    text: 'SELECT match_id, roster FROM matches WHERE studio_id = $1 AND match_id = ANY($2::text[])',
    values: [studioId, [...new Set(matchIds)]],
  });
  return new Map(rows.map((r) => [r.match_id, r.roster]));
}

/** Which of these players (internal ids) were erased. */
export async function erasedAmong(db: Queryable, playerIds: readonly string[]): Promise<Set<string>> {
  if (!playerIds.length) return new Set();
  const { rows } = await db.query<{ id: string }>({
    name: 'match-erased-players',
    text: 'SELECT id FROM players WHERE id = ANY($1::uuid[]) AND erased_at IS NOT NULL',
    values: [[...new Set(playerIds)]],
  });
  return new Set(rows.map((r) => r.id));
}
