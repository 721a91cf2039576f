import type { Queryable } from '../data/db.js';
import { NOT_FILED_BY_STUDIO_SQL } from '../data/render.js';
import { changeScore, type TrustChangeReason } from '../data/repos/trust.js';
import { KEEP_SOURCE, type OffenseStatus, type RestoredBy } from '../data/shapes/offense.js';

/**
 * An offense's life, in one table: what became of its points. Filing leaves it `applied` (its points
 * taken at once), `held` (kept for a moderator: the studio's budget was spent or the reporter has low
 * credibility) or `recorded` (no points: the flag was false or the reporter is muted). Then:
 *
 *   held     --uphold-->  released   (the held points are taken now)
 *   held     --dismiss--> dropped    (the held points are never taken)
 *   held     --appeal-->  dropped    (a granted appeal: likewise)
 *   applied  --dismiss--> restored   (the points it took come back)
 *   applied  --appeal-->  restored
 *   released --appeal-->  restored
 *
 * and one more, outside the decisions' table (reopenDropped below):
 *
 *   dropped  --reopen--> held        (a notifier's complaint granted against a dismissal: only a
 *                                     drop by dismissal, whose points were never taken)
 *
 * Nothing else moves. `restored`, `dropped` and `recorded` are final, so a second decision (a
 * dismissal after a granted appeal, or the reverse) finds nothing left to give back: an offense's
 * points come back at most once, whatever the path. moveOffenses (below) is the only code that
 * writes a status after filing, and it does so under the offense's row lock.
 */

/** The statuses a report is filed in (the others are where decisions take it). */
export const FILED_STATUSES = ['applied', 'held', 'recorded'] as const satisfies readonly OffenseStatus[];
export type FiledStatus = (typeof FILED_STATUSES)[number];
/** A just-filed offense's status as one of FILED_STATUSES (filing never gives another). */
export function filedStatus(status: OffenseStatus): FiledStatus {
  if ((FILED_STATUSES as readonly string[]).includes(status)) return status as FiledStatus;
  throw new Error(`an offense filed as ${status}`);
}

/** The decisions that move an offense after it was filed. */
export type OffenseEvent = 'uphold' | 'dismiss' | 'appeal';

/** What gave an offense's points back (or dropped its held ones). */

const TRANSITIONS: Readonly<Record<OffenseStatus, Partial<Record<OffenseEvent, OffenseStatus>>>> = {
  applied: { dismiss: 'restored', appeal: 'restored' },
  held: { uphold: 'released', dismiss: 'dropped', appeal: 'dropped' },
  released: { appeal: 'restored' },
  dropped: {},
  recorded: {},
  restored: {},
};

/** Where `event` takes an offense in `status`; undefined when it does not move it. */
export const nextStatus = (status: OffenseStatus, event: OffenseEvent): OffenseStatus | undefined =>
  TRANSITIONS[status][event];

/** Whether a granted appeal would still change anything: its points or held points are live. */
export const isAppealable = (status: OffenseStatus): boolean => nextStatus(status, 'appeal') !== undefined;

export const restoredByOf = (event: 'dismiss' | 'appeal'): RestoredBy =>
  event === 'dismiss' ? 'dismissal' : 'appeal';

/**
 * The points each offense gives back when restored together, in the order given (the order the
 * reports came): all it took, but never lifting the score above 100, so the first ones fill what room
 * there is. The sum is exactly what the score moves.
 */
export function shareRestoredPoints(score: number, taken: readonly number[]): number[] {
  let room = Math.max(0, 100 - score);
  return taken.map((points) => {
    const back = Math.min(points, room);
    room -= back;
    return back;
  });
}

/** Held points applied in order, each floored at the score its predecessors left. */
export function shareReleasedPoints(score: number, held: readonly number[]): number[] {
  let left = Math.max(0, score);
  return held.map((points) => {
    const taken = Math.min(points, left);
    left -= taken;
    return taken;
  });
}

/** One offense a decision moved: to which status, and the points it took or gave back. */
export interface OffenseMove {
  id: string;
  studioId: string;
  to: OffenseStatus;
  /** Held points taken now (uphold), or points given back (restored); 0 for a drop. */
  points: number;
  /** The held points a drop let go of (never taken). */
  heldDropped: number;
}

export interface OffensesMoved {
  moves: OffenseMove[];
  before: number;
  after: number;
  /** What the score moved by: negative for held points taken, positive for points given back. */
  points: number;
  reason: TrustChangeReason | null;
}

const REASON: Record<OffenseEvent, TrustChangeReason> = {
  uphold: 'held_released',
  dismiss: 'dismissal',
  appeal: 'appeal',
};

