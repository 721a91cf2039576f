import type { AppealStatus } from '../lifecycles/appeal.js';
import type { OffenseStatus } from '../lifecycles/offense.js';
import type { OffenseType, Severity } from './reports.js';
import {
  deciderWords,
  detectedAutomatically,
  detectionWords,
  REDRESS,
  type SanctionDecision,
} from './decision-record.js';
import type { AppealReason } from './appeals.js';
import type { SanctionType } from './sanctions.js';

/**
 * A statement of reasons for a decision that affects a player (the content the EU Digital Services
 * Act, Art. 17, asks of platforms): what was decided, where and for how long; the facts and the rule
 * it rests on; whether automated means decided it; and how to appeal, by when. Written for the
 * player: it never says who reported them, and carries nothing of a studio's own report (its text,
 * evidence, match or reporter); the same statement goes to the standing page, the API
 * (`GET /v1/player/me/decisions`) and the `sanction.applied` event.
 */
export interface StatementOfReasons {
  /** The offense's or the sanction's id (what an appeal names). */
  id: string;
  kind: 'offense' | 'sanction';
  decidedAt: string;
  /** What was decided, in words. */
  decision: string;
  /** Where it applies: every game (global) or the games of one studio. */
  scope: { kind: 'global' } | { kind: 'studio'; name: string };
  /** When it applies: a sanction's period (no end for a permanent ban); null for points. */
  period: { startsAt: string; endsAt: string | null } | null;
  /** The facts the decision rests on. */
  facts: string;
  /** The rule it applies (a penalty rule, the strike ladder) or the reason a person gave. */
  ground: string;
  /** Whether automated means took the decision, and which. */
  automated: boolean;
  automatedMeans: string | null;
  /** Where it stands now, in words (given back, revoked, expired, in force). */
  state: string;
  /** The redress beyond an appeal here (DSA Art. 17(3)(f)), the same for every decision. */
  redress: string;
  appeal: {
    possible: boolean;
    /** Until when an appeal is taken (null when none is possible). */
    deadline: string | null;
    /** Why none is possible, or how to file one. */
    how: string;
    /** The appeal already filed, and its decision. */
    filed: {
      id: string;
      status: AppealStatus;
      /** The player's own reason and words, as filed. */
      reason: AppealReason;
      statement: string;
      decidedAt: string | null;
      note: string | null;
      /** A granted appeal: what the decision placed that stays in force, each with its ground, in words. */
      remains: string[];
    } | null;
  };
}

/** A time as the player reads it everywhere: `2026-11-26 06:33 UTC`. */
export const utcWords = (t: Date | string): string => {
  const iso = typeof t === 'string' ? t : t.toISOString();
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
};

export const KIND_WORDS: Record<OffenseType, string> = {
  cheating: 'cheating',
  toxicity: 'toxic behaviour',
  afk: 'leaving a match (AFK)',
  griefing: 'griefing',
};
const SOURCE_WORDS: Record<string, string> = {
  anticheat_system: "the game's anti-cheat system",
  game_server: "the game's server",
  player: 'another player',
  notice: 'a member of the public, in a notice (DSA Art. 16)',
  trusted_flagger: 'a trusted flagger, in a notice (DSA Art. 22)',
};
const SANCTION_WORDS: Record<SanctionType, string> = {
  warning: 'A warning',
  chat_restriction: 'A chat restriction: you cannot send chat messages',
  matchmaking_restriction: 'A matchmaking restriction: you cannot join matchmaking',
  temporary_ban: 'A temporary ban: you cannot play',
  permanent_ban: 'A permanent ban: you cannot play',
};
const HOLD_WORDS: Record<string, string> = {
  studio_budget: "the studio's daily limit on points it may take from one player was reached",
  rule_hold: 'an automated rule holds the points of reports against you until a moderator reviews them',
  reporter_credibility: 'reports from this reporter are often found unfounded',
  brigading: 'the same players reported you in several matches, which a moderator looks at before it counts',
  evasion_check: 'a link between accounts alone never takes points: a moderator decides first',
};

export interface AppealFiled {
  id: string;
  status: AppealStatus;
  reason: AppealReason;
  statement: string;
  decidedAt: Date | null;
  note: string | null;
  /** A granted appeal: the sanctions of the decision kept in force, and why. */
  kept: KeptFacts[];
}

/** A sanction a granted appeal left in force, with the ground the moderator gave. */
export interface KeptFacts {
  type: SanctionType;
  scopeName: string | null;
  expiresAt: Date | null;
  reason: string;
}

const HOW_TO_APPEAL =
  'Appeal on your standing page (/standing) or in the game, naming this decision, with your reason and a statement.';

/** A sanction in words: what it stops, where, until when. */
const sanctionWords = (
  type: SanctionType,
  scopeName: string | null,
  expiresAt: Date | null,
  matches?: { total: number } | null,
) =>
  `${SANCTION_WORDS[type]}${scopeName ? `, in the games of ${scopeName}` : ', in every game'}${
    type === 'warning'
      ? '.'
      : matches
        ? `, for the next ${matchesWords(matches.total)} you finish (a match you leave early does not count).`
        : expiresAt
          ? `, until ${utcWords(expiresAt)}.`
          : ', with no end.'
  }`;

