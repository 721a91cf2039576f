import Joi from 'joi';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { isUuid } from '../domain/ids.js';
import { insertAudit } from '../data/repos/moderation.js';
import { notFound } from '../errors.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';

/** A note as a moderator writes it. */
export const noteSchema = Joi.object({
  body: text(4000).required().description('For moderators only: never shown to a studio or the player.'),
});

export interface Note {
  id: string;
  caseId: string | null;
  author: { id: string; username: string };
  body: string;
  createdAt: string;
}

/** Where a note goes: a player's thread, or one of the player's cases. */
export type NoteSubject = { kind: 'player'; serviceId: string } | { kind: 'case'; caseId: string };

async function subjectRow(
  db: Queryable,
  s: NoteSubject,
): Promise<{ playerId: string; caseId: string | null }> {
  if (s.kind === 'case') {
    const { rows } = isUuid(s.caseId)
      ? await db.query<{ player_id: string }>('SELECT player_id FROM review_cases WHERE id = $1', [s.caseId])
      : { rows: [] };
    if (!rows[0]) throw notFound(`Case ${s.caseId}`);
    return { playerId: rows[0].player_id, caseId: s.caseId };
  }
  const { rows } = await db.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
    s.serviceId,
  ]);
  if (!rows[0]) throw notFound(`Player ${s.serviceId}`);
  return { playerId: rows[0].id, caseId: null };
}

/**
 * The notes of a case, or of a player (every note on the player and on each of their cases), oldest
 * first, at most the latest 200.
 */
export async function listNotes(db: Queryable, s: NoteSubject): Promise<Note[]> {
  const { playerId, caseId } = await subjectRow(db, s);
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
        WHERE ${caseId ? 'n.case_id = $1' : 'n.player_id = $1'}
        ORDER BY n.created_at DESC LIMIT 200) latest
      ORDER BY created_at`,
    [caseId ?? playerId],
  );
  return rows.map((r) => ({
    id: r.id,
    caseId: r.case_id,
    author: { id: r.author_id, username: r.username },
    body: r.body,
    createdAt: r.created_at.toISOString(),
  }));
}

/** Adds a note to a case or a player, with its audit row (add_note), in one transaction. */
export async function addNote(pool: Pool, actor: Actor, s: NoteSubject, input: unknown): Promise<Note> {
  const { body } = check<{ body: string }>(noteSchema, input);
  return withTransaction(pool, async (client) => {
    const { playerId, caseId } = await subjectRow(client, s);
    const { rows } = await client.query<{ id: string; created_at: Date }>(
      `INSERT INTO notes (player_id, case_id, author_id, body) VALUES ($1, $2, $3, $4) RETURNING id, created_at`,
      [playerId, caseId, actor.id, body],
    );
    const note = rows[0]!;
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId,
      action: 'add_note',
      outcome: null,
      note: body,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: {
        noteId: note.id,
        ...(s.kind === 'player' ? { playerId: s.serviceId } : {}),
      },
    });
    const { rows: author } = await client.query<{ username: string }>(
      'SELECT username FROM moderators WHERE id = $1',
      [actor.id],
    );
    return {
      id: note.id,
      caseId,
      author: { id: actor.id, username: author[0]!.username },
      body,
      createdAt: note.created_at.toISOString(),
    };
  });
}
