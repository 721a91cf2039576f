import type { StrikeRung } from '../config.js';
import { SANCTION } from './audit-words.js';
import { matchesWords } from './statement-of-reasons.js';

/**
 * Conduct summaries (issue 54, part 4; docs/studios.md "Conduct summaries"): what a summary says,
 * in numbers and in plain words, made from counts alone (pure; common/lifecycles/conduct.ts counts).
 */

/** Why a summary was made: the player's N-th match in a studio's games, or a restriction began. */
export type ConductTrigger = 'matches' | 'restriction';

export interface ConductCounts {
  matches: number;
  finished: number;
  leftEarly: number;
  /** Commendations counted (a weight above 0: Commendations and honor). */
  commendations: number;
  /** The studio's reports about the player in the window, whatever became of them. */
  reports: number;
  /** The same, the reports of one party of one match counted once. */
  reportingParties: number;
  activeStrikes: number;
}

/** The strike ladder's next step from a number of strikes in force: what it places, at how many. */
export interface NextStep {
  strikes: number;
  type: StrikeRung['type'];
  durationSeconds: number | null;
  matches: number | null;
}

/** The first rung above the strikes in force; null when the ladder has none left (or is empty). */
export function nextStep(ladder: readonly StrikeRung[], activeStrikes: number): NextStep | null {
  const rung = ladder.find((r) => r.strikes > activeStrikes);
  if (!rung) return null;
  return {
    strikes: rung.strikes,
    type: rung.type,
    durationSeconds: rung.matches ? null : rung.durationSeconds,
    matches: rung.matches ?? null,
  };
}

/** "7 days", "12 hours", "90 minutes", "30 seconds": the largest whole unit. */
export function durationWords(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, name] = units.find(([s]) => seconds % s === 0 && seconds >= s) ?? [1, 'second'];
  const n = seconds / size;
  return `${n} ${name}${n === 1 ? '' : 's'}`;
}

/** A step in words: "a matchmaking restriction for 10 matches", "a temporary ban of 7 days". */
export function stepWords(step: NextStep): string {
  const what = SANCTION[step.type];
  if (step.matches) return `${what} for the next ${matchesWords(step.matches)} you finish`;
  if (step.durationSeconds) return `${what} of ${durationWords(step.durationSeconds)}`;
  return what;
}

/**
 * The plain warning, only when one more upheld report (one more strike) would reach the next step:
 * the player is told before it happens, not after.
 */
export function conductWarning(step: NextStep | null, activeStrikes: number): string | null {
  if (!step || step.strikes !== activeStrikes + 1) return null;
  return `Careful: one more upheld report would bring ${stepWords(step)} (you have ${activeStrikes} ${
    activeStrikes === 1 ? 'strike' : 'strikes'
  } in force; the next step is at ${step.strikes}).`;
}

const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * The summary in plain words, as the standing page and the studio's event give it: "Your last 10
 * matches: 9 finished, 1 left early; 3 reports (2 parties of players: reports from one party of a
 * match count once); 4 commendations."
 */
export function conductWords(trigger: ConductTrigger, c: ConductCounts): string {
  const why =
    trigger === 'restriction'
      ? `A restriction began. Since your last summary: ${n(c.matches, 'match', 'matches')} played,`
      : `Your last ${n(c.matches, 'match', 'matches')}:`;
  const reports =
    c.reports === 0
      ? 'no reports'
      : c.reportingParties === c.reports
        ? n(c.reports, 'report')
        : `${n(c.reports, 'report')} (${n(c.reportingParties, 'party', 'parties')} of players: reports from one party of a match count once)`;
  return `${why} ${c.finished} finished, ${c.leftEarly} left early; ${reports}; ${n(c.commendations, 'commendation')}.`;
}

/** A summary as made and as it is read (the studio's event, the standing page, the export). */
export interface ConductSummary extends ConductCounts {
  id: string;
  playerRowId: string;
  playerId: string;
  studioId: string;
  trigger: ConductTrigger;
  sanctionId: string | null;
  since: Date | null;
  createdAt: Date;
  nextStep: NextStep | null;
  warning: string | null;
}

/** The summary as the studio's event and the API give it. */
export function presentConductSummary(s: ConductSummary) {
  return {
    id: s.id,
    playerId: s.playerId,
    trigger: s.trigger,
    sanctionId: s.sanctionId,
    since: s.since?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
    matches: s.matches,
    finished: s.finished,
    leftEarly: s.leftEarly,
    commendations: s.commendations,
    reports: s.reports,
    reportingParties: s.reportingParties,
    activeStrikes: s.activeStrikes,
    nextStep: s.nextStep,
    warning: s.warning,
    text: conductWords(s.trigger, s),
  };
}
