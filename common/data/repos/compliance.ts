import type { Queryable } from '../db.js';

/**
 * Orders or disputes (common/usecases/compliance.ts), newest recorded first, after a cursor: the time
 * as PostgreSQL writes it (microseconds, `cursor_ts`), so no row is skipped or repeated.
 */
export async function complianceRecords<R>(
  db: Queryable,
  table: 'authority_orders' | 'disputes',
  after: { ts: string; id: string } | undefined,
  limit: number,
): Promise<(R & { cursor_ts: string })[]> {
  const { rows } = await db.query<R & { cursor_ts: string }>(
    `SELECT *, to_json(created_at)#>>'{}' AS cursor_ts FROM ${table}
      WHERE ($1::timestamptz IS NULL OR (created_at, id) < ($1::timestamptz, $2::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [after?.ts ?? null, after?.id ?? null, limit],
  );
  return rows;
}
