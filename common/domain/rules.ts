import Joi from 'joi';
import { REPORT_KINDS, SEVERITIES, type OffenseType, type Severity } from './reports.js';
import { SANCTION_TYPES, type SanctionType } from './sanctions.js';

const OFFENSE_TYPES = Object.values(REPORT_KINDS);

/**
 * A rule as data (issue 38; docs/moderators.md "Rules"): conditions over a review case's figures and its player,
 * all of which must hold, and actions on the case and the player. Pure: what a rule is and whether it
 * matches; the use case (common/usecases/rules.ts) reads the facts and applies the actions.
 */

export const RULE_MODES = ['draft', 'background', 'live'] as const;
export type RuleMode = (typeof RULE_MODES)[number];
/**
 * What makes a rule weigh: reports filed into a case (its figures changed), a sanction placed on the
 * player (its open cases), the schedule (open cases, every RULES_SCHEDULE_INTERVAL_MS), an evasion
 * suspicion recorded for the player (its open cases; docs/linked-accounts.md), or a match recorded
 * in which the player left early or that counted down one of their restrictions (their open cases;
 * docs/studios.md "Matches").
 */
export const RULE_TRIGGERS = [
  'filing',
  'sanction_placed',
  'schedule',
  'evasion_suspected',
  'match_recorded',
] as const;
export type RuleTrigger = (typeof RULE_TRIGGERS)[number];
import { CASE_SOURCES, type CaseSource } from './reports.js';

export interface RuleConditions {
  /** The case's kind is one of these. */
  types?: OffenseType[];
  /** The case's highest severity is at least this. */
  minSeverity?: Severity;
  /** The case holds a report from one of these sources. */
  sources?: CaseSource[];
  minReports?: number;
  minDistinctReporters?: number;
  minDistinctGames?: number;
  /** The player's trust score is at most this. */
  maxTrustScore?: number;
  /** The player carries one of these tags. */
  playerTags?: string[];
  /** The case is in one of these queues now. */
  queues?: string[];
  /** The player has no sanction in force. */
  noActiveSanction?: boolean;
  /**
   * The player is (true) or is not (false) suspected of evading a ban: an evasion suspicion of theirs
   * is open (recorded by the sign-in check and not cleared by a moderator).
   */
  evasionSuspected?: boolean;
  /**
   * Velocity: at least `reports` of the case's reports came within `withinSeconds` up to its latest
   * one (a raid's minutes, a burst of detections).
   */
  burst?: { reports: number; withinSeconds: number };
  /** The case has been open at least this many hours (for a scheduled rule: nobody got to it). */
  minOpenHours?: number;
  /** The highest confidence of an automated finding in the case is at least this (0 to 1). */
  minConfidence?: number;
  /** The player has at least this many strikes in force (upheld cases, not expired or removed). */
  minActiveStrikes?: number;
  /** The case's reports came from at least this many studios. */
  minDistinctStudios?: number;
  /**
   * A report of the case came from a reporter whose credibility, (upheld + 1) / (upheld + dismissed +
   * 2) at its studio, is at least this (0 to 1): one whose reports moderators tend to uphold.
   */
  minReporterCredibility?: number;
  /** Of the player's last `matches` recorded matches (every studio's), at least `atLeast` left early. */
  leftEarly?: { matches: number; atLeast: number };
  /**
   * A restriction counted in matches is running out: one in force with at most this many matches
   * left, or one that ran out within the last 24 hours (0 left).
   */
  maxRestrictionMatchesLeft?: number;
}

/** The most matches a leftEarly condition may look back over: what the facts carry. */
export const LEFT_EARLY_MAX_MATCHES = 100;

/** The most reports a burst condition may ask for: what the facts carry of a case's latest reports. */
export const BURST_MAX_REPORTS = 200;