/**
 * The only code that moves an offense after filing (the table above): a
 * decision's event applied to these offenses of one player, in the caller's transaction, which holds
 * the player's row lock. The offenses are locked here (FOR UPDATE, in the order the reports came);
 * each one the event does not move (already restored, dropped, released by an earlier decision) is
 * left as it is and gives nothing back, so two decisions meeting on one offense cannot both restore
 * it. The score moves once, by the sum, with one trust-history row naming the case (and the offense
 * when there is one, and the filing studio when all came from one).
 */
export async function moveOffenses(
  db: Queryable,
  input: {
    playerRowId: string;
    offenseIds: readonly string[];
    event: OffenseEvent;
    caseId?: string | null;
    now: Date;
  },
): Promise<OffensesMoved> {
  const { rows } = await db.query<{
    id: string;
    studio_id: string;
    status: OffenseStatus;
    penalty_points: number;
    penalty_held: number;
    trust_score: number;
  }>(
    `SELECT o.id, o.studio_id, o.status, o.penalty_points, o.penalty_held, p.trust_score
       FROM offenses o JOIN players p ON p.id = o.player_id
      WHERE o.id = ANY($1::uuid[]) AND o.player_id = $2
      ORDER BY o.created_at, o.id FOR UPDATE OF o`,
    [input.offenseIds, input.playerRowId],
  );
  // The score as the locks leave it (read with the offenses; alone when none of them is this player's).
  const score =
    rows[0]?.trust_score ??
    (
      await db.query<{ trust_score: number }>('SELECT trust_score FROM players WHERE id = $1', [
        input.playerRowId,
      ])
    ).rows[0]!.trust_score;
  const moving = rows.flatMap((r) => {
    const to = nextStatus(r.status, input.event);
    return to ? [{ row: r, to }] : [];
  });
  const restoring = moving.filter((m) => m.to === 'restored');
  const releasing = moving.filter((m) => m.to === 'released');
  const back = shareRestoredPoints(
    score,
    restoring.map((m) => m.row.penalty_points),
  );
  const taken = shareReleasedPoints(
    score,
    releasing.map((m) => m.row.penalty_held),
  );
  const pointsOf = new Map<string, number>([
    ...restoring.map((m, i) => [m.row.id, back[i]!] as const),
    ...releasing.map((m, i) => [m.row.id, taken[i]!] as const),
  ]);
  const moves: OffenseMove[] = moving.map((m) => ({
    id: m.row.id,
    studioId: m.row.studio_id,
    to: m.to,
    points: pointsOf.get(m.row.id) ?? 0,
    heldDropped: m.to === 'dropped' ? m.row.penalty_held : 0,
  }));
  const result: OffensesMoved = { moves, before: score, after: score, points: 0, reason: null };
  if (moves.length === 0) return result;

  const restoredBy = input.event === 'uphold' ? null : restoredByOf(input.event);
  await db.query(
    `UPDATE offenses o
        SET status = m.status,
            penalty_points = o.penalty_points + CASE WHEN m.status = 'released' THEN m.points ELSE 0 END,
            penalty_restored = CASE WHEN m.status = 'restored' THEN m.points ELSE o.penalty_restored END,
            restored_by = CASE WHEN m.status IN ('restored', 'dropped') THEN $3 ELSE o.restored_by END,
            restored_at = CASE WHEN m.status IN ('restored', 'dropped') THEN $4::timestamptz ELSE o.restored_at END,
            updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $5::int[]) AS m(id, status, points)
      WHERE o.id = m.id`,
    [moves.map((m) => m.id), moves.map((m) => m.to), restoredBy, input.now, moves.map((m) => m.points)],
  );
  const points = input.event === 'uphold' ? -sum(taken) : sum(back);
  if (points !== 0) {
    const studios = new Set(moves.map((m) => m.studioId));
    const moved = await changeScore(db, {
      playerRowId: input.playerRowId,
      points,
      reason: REASON[input.event],
      caseId: input.caseId ?? null,
      offenseId: input.offenseIds.length === 1 ? input.offenseIds[0]! : null,
      studioId: studios.size === 1 ? [...studios][0]! : null,
    });
    Object.assign(result, {
      after: moved.after,
      points: moved.after - moved.before,
      reason: REASON[input.event],
    });
  }
  return result;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * A notifier's complaint granted (DSA Art. 20; usecases/notices.ts): the notice's offense, dropped by
 * its case's dismissal, is held again for the next decision. Its points were never taken, so nothing
 * moves on the score now; an uphold later takes them (once: `held --uphold--> released`), another
 * dismissal drops them again. Under the offense's row lock, in the caller's transaction; false when
 * it is not a drop by dismissal (nothing changed).
 */
export async function reopenDropped(db: Queryable, offenseId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE offenses SET status = 'held', restored_by = NULL, restored_at = NULL, updated_at = now()
      WHERE id = $1 AND status = 'dropped' AND restored_by = 'dismissal'`,
    [offenseId],
  );
  return rowCount === 1;
}

export { OFFENSE_STATUSES, type OffenseStatus, type RestoredBy } from '../data/shapes/offense.js';

/**
 * Retention (common/lifecycles/retention.ts): at most $1 offenses matching `where` (on `o`, with the
 * cutoff $2) reduced, oldest first, by a partial index: `evidence` loses its evidence, details, match
 * and all of its context but its source; `text` its description and the reporter the studio named.
 * `n` how many.
 */
export const reduceOffenses = (part: 'evidence' | 'text', where: string) => `WITH d AS (
      UPDATE offenses o SET ${
        part === 'evidence'
          ? `evidence = '[]'::jsonb, details = '{}'::jsonb, context = ${KEEP_SOURCE}, match_id = NULL`
          : `description = '', reporter_id = NULL, context = (o.context - 'reporterId') || ${KEEP_SOURCE}`
      }, updated_at = now()
       WHERE o.ctid = ANY (ARRAY(SELECT o.ctid FROM offenses o WHERE ${where} ORDER BY o.created_at LIMIT $1))
       RETURNING 1) SELECT count(*)::int AS n FROM d`;

/**
 * Erasure (common/lifecycles/erasure.ts): every report about the player (`$1`) emptied of what names
 * anyone (its words, evidence, details, reporter, match); its source, kind, points and status stay.
 */
export const ERASE_OFFENSES = `UPDATE offenses o SET description = '', evidence = '[]'::jsonb, details = '{}'::jsonb, context = ${KEEP_SOURCE},
            reporter_id = NULL, match_id = NULL, updated_at = now()
      WHERE o.player_id = $1 AND (o.description <> '' OR o.evidence <> '[]'::jsonb OR o.details <> '{}'::jsonb
            OR (o.context - 'source') <> '{}'::jsonb OR o.reporter_id IS NOT NULL OR o.match_id IS NOT NULL)`;

/**
 * A notifier's complaint brings more evidence of the notice it contests (DSA Art. 20; README
 * "Notices"): appended to the notice's offense, each item marked `addedBy: "complaint"`, without its
 * enrichment, which the evidence worker adds behind its guard as for any report's.
 */
export async function appendComplaintEvidence(
  db: Queryable,
  offenseId: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  if (items.length === 0) return;
  await db.query(`UPDATE offenses SET evidence = evidence || $2::jsonb, updated_at = now() WHERE id = $1`, [
    offenseId,
    JSON.stringify(items.map((i) => ({ ...i, addedBy: 'complaint' }))),
  ]);
}

/**
 * The evidence enrichment's write (worker/processors/enrichment.ts), compare-and-set: each offense's
 * evidence becomes `next` only while it is still `expected`; the ids written.
 */
export const WRITE_EVIDENCE = `UPDATE offenses o SET evidence = u.next, updated_at = now()
                   FROM unnest($1::uuid[], $2::jsonb[], $3::jsonb[]) AS u(id, next, expected)
                  WHERE o.id = u.id AND o.evidence = u.expected
                 RETURNING o.id`;

/**
 * Marks the offenses of a resolved case reviewed and resolved (their points move through the offense
 * life cycle, not here); answers each with what the resolution's effects need.
 */
export async function markCaseOffensesReviewed(db: Queryable, caseId: string) {
  const { rows } = await db.query<{
    id: string;
    studio_id: string;
    penalty_points: number;
    reporter_id: string | null;
    match_id: string | null;
    /**
     * A notice's (a person's or a trusted flagger's) or the sign-in check's own filing on a suspected
     * evasion (NOT_FILED_BY_STUDIO): the studio did not file it.
     */
    not_the_studios: boolean;
  }>(
    `UPDATE offenses o SET reviewed_by_admin = true, resolved = true, resolved_at = now(), updated_at = now()
       FROM case_offenses co WHERE co.case_id = $1 AND o.id = co.offense_id
     RETURNING o.id, o.studio_id, o.penalty_points, o.reporter_id, o.match_id,
               coalesce(o.context->>'source' IN (${NOT_FILED_BY_STUDIO_SQL}), false) AS not_the_studios`,
    [caseId],
  );
  return rows;
}
