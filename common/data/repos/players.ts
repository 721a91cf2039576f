import type { Queryable } from '../db.js';

/** A player as a studio or an import creates one. */
export interface PlayerInput {
  serviceId: string;
  gamerTag: string;
  fullName: string;
}

export type CreateOutcome = 'created' | 'present' | 'gamer_tag_taken';

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
): Promise<{ outcome: CreateOutcome; wasLinked: boolean }[]> {
  if (rows.length === 0) return [];
  const { rows: result } = await db.query<{ n: number; outcome: CreateOutcome; was_linked: boolean }>(
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
