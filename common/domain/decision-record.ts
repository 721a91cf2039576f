import type { SanctionType } from './sanctions.js';
import { AUTOMATED_SOURCES, type OffenseType, type Severity } from './reports.js';
import type { TDB } from './transparency-vocabulary.js';

export type TdbCategory = (typeof TDB.category)[number];

/**
 * Where a report that led to a decision came from: a game's anti-cheat system or server (automated
 * detection), the service's own sign-in check (a suspected evasion of a ban: automated detection
 * too), a player through the game, a person's notice (DSA Art. 16) or a trusted flagger's
 * (Art. 22); `game`: the studio's report with no source named.
 */
export const REPORT_ORIGINS = [
  'anticheat_system',
  'game_server',
  'evasion_check',
  'player',
  'notice',
  'trusted_flagger',
  'game',
] as const;
export type ReportOrigin = (typeof REPORT_ORIGINS)[number];

/** Where what led to a decision came from, as the regulator counts it. */
export type DecisionSource = 'own_initiative' | 'player_report' | 'notice' | 'trusted_flagger';

/**
 * The record of a sanction's decision (issue 49): who decided, about what, on what ground and what
 * led to it, where and for how long, how automated, in which category. Every message about the
 * decision (the player's statement of reasons, the Transparency Database statement, the audit log's
 * words) is made from it by its own projection, and says nothing it does not hold. It holds no
 * personal data and no words anyone wrote (the moderator's reason is the player's, read beside it),
 * so an erasure leaves it whole.
 */
export interface SanctionDecision {
  sanctionId: string;
  type: SanctionType;
  scope: 'global' | 'studio';
  /** The studio's name for a decision scoped to its games (null: global, or a studio since gone). */
  scopeName?: string | null;
  startsAt: Date;
  expiresAt: Date | null;
  /**
   * A restriction counted in matches (issue 54): how many finished matches it lasts and how many are
   * left (its end is set when the last is finished). Null or absent: it lasts a time.
   */
  matches?: { total: number; left: number } | null;
  createdAt: Date;
  /** Who decided: a moderator, a studio through the API, the strike ladder or a rule (automatically). */
  decidedBy: 'moderator' | 'studio' | 'strike_ladder' | 'rule';
  /** The rule that placed it, by name and version (decidedBy rule), and by id (recorded since migration 059). */
  rule?: { id?: string; name: string; version: number } | null;
  /**
   * Placed as part of a wave (a ban wave, or a single sanction that waited for a second moderator):
   * how many accounts the wave named, and whether a second moderator approved it first (four eyes).
   */
  wave?: { id?: string; size: number; approved: boolean } | null;
  /**
   * It extends a sanction of a strongly linked account (docs/linked-accounts.md): that sanction's id
   * and the kinds of signal the two accounts share (never the other account's identity).
   */
  extendedFrom?: { sanctionId: string; kinds: readonly string[] } | null;
  /** The case the decision was on, when there is one. */
  case: {
    type: OffenseType;
    severity: Severity;
    /** The first report of the case (the content's date). */
    firstReportAt: Date;
    /** Where its reports came from, each once. */
    origins: readonly ReportOrigin[];
    /** The DSA categories the notices of the case named (a notifier's or a trusted flagger's choice). */
    categories: readonly TdbCategory[];
  } | null;
  /** The category whoever placed it chose instead of the kind's (null or absent: none chosen). */
  category?: TdbCategory | null;
}

/**
 * Whether some report of the case came from an automated system (an anti-cheat system, a game
 * server, the service's sign-in check).
 */
export const detectedAutomatically = (d: Pick<SanctionDecision, 'case'>): boolean =>
  (d.case?.origins ?? []).some((o) => (AUTOMATED_SOURCES as readonly string[]).includes(o));

/**
 * The source the regulator counts: a notice the decision answers is its source (Art. 16, 22), before
 * the game's own detection; players' reports are a notification; anything else, and no case at all,
 * is the platform's own initiative.
 */
export function decisionSource(d: Pick<SanctionDecision, 'case'>): DecisionSource {
  const origins = d.case?.origins ?? [];
  if (origins.includes('trusted_flagger')) return 'trusted_flagger';
  if (origins.includes('notice')) return 'notice';
  if (detectedAutomatically(d)) return 'own_initiative';
  if (origins.includes('player')) return 'player_report';
  return 'own_initiative';
}

/** The category a decision is filed under: the one chosen, else the one its notices named, else none. */
export const chosenCategory = (d: Pick<SanctionDecision, 'category' | 'case'>): TdbCategory | null =>
  d.category ?? d.case?.categories[0] ?? null;

