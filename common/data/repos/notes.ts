import type { Queryable } from '../db.js';

/** A note as the API shows it. */
export interface Note {
  id: string;
  caseId: string | null;
  author: { id: string; username: string };
  body: string;
  createdAt: string;
}

/** A case's player (the subject of a note on the case); undefined when there is no such case. */
export async function playerOfCase(db: Queryable, caseId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ player_id: string }>('SELECT player_id FROM review_cases WHERE id = $1', [
    caseId,
  ]);
  return rows[0]?.player_id;
}

/**
 * The latest notes (at most `limit`) of a case, or of a player (every note on the player and on each
 * of their cases), oldest first.
 */
export async function latestNotes(
  db: Queryable,
  of: { caseId: string } | { playerId: string },
  limit: number,
): Promise<Note[]> {
  const byCase = 'caseId' in of;
  const { rows } = await db.query<{
    id: string;
    case_id: string | null;
    author_id: string;
    username: string;
    body: string;
    created_at: Date;
  }>(
    `SELECT * FROM (
       SELECT n.id, n.case_id, n.author_id, m.username, n.body, n.created_at
         FROM notes n JOIN moderators m ON m.id = n.author_id
        WHERE ${byCase ? 'n.case_id = $1' : 'n.player_id = $1'}
        ORDER BY n.created_at DESC LIMIT $2) latest
      ORDER BY created_at`,
    [byCase ? of.caseId : of.playerId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    caseId: r.case_id,
    author: { id: r.author_id, username: r.username },
    body: r.body,
    createdAt: r.created_at.toISOString(),
  }));
}

/** Stores a note; answers it with its author's username. */
export async function insertNote(
  db: Queryable,
  n: { playerId: string; caseId: string | null; authorId: string; body: string },
): Promise<Note> {
  const { rows } = await db.query<{ id: string; created_at: Date; username: string }>(
    `WITH note AS (
       INSERT INTO notes (player_id, case_id, author_id, body) VALUES ($1, $2, $3, $4)
       RETURNING id, created_at, author_id)
     SELECT note.id, note.created_at, m.username FROM note JOIN moderators m ON m.id = note.author_id`,
    [n.playerId, n.caseId, n.authorId, n.body],
  );
  const r = rows[0]!;
  return {
    id: r.id,
    caseId: n.caseId,
    author: { id: n.authorId, username: r.username },
    body: n.body,
    createdAt: r.created_at.toISOString(),
  };
}