export interface RuleActions {
  /** The case's priority is never below this while it is open. */
  priority?: number;
  /** Moves the case to this queue (pinned, as a moderator's move). */
  queue?: string;
  /** Escalates the case to the senior role. */
  escalate?: boolean;
  /** Tags the player. */
  tag?: string;
  /**
   * Places a sanction from a decision template on the player, with the case: the template's type,
   * duration and reason, copied into the rule when it is saved (what each version places stays as it
   * was). Live, it waits for a second admin's approval of the version (four eyes).
   */
  sanction?: RuleSanction;
  /** Sends rule.matched to the studios that filed reports in the case (their games can act too). */
  notify?: boolean;
  /** Adds the player to a moderator's wave that has not run (a ring collected for its day). */
  wave?: { waveId: string };
  /**
   * Holds the player's points for this many hours: their reports are filed as held for a moderator
   * (statusReason rule_hold), so a raid's reports take nothing until someone looks.
   */
  holdPoints?: { hours: number };
  /** Ends a hold on the player's points: their next reports take points again. */
  releaseHold?: boolean;
}

export interface RuleSanction {
  templateId: string;
  type: SanctionType;
  durationSeconds: number | null;
  reason: string;
}

/** Whether a rule in this mode with these actions waits for a second admin before it acts. */
export const needsApproval = (mode: RuleMode, a: RuleActions) =>
  mode === 'live' && (a.sanction !== undefined || a.wave !== undefined);

/** What the service knows of a case when a rule is weighed against it. */
export interface CaseFacts {
  caseId: string;
  playerId: string;
  type: OffenseType;
  severity: Severity;
  sources: string[];
  reports: number;
  distinctReporters: number;
  distinctGames: number;
  trustScore: number;
  playerTags: string[];
  queue: string;
  /** The types of the player's sanctions in force. */
  activeSanctionTypes: string[];
  /**
   * When the case's latest reports came (epoch ms, newest first, at most BURST_MAX_REPORTS); read only
   * when a running rule has a burst condition (else empty).
   */
  reportTimes: number[];
  /** Hours since the case opened. */
  openHours: number;
  /** The waves the player is a member of. */
  waves: string[];
  /** The case's highest confidence of an automated finding (0 to 1). */
  confidence: number;
  /** The player's strikes in force. */
  activeStrikes: number;
  /** The studios whose games reported in the case. */
  distinctStudios: number;
  /** The highest credibility of the case's named reporters, or null when none is named. */
  bestCredibility: number | null;
  /** Until when a rule holds the player's points (epoch ms), or null. */
  pointsHeldUntil: number | null;
  /** Whether an evasion suspicion of the player is open (not cleared). */
  evasionSuspected: boolean;
  /**
   * Whether the player left each of their latest recorded matches early (newest first, at most
   * LEFT_EARLY_MAX_MATCHES); read only when a running rule has a leftEarly condition (else empty).
   */
  recentLeftEarly: boolean[];
  /**
   * The fewest matches left of the player's restrictions counted in matches in force, 0 for one that
   * ran out within 24 hours; null when they have neither.
   */
  restrictionMatchesLeft: number | null;
  /** When these facts were read (epoch ms): the clock a hold is weighed against. */
  readAt: number;
  escalated: boolean;
}

const TAG = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const count = Joi.number().integer().min(1).max(1_000_000);