/** "1 match", "10 matches". */
export const matchesWords = (n: number) => `${n} ${n === 1 ? 'match' : 'matches'}`;

function appealOf(
  possible: boolean,
  whyNot: string,
  decidedAt: Date,
  windowDays: number,
  now: Date,
  filed: AppealFiled | null,
): StatementOfReasons['appeal'] {
  const deadline = new Date(decidedAt.getTime() + windowDays * 86_400_000);
  const open = possible && !filed && now.getTime() <= deadline.getTime();
  const remains = (filed?.kept ?? []).map(
    (k) => `${sanctionWords(k.type, k.scopeName, k.expiresAt)} It stays in force: ${k.reason}`,
  );
  return {
    possible: open,
    deadline: possible ? deadline.toISOString() : null,
    how: filed
      ? filed.status === 'open'
        ? 'Your appeal is being reviewed.'
        : `Your appeal was ${filed.status}${
            remains.length ? `; part of the decision stays in force. ${remains.join(' ')}` : '.'
          }`
      : !possible
        ? whyNot
        : open
          ? HOW_TO_APPEAL
          : `Appeals were taken until ${utcWords(deadline)}.`,
    filed: filed && {
      id: filed.id,
      status: filed.status,
      reason: filed.reason,
      statement: filed.statement,
      decidedAt: filed.decidedAt?.toISOString() ?? null,
      note: filed.note,
      remains,
    },
  };
}

export interface OffenseFacts {
  id: string;
  type: OffenseType;
  severity: Severity;
  source: string | null;
  createdAt: Date;
  status: OffenseStatus;
  penaltyPoints: number;
  penaltyHeld: number;
  penaltyRestored: number;
  restoredBy: 'dismissal' | 'appeal' | null;
  /** The moderator's decision on its case, when one was made. */
  caseOutcome: 'upheld' | 'dismissed' | null;
  resolvedAt: Date | null;
  /** The penalty rule's cap for this kind (points are never above it). */
  cap: number;
  statusReason: string | null;
}

