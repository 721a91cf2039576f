import type { Queryable } from '../db.js';

/** A moderator's saved filter: a name and the queue's filters (stored as a query string). */
export interface SavedFilter {
  id: string;
  name: string;
  filters: Record<string, string>;
}

/** A moderator's saved filters, by name. */
export async function savedFiltersOf(db: Queryable, moderatorId: string): Promise<SavedFilter[]> {
  const { rows } = await db.query<{ id: string; name: string; query: string }>(
    'SELECT id, name, query FROM saved_filters WHERE moderator_id = $1 ORDER BY name',
    [moderatorId],
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    filters: Object.fromEntries(new URLSearchParams(r.query)),
  }));
}

/** Stores a filter; a name the moderator uses already is a unique violation (isUniqueViolation). */
export async function insertSavedFilter(
  db: Queryable,
  moderatorId: string,
  name: string,
  filters: Record<string, string>,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO saved_filters (moderator_id, name, query) VALUES ($1, $2, $3) RETURNING id',
    [moderatorId, name, new URLSearchParams(filters).toString()],
  );
  return rows[0]!.id;
}

/** Deletes one of the moderator's own filters; false when they have none by that id. */
export async function deleteSavedFilterRow(db: Queryable, moderatorId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM saved_filters WHERE id = $1 AND moderator_id = $2', [
    id,
    moderatorId,
  ]);
  return Boolean(rowCount);
}