export const conditionsSchema = Joi.object({
  types: Joi.array()
    .items(Joi.string().valid(...OFFENSE_TYPES))
    .min(1)
    .unique(),
  minSeverity: Joi.string().valid(...SEVERITIES),
  sources: Joi.array()
    .items(Joi.string().valid(...CASE_SOURCES))
    .min(1)
    .unique(),
  minReports: count,
  minDistinctReporters: count,
  minDistinctGames: count,
  maxTrustScore: Joi.number().integer().min(0).max(100),
  playerTags: Joi.array().items(Joi.string().pattern(TAG)).min(1).max(20).unique(),
  queues: Joi.array().items(Joi.string().max(40)).min(1).max(20).unique(),
  noActiveSanction: Joi.boolean(),
  evasionSuspected: Joi.boolean().description(
    'The player is (true) or is not (false) suspected of evading a ban: an evasion suspicion of theirs is open, not cleared by a moderator.',
  ),
  burst: Joi.object({
    reports: Joi.number().integer().min(2).max(BURST_MAX_REPORTS).required(),
    withinSeconds: Joi.number()
      .integer()
      .min(1)
      .max(7 * 86_400)
      .required(),
  }).description(
    "Velocity: at least `reports` of the case's reports came within `withinSeconds` up to its latest one.",
  ),
  minConfidence: Joi.number()
    .min(0)
    .max(1)
    .description("The case's highest confidence of an automated finding is at least this (0 to 1)."),
  minActiveStrikes: Joi.number()
    .integer()
    .min(1)
    .max(1000)
    .description('The player has at least this many strikes in force.'),
  minDistinctStudios: count.description("The case's reports came from at least this many studios."),
  minReporterCredibility: Joi.number()
    .min(0)
    .max(1)
    .description(
      'A report of the case came from a reporter whose credibility, (upheld + 1) / (upheld + dismissed + 2), is at least this.',
    ),
  minOpenHours: Joi.number()
    .integer()
    .min(1)
    .max(365 * 24)
    .description('The case has been open at least this many hours.'),
  leftEarly: Joi.object({
    matches: Joi.number().integer().min(1).max(LEFT_EARLY_MAX_MATCHES).required(),
    atLeast: Joi.number().integer().min(1).max(LEFT_EARLY_MAX_MATCHES).required(),
  }).description(
    "Of the player's last `matches` recorded matches (every studio's), at least `atLeast` were left early (an `atLeast` above `matches` never holds).",
  ),
  maxRestrictionMatchesLeft: Joi.number()
    .integer()
    .min(0)
    .max(1000)
    .description(
      'A restriction counted in matches is running out: one in force with at most this many matches left, or one that ran out within the last 24 hours (0).',
    ),
})
  .min(1)
  // The converter drops an object's min(1): the document says it here (minProperties).
  .meta({ 'x-also': { minProperties: 1 } })
  .description('All must hold. At least one.');

export const actionsSchema = Joi.object({
  priority: Joi.number().min(0).max(1000).description("The case's priority is never below this while open."),
  queue: Joi.string().max(40).description('A queue key: the case moves there (pinned).'),
  escalate: Joi.boolean().valid(true).description('Escalates the case to the senior role.'),
  wave: Joi.object({
    waveId: Joi.string().guid().required().description("A moderator's wave that has not run."),
  }).description(
    "Adds the player to the wave (awaiting approval or scheduled; its sanction placed at its time). A live rule with it waits for a second admin's approval of each version.",
  ),
  holdPoints: Joi.object({
    hours: Joi.number().integer().min(1).max(720).required(),
  }).description(
    "Holds the player's points for `hours`: their reports are filed as held for a moderator (statusReason rule_hold).",
  ),
  releaseHold: Joi.boolean().valid(true).description("Ends a hold on the player's points."),
  notify: Joi.boolean()
    .valid(true)
    .description(
      'Sends rule.matched to the studios that filed reports in the case (docs/studios.md "Webhooks").',
    ),
  tag: Joi.string().pattern(TAG).description('Tags the player.'),
  sanction: Joi.object({
    templateId: Joi.string()
      .guid()
      .required()
      .description('A decision template in use that places a sanction.'),
    type: Joi.string()
      .valid(...SANCTION_TYPES)
      .description("The template's, copied when the rule is saved (a value given is replaced)."),
    durationSeconds: Joi.number()
      .integer()
      .allow(null)
      .description("The template's, copied when the rule is saved (a value given is replaced)."),
    reason: Joi.string()
      .max(2000)
      .description(
        "The template's player reason, copied when the rule is saved (a value given is replaced).",
      ),
  }).description(
    "Places the template's sanction on the player, with the case (automated: its statement of reasons names the rule). A live rule with it waits for a second admin's approval of each version.",
  ),
})
  .min(1)
  .meta({ 'x-also': { minProperties: 1 } })
  .description('At least one.');

const rank = (s: Severity) => SEVERITIES.indexOf(s);
/** The time the facts were read at (epoch ms). */
const now = (f: CaseFacts) => f.readAt;