/** The statement for an offense: the points it took (or held), by which rule, decided how. */
export function offenseStatement(
  o: OffenseFacts,
  opts: { windowDays: number; now: Date; appeal: AppealFiled | null },
): StatementOfReasons {
  const held =
    o.status === 'held' || o.status === 'dropped' || (o.status === 'released' && o.penaltyHeld > 0);
  const points = held ? o.penaltyHeld : o.penaltyPoints;
  const decidedAt = o.status === 'released' && o.resolvedAt ? o.resolvedAt : o.createdAt;
  // The sign-in check's suspicion of evasion (issue 53) is no report: nothing says there was one.
  const evasion = o.source === 'evasion_check';
  const filed = evasion ? 'the suspicion' : 'the report';
  const decision =
    o.status === 'held'
      ? `${points} points of your trust score are held until a moderator reviews ${filed}.`
      : `Your trust score was lowered by ${points} points.`;
  const state: Record<OffenseStatus, string> = {
    applied: o.caseOutcome === 'upheld' ? 'In effect: a moderator upheld it.' : 'In effect.',
    held: 'Held: a moderator has not decided yet.',
    released: 'In effect: a moderator upheld it and the held points were taken.',
    recorded: 'No points were taken.',
    restored: `Given back: ${o.penaltyRestored} points returned after ${o.restoredBy === 'appeal' ? 'your appeal was granted' : `a moderator dismissed ${filed}`}.`,
    dropped: `Dropped: the held points were never taken (${o.restoredBy === 'appeal' ? 'your appeal was granted' : `a moderator dismissed ${filed}`}).`,
  };
  // Every offense that took or held points did so automatically, by the penalty rule, at filing; a
  // later decision on it (an uphold, a dismissal, a granted appeal) was a person's. Both are said.
  const automated = o.status !== 'recorded';
  const byPerson: Partial<Record<OffenseStatus, string>> = {
    applied: o.caseOutcome === 'upheld' ? ` A moderator then reviewed ${filed} and upheld it.` : '',
    released: ` A moderator then reviewed ${filed}, upheld it, and the held points were taken.`,
    restored:
      o.restoredBy === 'appeal'
        ? ' A moderator (a person) then granted your appeal and gave them back.'
        : ` A moderator (a person) then dismissed ${filed} and gave them back.`,
    dropped:
      o.restoredBy === 'appeal'
        ? ' A moderator (a person) then granted your appeal: they were never taken.'
        : ` A moderator (a person) then dismissed ${filed}: they were never taken.`,
  };
  const wasHeld = o.status === 'held' || o.status === 'released' || o.status === 'dropped';
  return {
    id: o.id,
    kind: 'offense',
    decidedAt: decidedAt.toISOString(),
    decision,
    scope: { kind: 'global' },
    period: null,
    facts:
      o.source === 'evasion_check'
        ? `A suspected evasion of a ban (filed as ${KIND_WORDS[o.type]}, ${o.severity} severity), found by the service's sign-in check on ${utcWords(o.createdAt)}: the signals your game sent when you signed in link your account strongly to an account under a ban in force.`
        : `A report of ${KIND_WORDS[o.type]} (${o.severity} severity) from ${SOURCE_WORDS[o.source ?? ''] ?? 'the game'} on ${utcWords(o.createdAt)}.`,
    ground: `${
      evasion
        ? `The game's terms of service: no playing on another account to evade a ban. The points are those of the penalty rule for ${KIND_WORDS[o.type]}, the kind it was filed as: they follow the severity, at most ${o.cap}`
        : `The penalty rule for reports of ${KIND_WORDS[o.type]}: the points follow the severity and the report's details, at most ${o.cap}`
    }; a score never goes below 0.${
      o.statusReason && HOLD_WORDS[o.statusReason] ? ` Held because ${HOLD_WORDS[o.statusReason]}.` : ''
    }`,
    automated,
    automatedMeans: !automated
      ? null
      : `${
          wasHeld
            ? evasion
              ? 'The points were held automatically, for a moderator to decide: a suspected evasion never moves a trust score on its own.'
              : 'The points were held automatically, by the rules every report passes, for a moderator to decide.'
            : o.status === 'applied' && o.caseOutcome !== 'upheld'
              ? `The points were taken automatically when ${filed} was filed, by the penalty rule; a moderator may review it.`
              : `The points were taken automatically when ${filed} was filed, by the penalty rule.`
        }${byPerson[o.status] ?? ''}`,
    state: state[o.status],
    redress: REDRESS,
    appeal: appealOf(
      o.status === 'applied' || o.status === 'released' || o.status === 'held',
      o.status === 'restored' || o.status === 'dropped'
        ? 'Nothing to appeal: these points are no longer taken.'
        : 'Nothing to appeal: no points were taken.',
      decidedAt,
      opts.windowDays,
      opts.now,
      opts.appeal,
    ),
  };
}

/**
 * A sanction's statement is its decision record (common/domain/decision-record.ts) and what came of
 * it since: the reason the player was given (theirs to read, never the regulator's), a revocation,
 * and a granted appeal that left it in force.
 */
export interface SanctionFacts {
  decision: SanctionDecision;
  reason: string;
  revokedAt: Date | null;
  revokeReason: string | null;
  /** Left in force by a granted appeal of its decision, with the moderator's ground. */
  keptOnAppeal: string | null;
}

/** The statement for a sanction: what it stops, where and until when, why, and decided how. */
export function sanctionStatement(
  s: SanctionFacts,
  opts: { windowDays: number; now: Date; appeal: AppealFiled | null },
): StatementOfReasons {
  const d = s.decision;
  const now = opts.now.getTime();
  const state = s.revokedAt
    ? `Revoked on ${utcWords(s.revokedAt)}${s.revokeReason ? `: ${s.revokeReason}` : ''}.`
    : d.startsAt.getTime() > now
      ? `Starts on ${utcWords(d.startsAt)}.`
      : d.expiresAt && d.expiresAt.getTime() <= now
        ? `Ended on ${utcWords(d.expiresAt)}.`
        : s.keptOnAppeal
          ? `In force: kept when your appeal was granted, because ${s.keptOnAppeal}`
          : d.matches
            ? `In force: ${matchesWords(d.matches.left)} of ${d.matches.total} left to finish.`
            : 'In force.';
  const what = d.case
    ? `${KIND_WORDS[d.case.type]} (${d.case.severity} severity) made against you from ${utcWords(d.case.firstReportAt)}`
    : 'a breach of the terms of service';
  const scopeName = d.scope === 'studio' ? (d.scopeName ?? 'one studio') : null;
  const detected = detectionWords(d);
  return {
    id: d.sanctionId,
    kind: 'sanction',
    decidedAt: d.createdAt.toISOString(),
    decision: sanctionWords(d.type, scopeName, d.expiresAt, d.matches),
    scope: scopeName ? { kind: 'studio', name: scopeName } : { kind: 'global' },
    period: { startsAt: d.startsAt.toISOString(), endsAt: d.expiresAt?.toISOString() ?? null },
    facts: `${deciderWords(d, what)}${detected ? ` ${detected}` : ''}`,
    ground: s.reason,
    automated: d.decidedBy === 'strike_ladder' || d.decidedBy === 'rule',
    automatedMeans:
      d.decidedBy === 'rule'
        ? `Placed automatically by the rule “${d.rule?.name ?? 'a rule'}” (version ${d.rule?.version ?? 1}), which an administrator wrote and a second administrator approved; a moderator reviews the reports it acted on, and you can appeal.`
        : d.decidedBy === 'strike_ladder'
          ? 'Placed automatically by the strike ladder when your active strikes reached its rung; the strike came from a moderator’s decision.'
          : detectedAutomatically(d)
            ? 'A person decided it; the behaviour was first detected by automated means (see the facts).'
            : null,
    state,
    redress: REDRESS,
    appeal: appealOf(
      !s.revokedAt,
      'Nothing to appeal: it was revoked.',
      d.createdAt,
      opts.windowDays,
      opts.now,
      opts.appeal,
    ),
  };
}
