import type { Queryable } from '../db.js';

/** The offense a notice was filed as; undefined when there is no such notice. */
export async function offenseOfNotice(db: Queryable, noticeId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ offense_id: string }>('SELECT offense_id FROM notices WHERE id = $1', [
    noticeId,
  ]);
  return rows[0]?.offense_id;
}