/** How the behaviour came to light, in words a player and a regulator read alike (no names). */
export function detectionWords(d: Pick<SanctionDecision, 'case'>): string | null {
  const origins = d.case?.origins ?? [];
  if (origins.length === 0) return null;
  const parts: string[] = [];
  if (origins.includes('anticheat_system')) parts.push("the game's anti-cheat system detected it");
  if (origins.includes('game_server')) parts.push("the game's server detected it");
  // Never the other account's identity: the ground is the link and that account's ban.
  if (origins.includes('evasion_check'))
    parts.push(
      "the service's linked-accounts check detected it: the signals the game sent when the account signed in link it strongly to an account under a ban in force (evasion of that ban)",
    );
  if (origins.includes('trusted_flagger'))
    parts.push('a trusted flagger (an organisation awarded that status under DSA Art. 22) notified it');
  if (origins.includes('notice')) parts.push('a member of the public notified it (DSA Art. 16)');
  if (origins.includes('player')) parts.push('players reported it');
  if (origins.includes('game')) parts.push("the game's studio reported it");
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

/**
 * Whether the case holds nothing but the service's own suspicion of a ban's evasion (issue 53): no
 * report of the behaviour of its kind, so no message may say there were reports of it.
 */
export const evasionOnly = (d: Pick<SanctionDecision, 'case'>): boolean =>
  (d.case?.origins.length ?? 0) > 0 && d.case!.origins.every((o) => o === 'evasion_check');

/**
 * The kind of behaviour the decision is about: its case's, except for a case of a suspected evasion
 * alone, which is about evading a ban (a breach of the terms, whatever the banned account did).
 */
export const caseKind = (d: Pick<SanctionDecision, 'case'>): OffenseType | null =>
  d.case && !evasionOnly(d) ? d.case.type : null;

/** Who decided, in words (no names): a person, a studio, the ladder, a rule, a wave, four eyes. */
export function deciderWords(d: SanctionDecision, what: string): string {
  const case_ = d.case;
  // What the case held: reports of the behaviour, or the sign-in check's suspicion of evasion alone.
  const evasion = evasionOnly(d);
  const held = evasion ? 'a suspected evasion of a ban, which the service found' : `reports of ${what}`;
  const them = evasion ? 'it' : 'them';
  const wave = d.wave
    ? d.wave.size > 1
      ? `, as part of a ban wave of ${d.wave.size} accounts${d.wave.approved ? ', which a second moderator approved before it ran' : ''}`
      : d.wave.approved
        ? '; a second moderator approved it before it took effect'
        : ''
    : '';
  switch (d.decidedBy) {
    case 'strike_ladder':
      return `A moderator upheld ${held}, which added a strike; the account's active strikes reached a rung of the strike ladder, which placed this restriction automatically.`;
    case 'rule':
      return `An automated rule of the service${d.rule ? ` (“${d.rule.name}”, version ${d.rule.version})` : ''}, written and approved by two administrators, matched ${held} and placed this restriction automatically; no moderator had reviewed ${them} when it was placed.`;
    case 'studio':
      return case_
        ? `The game's studio decided it, on ${held}${wave}.`
        : `The game's studio decided it for its games${wave}.`;
    case 'moderator':
      return case_
        ? `A moderator reviewed ${held} and upheld ${them}${wave}.`
        : `A moderator decided it on their own initiative, not as the decision on a case of reports${wave}.`;
  }
}

/**
 * What a player may do beyond an appeal here, for every decision (DSA Art. 17(3)(f)): the
 * out-of-court dispute settlement of Art. 21 and the courts.
 */
export const REDRESS =
  'Beyond an appeal here, you may take the decision to a certified out-of-court dispute settlement body (DSA Art. 21), and to the courts.';

/**
 * The details of the audit entry of a sanction's placement, from its record (the audit log's words,
 * common/domain/audit-words.ts, read them; an erasure keeps those that say what the decision was):
 * what placed it (a wave, a rule by id and version, the ladder, automated or not) and what it extends.
 */
export function placementAuditDetails(d: SanctionDecision): Record<string, unknown> {
  return {
    ...(d.wave?.id ? { waveId: d.wave.id } : {}),
    ...(d.decidedBy === 'rule' && d.rule
      ? { ruleId: d.rule.id, ruleVersion: d.rule.version, automated: true }
      : {}),
    ...(d.decidedBy === 'strike_ladder' ? { strikeLadder: true, automated: true } : {}),
    ...(d.extendedFrom
      ? { extendedFrom: d.extendedFrom.sanctionId, linkKinds: [...d.extendedFrom.kinds] }
      : {}),
  };
}
