import type { Queryable } from '../db.js';

export type TagKind = 'case' | 'player';

/** Whether a review case exists (a tag's or a note's subject). */
export async function caseExists(db: Queryable, caseId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM review_cases WHERE id = $1', [caseId]);
  return Boolean(rowCount);
}

/** The tags of a case or a player (by row id), in order. */
export async function tagsOfSubject(db: Queryable, kind: TagKind, id: string): Promise<string[]> {
  const { rows } = await db.query<{ tag: string }>(
    'SELECT tag FROM tags WHERE subject_kind = $1 AND subject_id = $2 ORDER BY tag',
    [kind, id],
  );
  return rows.map((r) => r.tag);
}

/** Adds a tag; adding one the subject has changes nothing. */
export async function insertTag(db: Queryable, kind: TagKind, id: string, tag: string, by: string) {
  await db.query(
    `INSERT INTO tags (subject_kind, subject_id, tag, added_by) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [kind, id, tag, by],
  );
}

/** Removes a tag; false when the subject did not have it. */
export async function deleteTag(db: Queryable, kind: TagKind, id: string, tag: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM tags WHERE subject_kind = $1 AND subject_id = $2 AND tag = $3',
    [kind, id, tag],
  );
  return Boolean(rowCount);
}