/** Whether `b.reports` of the times (newest first) fall within `b.withinSeconds` up to the newest. */
function inBurst(b: { reports: number; withinSeconds: number }, times: number[]): boolean {
  if (times.length < b.reports) return false;
  const from = times[0]! - b.withinSeconds * 1000;
  return times.filter((t) => t >= from).length >= b.reports;
}

/** Whether every condition holds for the case. */
export function ruleMatches(c: RuleConditions, f: CaseFacts): boolean {
  if (c.types && !c.types.includes(f.type)) return false;
  if (c.minSeverity && rank(f.severity) < rank(c.minSeverity)) return false;
  if (c.sources && !c.sources.some((s) => f.sources.includes(s))) return false;
  if (c.minReports !== undefined && f.reports < c.minReports) return false;
  if (c.minDistinctReporters !== undefined && f.distinctReporters < c.minDistinctReporters) return false;
  if (c.minDistinctGames !== undefined && f.distinctGames < c.minDistinctGames) return false;
  if (c.maxTrustScore !== undefined && f.trustScore > c.maxTrustScore) return false;
  if (c.playerTags && !c.playerTags.some((t) => f.playerTags.includes(t))) return false;
  if (c.queues && !c.queues.includes(f.queue)) return false;
  if (c.noActiveSanction && f.activeSanctionTypes.length > 0) return false;
  if (c.evasionSuspected !== undefined && f.evasionSuspected !== c.evasionSuspected) return false;
  if (c.burst && !inBurst(c.burst, f.reportTimes)) return false;
  if (c.minOpenHours !== undefined && f.openHours < c.minOpenHours) return false;
  if (c.minConfidence !== undefined && f.confidence < c.minConfidence) return false;
  if (c.minActiveStrikes !== undefined && f.activeStrikes < c.minActiveStrikes) return false;
  if (c.minDistinctStudios !== undefined && f.distinctStudios < c.minDistinctStudios) return false;
  if (
    c.minReporterCredibility !== undefined &&
    (f.bestCredibility === null || f.bestCredibility < c.minReporterCredibility)
  )
    return false;
  if (
    c.leftEarly &&
    f.recentLeftEarly.slice(0, c.leftEarly.matches).filter(Boolean).length < c.leftEarly.atLeast
  )
    return false;
  if (
    c.maxRestrictionMatchesLeft !== undefined &&
    (f.restrictionMatchesLeft === null || f.restrictionMatchesLeft > c.maxRestrictionMatchesLeft)
  )
    return false;
  return true;
}

/**
 * What the rule's actions would change on this case now: an action that would change nothing (the
 * case already in that queue, escalated, the tag already there, the priority already above) is left
 * out, so a match that changes nothing is not counted as an action.
 */
export function effectiveActions(a: RuleActions, f: CaseFacts & { priority: number }): RuleActions {
  const out: RuleActions = {};
  if (a.priority !== undefined && f.priority < a.priority) out.priority = a.priority;
  if (a.queue !== undefined && f.queue !== a.queue) out.queue = a.queue;
  if (a.escalate && !f.escalated) out.escalate = true;
  // Telling the studios changes nothing here: it goes with a match that does something else, or alone
  // once a player within the cooldown.
  if (a.notify) out.notify = true;
  if (a.wave !== undefined && !f.waves.includes(a.wave.waveId)) out.wave = a.wave;
  // A hold changes something when it would end later than the one in force (if any).
  if (a.holdPoints !== undefined && (f.pointsHeldUntil ?? 0) < now(f) + a.holdPoints.hours * 3_600_000)
    out.holdPoints = a.holdPoints;
  if (a.releaseHold && f.pointsHeldUntil !== null && f.pointsHeldUntil > now(f)) out.releaseHold = true;
  if (a.tag !== undefined && !f.playerTags.includes(a.tag)) out.tag = a.tag;
  // A player already under a sanction of that type in force gets no second one.
  if (a.sanction !== undefined && !f.activeSanctionTypes.includes(a.sanction.type)) out.sanction = a.sanction;
  return out;
}
