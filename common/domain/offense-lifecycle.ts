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
 * Nothing else moves. `restored`, `dropped` and `recorded` are final, so a second decision (a
 * dismissal after a granted appeal, or the reverse) finds nothing left to give back: an offense's
 * points come back at most once, whatever the path. common/data/repos/offense-lifecycle.ts is the
 * only code that writes a status after filing, and it does so under the offense's row lock.
 */
export const OFFENSE_STATUSES = ['applied', 'held', 'released', 'dropped', 'recorded', 'restored'] as const;
export type OffenseStatus = (typeof OFFENSE_STATUSES)[number];

/** The decisions that move an offense after it was filed. */
export type OffenseEvent = 'uphold' | 'dismiss' | 'appeal';

/** What gave an offense's points back (or dropped its held ones). */
export type RestoredBy = 'dismissal' | 'appeal';

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
