import type { TdbCategory } from '../domain/transparency-statement.js';
import type { Queryable } from '../data/db.js';
import { type FlaggerRow } from '../data/shapes/trusted-flagger.js';

/**
 * A trusted flagger (DSA Art. 22; issue 37; docs/moderators.md "Notices"), the only code that writes
 * `trusted_flaggers` (a test holds it to that):
 *
 *   registered (active) --suspend, with a reason--> suspended --reinstate--> active
 *
 * Each step is audited in the same transaction by its caller. Its API key is made once, shown once,
 * and kept as a hash; a suspended flagger's notices are refused (403) until it is reinstated.
 */

const COLUMNS = 'id, name, areas, coordinator, created_at, suspended_at, suspend_reason';

export async function recordRegistration(
  db: Queryable,
  f: { name: string; areas: TdbCategory[]; coordinator: string; keyHash: Buffer; by: string },
): Promise<FlaggerRow> {
  const { rows } = await db.query<FlaggerRow>(
    `INSERT INTO trusted_flaggers (name, areas, coordinator, key_hash, created_by)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [f.name, f.areas, f.coordinator, f.keyHash, f.by],
  );
  return rows[0]!;
}

/** Suspends an active flagger, or reinstates a suspended one; undefined when it was not in that state. */
export async function recordStatus(
  db: Queryable,
  id: string,
  change: { suspend: true; reason: string; by: string } | { suspend: false; by: string },
): Promise<FlaggerRow | undefined> {
  const { rows } = change.suspend
    ? await db.query<FlaggerRow>(
        `UPDATE trusted_flaggers SET suspended_at = now(), suspend_reason = $2, suspended_by = $3
          WHERE id = $1 AND suspended_at IS NULL RETURNING ${COLUMNS}`,
        [id, change.reason, change.by],
      )
    : await db.query<FlaggerRow>(
        `UPDATE trusted_flaggers SET suspended_at = NULL, suspend_reason = NULL, suspended_by = NULL
          WHERE id = $1 AND suspended_at IS NOT NULL RETURNING ${COLUMNS}`,
        [id],
      );
  return rows[0];
}

export { type FlaggerRow } from '../data/shapes/trusted-flagger.js';
