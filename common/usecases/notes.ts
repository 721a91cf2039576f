import Joi from 'joi';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { isUuid } from '../domain/ids.js';
import { insertAudit } from '../data/repos/moderation.js';
import { insertNote, latestNotes, playerOfCase, type Note } from '../data/repos/notes.js';
import { playerRowId } from '../data/repos/trust.js';
import { notFound } from '../errors.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';

export type { Note } from '../data/repos/notes.js';

/** A note as a moderator writes it. */
export const noteSchema = Joi.object({
  body: text(4000).required().description('For moderators only: never shown to a studio or the player.'),
});

/** Where a note goes: a player's thread, or one of the player's cases. */
export type NoteSubject = { kind: 'player'; serviceId: string } | { kind: 'case'; caseId: string };

async function subjectRow(
  db: Queryable,
  s: NoteSubject,
): Promise<{ playerId: string; caseId: string | null }> {
  if (s.kind === 'case') {
    const playerId = isUuid(s.caseId) ? await playerOfCase(db, s.caseId) : undefined;
    if (!playerId) throw notFound(`Case ${s.caseId}`);
    return { playerId, caseId: s.caseId };
  }
  const playerId = await playerRowId(db, s.serviceId);
  if (!playerId) throw notFound(`Player ${s.serviceId}`);
  return { playerId, caseId: null };
}

/** The notes shown at most: the latest of a case or a player. */
const NOTES_SHOWN = 200;

/**
 * The notes of a case, or of a player (every note on the player and on each of their cases), oldest
 * first, at most the latest 200.
 */
export async function listNotes(db: Queryable, s: NoteSubject): Promise<Note[]> {
  const { playerId, caseId } = await subjectRow(db, s);
  return latestNotes(db, caseId ? { caseId } : { playerId }, NOTES_SHOWN);
}

/** Adds a note to a case or a player, with its audit row (add_note), in one transaction. */
export async function addNote(pool: Pool, actor: Actor, s: NoteSubject, input: unknown): Promise<Note> {
  const { body } = check<{ body: string }>(noteSchema, input);
  return withTransaction(pool, async (client) => {
    const { playerId, caseId } = await subjectRow(client, s);
    const note = await insertNote(client, { playerId, caseId, authorId: actor.id, body });
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
    return note;
  });
}
