import { SEVERITIES, type Severity } from './reports.js';

/**
 * A review case's priority (issue 38; docs/moderators.md "Priority"): a sum of documented inputs, each capped, so
 * a case's place in the queue is explained by its figures. One truth: the SQL that keeps the stored
 * priority (common/lifecycles/review-case.ts, PRIORITY_SQL) and the explanation on the case
 * (explainPriority) are both made from PRIORITY_WEIGHTS, and a test holds them equal.
 *
 * The stored priority orders the queue (an index on it); its score is the same on a 0-100 scale: the
 * raw sum over PRIORITY_MAX, capped at 100. A rule's priority floor (given on the stored scale, up to
 * 1000) lifts a case above every sum, so a case a rule raised scores 100.
 */
export const PRIORITY_WEIGHTS = {
  /** Per rank of the highest severity: low 0, medium 1, high 2, critical 3. */
  severityRank: 25,
  /** Times the highest confidence (0 to 1) of an automated finding. */
  confidence: 10,
  /** Per distinct game (studio's title) reporting, at most `gamesCap`. */
  game: 5,
  gamesCap: 5,
  /** Per distinct reporter, at most `reportersCap`. */
  reporter: 3,
  reportersCap: 5,
  /** Per offense of the player before the case's first report, at most `earlierCap`. */
  earlierOffense: 2,
  earlierCap: 10,
  /** Per point held for the case (applied if upheld), at most `heldCap` points. */
  heldPoint: 0.5,
  heldCap: 50,
  /** A trusted flagger's notice in the case (DSA Art. 22: decided with priority). */
  trustedFlagger: 50,
  /**
   * An urgent notice in the case (a life or safety at risk, a child involved: docs/moderators.md "Notices"): above
   * every sum and every rule's floor, so it is first in its queue. Not counted in PRIORITY_MAX: it
   * scores 100 whatever else the case holds.
   */
  urgent: 1000,
} as const;

const W = PRIORITY_WEIGHTS;

/** The largest sum the inputs can make (220): the score's 100. */
export const PRIORITY_MAX =
  3 * W.severityRank +
  W.confidence +
  W.game * W.gamesCap +
  W.reporter * W.reportersCap +
  W.earlierOffense * W.earlierCap +
  W.heldPoint * W.heldCap +
  W.trustedFlagger;

/**
 * SQL: the stored priority from a case's figures, each a SQL expression (the severity as its 1-based
 * position in SEVERITIES), never below the case's rule floor.
 */
export function prioritySql(x: {
  sev: string;
  confidence: string;
  games: string;
  reporters: string;
  earlier: string;
  held: string;
  flagged: string;
  urgent: string;
  floor: string;
}): string {
  return `GREATEST(${W.severityRank} * (${x.sev} - 1) + ${W.confidence} * ${x.confidence}
    + ${W.game} * LEAST(${x.games}, ${W.gamesCap}) + ${W.reporter} * LEAST(${x.reporters}, ${W.reportersCap})
    + ${W.earlierOffense} * LEAST(${x.earlier}, ${W.earlierCap}) + LEAST(${x.held}, ${W.heldCap}) * ${W.heldPoint}
    + CASE WHEN ${x.flagged} THEN ${W.trustedFlagger} ELSE 0 END
    + CASE WHEN ${x.urgent} THEN ${W.urgent} ELSE 0 END, coalesce(${x.floor}, 0))`;
}

export interface PriorityFacts {
  highestSeverity: Severity;
  maxConfidence: number;
  distinctGames: number;
  distinctReporters: number;
  earlierOffenses: number;
  heldPoints: number;
  flaggedByTrusted: boolean;
  /** An urgent notice in the case. */
  urgent: boolean;
  /** A live rule's floor (stored scale), or null. */
  priorityFloor: number | null;
}

export type PriorityInput =
  | 'severity'
  | 'confidence'
  | 'distinct_games'
  | 'distinct_reporters'
  | 'earlier_offenses'
  | 'held_points'
  | 'trusted_flagger'
  | 'urgent'
  | 'rule';

export interface PriorityExplained {
  /** 0 to 100: the stored priority over PRIORITY_MAX, capped. */
  score: number;
  /** The inputs that added to it, largest first, each with its points on the 0-100 scale and why. */
  inputs: { input: PriorityInput; points: number; why: string }[];
}

const on100 = (raw: number) => Math.round((raw / PRIORITY_MAX) * 1000) / 10;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Why a case stands where it does: each input's share of its score, in words. */
export function explainPriority(f: PriorityFacts): PriorityExplained {
  const rank = SEVERITIES.indexOf(f.highestSeverity);
  const games = Math.min(f.distinctGames, W.gamesCap);
  const reporters = Math.min(f.distinctReporters, W.reportersCap);
  const earlier = Math.min(f.earlierOffenses, W.earlierCap);
  const held = Math.min(f.heldPoints, W.heldCap);
  const parts: { input: PriorityInput; raw: number; why: string }[] = [
    { input: 'severity', raw: W.severityRank * rank, why: `highest severity ${f.highestSeverity}` },
    {
      input: 'confidence',
      raw: W.confidence * f.maxConfidence,
      why: `an automated finding with confidence ${f.maxConfidence}`,
    },
    {
      input: 'distinct_games',
      raw: W.game * games,
      why: `reported from ${plural(f.distinctGames, 'game')}${f.distinctGames > W.gamesCap ? ` (counted up to ${W.gamesCap})` : ''}`,
    },
    {
      input: 'distinct_reporters',
      raw: W.reporter * reporters,
      why: `${plural(f.distinctReporters, 'distinct reporter')}${f.distinctReporters > W.reportersCap ? ` (counted up to ${W.reportersCap})` : ''}`,
    },
    {
      input: 'earlier_offenses',
      raw: W.earlierOffense * earlier,
      why: `${plural(f.earlierOffenses, 'earlier offense')} of the player${f.earlierOffenses > W.earlierCap ? ` (counted up to ${W.earlierCap})` : ''}`,
    },
    {
      input: 'held_points',
      raw: W.heldPoint * held,
      why: `${plural(f.heldPoints, 'point')} held until a moderator decides${f.heldPoints > W.heldCap ? ` (counted up to ${W.heldCap})` : ''}`,
    },
    {
      input: 'trusted_flagger',
      raw: f.flaggedByTrusted ? W.trustedFlagger : 0,
      why: "a trusted flagger's notice (decided with priority)",
    },
    {
      input: 'urgent',
      raw: f.urgent ? W.urgent : 0,
      why: 'an urgent notice: a life or safety at risk, or a child involved (first in its queue)',
    },
  ];
  const sum = parts.reduce((n, p) => n + p.raw, 0);
  // A floor above the most the inputs make still scores 100: its share is what it adds up to there.
  if (f.priorityFloor !== null && f.priorityFloor > sum)
    parts.push({
      input: 'rule',
      raw: Math.min(f.priorityFloor, PRIORITY_MAX) - sum,
      why: `a rule set its priority to at least ${f.priorityFloor}`,
    });
  const raw = Math.max(sum, f.priorityFloor ?? 0);
  return {
    score: Math.min(100, on100(raw)),
    inputs: parts
      .filter((p) => p.raw > 0)
      .sort((a, b) => b.raw - a.raw)
      // An urgent notice's weight is above the scale: its share is shown as the whole of it.
      .map((p) => ({ input: p.input, points: Math.min(100, on100(p.raw)), why: p.why })),
  };
}
