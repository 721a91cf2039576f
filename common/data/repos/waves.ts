import type { Queryable } from '../db.js';
import type { MemberState, WaveRow, WaveState } from '../shapes/wave.js';

/** Reads of ban waves (the writes are common/lifecycles/wave.ts). */

export interface NamedWaveRow extends WaveRow {
  created_by_name: string | null;
  approved_by_name: string | null;
  /** The full-precision sort key of the listing's cursor. */
  cursor_ts: string;
}

const NAMED = `SELECT w.*, coalesce(cm.display_name, cs.name) AS created_by_name, am.display_name AS approved_by_name,
       to_json(w.created_at)#>>'{}' AS cursor_ts
  FROM waves w
  LEFT JOIN moderators cm ON cm.id = w.created_by_moderator
  LEFT JOIN studios cs ON cs.id = w.created_by_studio
  LEFT JOIN moderators am ON am.id = w.approved_by_moderator`;

/** One wave with its makers' names; with `studioId`, only a wave that studio made. */
export async function findWave(
  db: Queryable,
  id: string,
  studioId: string | null = null,
): Promise<NamedWaveRow | undefined> {
  const { rows } = await db.query<NamedWaveRow>(
    `${NAMED} WHERE w.id = $1 AND ($2::uuid IS NULL OR w.created_by_studio = $2)`,
    [id, studioId],
  );
  return rows[0];
}

/** Waves newest first (keyset on created_at, id); a studio sees its own. */
export async function listWaves(
  db: Queryable,
  q: { state?: WaveState; studioId: string | null; limit: number; after?: { ts: string; id: string } },
): Promise<NamedWaveRow[]> {
  const { rows } = await db.query<NamedWaveRow>(
    `${NAMED}
      WHERE ($1::text IS NULL OR w.state = $1)
        AND ($2::uuid IS NULL OR w.created_by_studio = $2)
        AND ($3::timestamptz IS NULL OR (w.created_at, w.id) < ($3::timestamptz, $4::uuid))
      ORDER BY w.created_at DESC, w.id DESC LIMIT $5`,
    [q.state ?? null, q.studioId, q.after?.ts ?? null, q.after?.id ?? null, q.limit + 1],
  );
  return rows;
}

export interface MemberRow {
  player_id: string;
  service_id: string;
  state: MemberState;
  sanction_id: string | null;
  skip_reason: string | null;
  done_at: Date | null;
}

/** A wave's members in player order (keyset on the player's internal id), in one state or all. */
export async function listMembers(
  db: Queryable,
  waveId: string,
  q: { state?: MemberState; limit: number; afterPlayerId?: string },
): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT m.player_id, p.service_id, m.state, m.sanction_id, m.skip_reason, m.done_at
       FROM wave_members m JOIN players p ON p.id = m.player_id
      WHERE m.wave_id = $1 AND ($2::text IS NULL OR m.state = $2)
        AND ($3::uuid IS NULL OR m.player_id > $3)
      ORDER BY m.player_id LIMIT $4`,
    [waveId, q.state ?? null, q.afterPlayerId ?? null, q.limit + 1],
  );
  return rows;
}

/**
 * The players a wave names, by service id: each one found (not erased; with `studioId`, only players
 * of that studio's games), in one statement however many.
 */
export async function playersByServiceId(
  db: Queryable,
  serviceIds: string[],
  studioId: string | null,
): Promise<{ id: string; service_id: string }[]> {
  const { rows } = await db.query<{ id: string; service_id: string }>(
    `SELECT p.id, p.service_id FROM players p
      WHERE p.service_id = ANY($1::text[]) AND p.erased_at IS NULL
        AND ($2::uuid IS NULL OR EXISTS (
              SELECT 1 FROM player_games pg JOIN games g ON g.id = pg.game_id
               WHERE pg.player_id = p.id AND g.studio_id = $2))`,
    [serviceIds, studioId],
  );
  return rows;
}

/** The players of review cases, by case id (each player once), and the case ids not found. */
export async function playersOfCases(
  db: Queryable,
  caseIds: string[],
): Promise<{ players: { id: string; service_id: string }[]; missing: string[] }> {
  const { rows } = await db.query<{ case_id: string; id: string | null; service_id: string | null }>(
    `SELECT c.id AS case_id, p.id, p.service_id
       FROM unnest($1::uuid[]) AS c(id)
       LEFT JOIN review_cases rc ON rc.id = c.id
       LEFT JOIN players p ON p.id = rc.player_id AND p.erased_at IS NULL`,
    [caseIds],
  );
  const players = new Map<string, { id: string; service_id: string }>();
  for (const r of rows) if (r.id && r.service_id) players.set(r.id, { id: r.id, service_id: r.service_id });
  return { players: [...players.values()], missing: rows.filter((r) => !r.id).map((r) => r.case_id) };
}

/** How many of these players carry one of the protected tags (PROTECTED_TAGS). */
export async function protectedAmong(
  db: Queryable,
  playerIds: string[],
  tags: readonly string[],
): Promise<number> {
  if (tags.length === 0 || playerIds.length === 0) return 0;
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(DISTINCT subject_id)::int AS n FROM tags
      WHERE subject_kind = 'player' AND subject_id = ANY($1::uuid[]) AND tag = ANY($2::text[])`,
    [playerIds, tags],
  );
  return rows[0]!.n;
}
