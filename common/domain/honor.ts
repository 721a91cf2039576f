import {
  COMMEND_PAIR_DAYS,
  COMMEND_WEIGHT,
  HONOR_FINISHED_QUARTERS,
  HONOR_LEFT_EARLY_QUARTERS,
  HONOR_LEVEL_QUARTERS,
  HONOR_MAX,
  RECOVERY_CREDIT_PER_QUARTER_S,
  RECOVERY_CREDIT_SHARE,
  type CommendationWhy,
} from './matches.js';

/**
 * Commendations, honor and the recovery credit (issue 54, part 4; docs/studios.md "Commendations and
 * honor"): the rules as pure functions, so the life cycle (common/lifecycles/honor.ts) only gathers
 * the facts and writes what these decide.
 */

/** One commendation to weigh, with what the record says of its pair before this batch. */
export interface CommendationToWeigh {
  matchId: string;
  endedAt: Date;
  commender: string;
  recipient: string;
  /** Both in the same party of the match. */
  ownParty: boolean;
  /** The studio's signals link the two strongly (an account and its alt). */
  linked: boolean;
  /** The record holds a commendation of the same pair (same direction) within COMMEND_PAIR_DAYS before. */
  repeatOnRecord: boolean;
  /** The record holds a counted commendation the other way within COMMEND_PAIR_DAYS before. */
  returnedOnRecord: boolean;
}

const PAIR_MS = COMMEND_PAIR_DAYS * 86_400_000;

/**
 * Why each commendation weighs what it does, in the order given: `linked` first, then `repeat` (the
 * same pair within the window, on record or earlier in the batch), then `returned` (the other way,
 * counted, within the window; in one match a mutual pair counts neither), then `own_party`, else
 * `counted`. The batch is walked by end, then match id, so a later match sees the earlier ones.
 */
export function weighCommendations(items: readonly CommendationToWeigh[]): CommendationWhy[] {
  const order = items
    .map((c, i) => ({ c, i }))
    .sort(
      (a, b) =>
        a.c.endedAt.getTime() - b.c.endedAt.getTime() ||
        (a.c.matchId < b.c.matchId ? -1 : a.c.matchId > b.c.matchId ? 1 : 0),
    );
  const key = (from: string, to: string) => `${from}>${to}`;
  // Within the batch: every commendation of a pair (any weight), and the counted ones.
  const given = new Map<string, number[]>();
  const counted = new Map<string, number[]>();
  const sameMatch = new Set(items.map((c) => `${c.matchId}|${key(c.commender, c.recipient)}`));
  const within = (list: number[] | undefined, end: number) =>
    !!list?.some((t) => t <= end && end - t < PAIR_MS);
  const why: CommendationWhy[] = new Array(items.length);
  for (const { c, i } of order) {
    const end = c.endedAt.getTime();
    const pair = key(c.commender, c.recipient);
    const back = key(c.recipient, c.commender);
    let w: CommendationWhy;
    if (c.linked) w = 'linked';
    else if (c.repeatOnRecord || within(given.get(pair), end)) w = 'repeat';
    else if (c.returnedOnRecord || within(counted.get(back), end) || sameMatch.has(`${c.matchId}|${back}`))
      w = 'returned';
    else w = c.ownParty ? 'own_party' : 'counted';
    why[i] = w;
    given.set(pair, [...(given.get(pair) ?? []), end]);
    if (COMMEND_WEIGHT[w] > 0) counted.set(pair, [...(counted.get(pair) ?? []), end]);
  }
  return why;
}

/** What a batch of matches brings one player: finished (and not reported in), left early, commendation quarters. */
export interface ConductDelta {
  finishedClean: number;
  leftEarly: number;
  commendQuarters: number;
}

/** The progress quarters a batch adds (negative: matches left early take more than it adds). */
export const honorQuarters = (d: ConductDelta) =>
  d.finishedClean * HONOR_FINISHED_QUARTERS + d.commendQuarters - d.leftEarly * HONOR_LEFT_EARLY_QUARTERS;

/**
 * The honor after `quarters` more: level and progress as one count of quarters, never below 0 nor
 * above HONOR_MAX whole levels (at the top, the progress stays 0).
 */
export function nextHonor(
  level: number,
  progress: number,
  quarters: number,
): { level: number; progress: number } {
  const total = Math.max(
    0,
    Math.min(HONOR_MAX * HONOR_LEVEL_QUARTERS, level * HONOR_LEVEL_QUARTERS + progress + quarters),
  );
  const l = Math.min(HONOR_MAX, Math.floor(total / HONOR_LEVEL_QUARTERS));
  return { level: l, progress: total - l * HONOR_LEVEL_QUARTERS };
}

/**
 * How many seconds a batch's credit (finished matches not reported in, and commendation quarters)
 * moves the recovery clock back: RECOVERY_CREDIT_PER_QUARTER_S a quarter, at most
 * RECOVERY_CREDIT_SHARE of one recovery period since the clock last started (`alreadyS`), so credit
 * at most doubles the speed of recovery. Nothing when recovery is off (`periodS` 0).
 */
export function recoveryCredit(quarters: number, periodS: number, alreadyS: number): number {
  if (periodS <= 0 || quarters <= 0) return 0;
  const room = Math.floor(periodS * RECOVERY_CREDIT_SHARE) - alreadyS;
  return Math.max(0, Math.min(room, quarters * RECOVERY_CREDIT_PER_QUARTER_S));
}
