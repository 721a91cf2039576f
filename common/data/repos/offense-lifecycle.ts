import {
  nextStatus,
  restoredByOf,
  shareReleasedPoints,
  shareRestoredPoints,
  type OffenseEvent,
  type OffenseStatus,
} from '../../domain/offense-lifecycle.js';
import type { Queryable } from '../db.js';
import { changeScore, type TrustChangeReason } from './trust.js';

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
 * The only code that moves an offense after filing (the table is in domain/offense-lifecycle.ts): a
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
