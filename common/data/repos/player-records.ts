import type { Queryable } from '../db.js';

/** The reads of a player's whole record (common/usecases/player-export.ts), by the player's indexes. */

/** A player by service id; with `studioId`, only a player of that studio's games. */
export async function findPlayerFor(db: Queryable, serviceId: string, studioId: string | null) {
  const { rows } = await db.query<{
    id: string;
    service_id: string;
    full_name: string;
    gamer_tag: string;
    trust_score: number;
    is_kyc_verified: boolean;
    created_at: Date;
  }>(
    `SELECT p.id, p.service_id, p.full_name, p.gamer_tag, p.trust_score, p.is_kyc_verified, p.created_at
       FROM players p
      WHERE p.service_id = $1
        AND ($2::uuid IS NULL OR EXISTS (SELECT 1 FROM player_games pg JOIN games g ON g.id = pg.game_id
                                          WHERE pg.player_id = p.id AND g.studio_id = $2))`,
    [serviceId, studioId],
  );
  return rows[0];
}

/** The games a player is linked to, oldest link first. */
export async function gamesOfPlayer(db: Queryable, playerId: string) {
  const { rows } = await db.query<{ title: string; linked_at: Date }>(
    `SELECT g.title, pg.linked_at FROM player_games pg JOIN games g ON g.id = pg.game_id
      WHERE pg.player_id = $1 ORDER BY pg.linked_at, g.title`,
    [playerId],
  );
  return rows;
}

/** Every strike of a player, newest first. */
export async function strikesOfPlayer(db: Queryable, playerId: string) {
  const { rows } = await db.query<{
    case_id: string | null;
    created_at: Date;
    expires_at: Date;
    removed_at: Date | null;
  }>(
    'SELECT case_id, created_at, expires_at, removed_at FROM strikes WHERE player_id = $1 ORDER BY created_at DESC',
    [playerId],
  );
  return rows;
}

/** Moderators' notes about a player and their cases, oldest first, with the author's username. */
export async function notesAboutPlayer(db: Queryable, playerId: string) {
  const { rows } = await db.query<{ body: string; case_id: string | null; author: string; created_at: Date }>(
    `SELECT n.body, n.case_id, m.username AS author, n.created_at FROM notes n
       JOIN moderators m ON m.id = n.author_id
      WHERE n.player_id = $1 OR n.case_id IN (SELECT id FROM review_cases WHERE player_id = $1)
      ORDER BY n.created_at`,
    [playerId],
  );
  return rows;
}

/** Moderators' tags on a player, in order. */
export async function tagsOfPlayer(db: Queryable, playerId: string): Promise<string[]> {
  const { rows } = await db.query<{ tag: string }>(
    `SELECT tag FROM tags WHERE subject_kind = 'player' AND subject_id = $1 ORDER BY tag`,
    [playerId],
  );
  return rows.map((r) => r.tag);
}

/**
 * The chat lines a player is reported to have written (a toxicity report's `messages`, kept as the
 * report's last text evidence), newest first, a page at a time: what the player's copy of their
 * data gives them (GDPR Art. 15), without the reporter's own words or anyone else's data.
 */
export async function accusedWordsOfPlayer(
  db: Queryable,
  playerId: string,
  limit: number,
  after?: { at: Date; id: string },
): Promise<{ offense_id: string; created_at: Date; words: string }[]> {
  const { rows } = await db.query<{ offense_id: string; created_at: Date; words: string }>(
    `SELECT o.id AS offense_id, o.created_at, w.words
       FROM offenses o
       CROSS JOIN LATERAL (SELECT e->>'content' AS words
                             FROM jsonb_array_elements(o.evidence) WITH ORDINALITY x(e, i)
                            WHERE e->>'type' = 'text' ORDER BY i DESC LIMIT 1) w
      WHERE o.player_id = $1 AND o.type = 'toxicity' AND (o.details->>'messageCount') IS NOT NULL
        AND ($3::timestamptz IS NULL OR (o.created_at, o.id) < ($3::timestamptz, $4::uuid))
      ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    [playerId, limit, after?.at ?? null, after?.id ?? null],
  );
  return rows;
}
