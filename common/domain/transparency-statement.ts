import type { SanctionType } from './sanctions.js';
import type { OffenseType } from './reports.js';
import { KIND_WORDS } from './statement-of-reasons.js';
import { TDB } from './transparency-vocabulary.js';
import {
  chosenCategory,
  caseKind,
  deciderWords,
  decisionSource,
  detectedAutomatically,
  detectionWords,
  evasionOnly,
  type SanctionDecision,
  type TdbCategory,
} from './decision-record.js';

/**
 * The one mapping from a restriction of ours to a DSA Transparency Database statement (issue 35,
 * docs/compliance.md "Regulation (EU DSA)"), with the database's vocabulary (transparency-vocabulary.ts).
 */
export { TDB };

/** Limits of the database's rules (characters). */
export const TDB_LIMITS = { facts: 5000, ground: 500, explanation: 2000, puid: 500, batch: 100 } as const;
export const PUID_PATTERN = /^[a-zA-Z0-9_-]+$/;

export type { TdbCategory };

/**
 * The category of each kind of offense (docs/compliance.md "Regulation (EU DSA)"): cheating, leaving a match and
 * griefing break a game's rules and nothing else; toxicity is harmful speech. No keyword
 * (category_specification) is claimed: what a report says is not known well enough to name one.
 */
export const CATEGORY_OF_KIND: Record<OffenseType, { category: TdbCategory; keywords: string[] }> = {
  cheating: { category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC', keywords: [] },
  toxicity: { category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', keywords: [] },
  afk: { category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC', keywords: [] },
  griefing: { category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC', keywords: [] },
};

/** What a kind of offense is, as content: chat is text; the rest is behaviour in a game. */
const CONTENT_OF_KIND: Record<OffenseType, { type: (typeof TDB.contentType)[number]; other?: string }> = {
  cheating: { type: 'CONTENT_TYPE_OTHER', other: 'Behaviour in an online game (cheating)' },
  toxicity: { type: 'CONTENT_TYPE_TEXT' },
  afk: { type: 'CONTENT_TYPE_OTHER', other: 'Behaviour in an online game (leaving matches)' },
  griefing: { type: 'CONTENT_TYPE_OTHER', other: 'Behaviour in an online game (griefing)' },
};

/** The contractual ground each kind breaks, as the studio's terms say it (no studio's own words). */
const GROUND_OF_KIND: Record<OffenseType, string> = {
  cheating: "The game's terms of service: no cheating, no unauthorised software that gives an advantage.",
  toxicity: "The game's terms of service: no abusive, harassing or hateful communication towards players.",
  afk: "The game's terms of service: no leaving or idling in matches other players depend on.",
  griefing: "The game's terms of service: no deliberately spoiling the game for other players.",
};

export type { DecisionSource, SanctionDecision } from './decision-record.js';

export interface TransparencyOptions {
  /** TDB_TERRITORIAL_SCOPE: where the decision applies (EU/EEA codes). */
  territorialScope: readonly string[];
}

/** A statement as the database's API takes it (the fields we send; the rest are left out). */
export type TransparencyStatement = Record<string, string | string[]>;

/** Which sanctions are restrictions the database takes (README): a warning restricts nothing. */
export const isRestriction = (type: SanctionType) => type !== 'warning';

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The statement of a restriction, from the same facts as the player's statement of reasons, with
 * nothing personal: the puid is the decision's own id; no player, reporter, studio text, note,
 * moderator's words or evidence.
 */
export function transparencyStatement(f: SanctionDecision, opts: TransparencyOptions): TransparencyStatement {
  // A case of a suspected evasion alone is about evading a ban, not the banned account's kind.
  const kind = caseKind(f);
  // A restriction counted in matches has no end date to give: its end is the last match finished.
  const end = f.expiresAt && !f.matches ? { date: day(f.expiresAt) } : null;
  const restriction: TransparencyStatement = (() => {
    switch (f.type) {
      case 'permanent_ban':
        return { decision_account: 'DECISION_ACCOUNT_TERMINATED' };
      case 'temporary_ban':
        return {
          decision_account: 'DECISION_ACCOUNT_SUSPENDED',
          ...(end ? { end_date_account_restriction: end.date } : {}),
        };
      case 'chat_restriction':
      case 'matchmaking_restriction':
        // Part of the service withheld (chat, or matchmaking), for a time.
        return {
          decision_provision: 'DECISION_PROVISION_PARTIAL_SUSPENSION',
          ...(end ? { end_date_service_restriction: end.date } : {}),
        };
      case 'warning':
        throw new Error('a warning restricts nothing: it has no statement (isRestriction)');
    }
  })();
  const content = kind
    ? CONTENT_OF_KIND[kind]
    : { type: 'CONTENT_TYPE_OTHER' as const, other: 'Behaviour in an online game' };
  const byKind = kind
    ? CATEGORY_OF_KIND[kind]
    : { category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC' as const, keywords: [] };
  // The category chosen for the decision, else the one its notices named (a notifier's choice), else the kind's.
  const chosen = chosenCategory(f);
  const category = chosen ? { category: chosen, keywords: [] } : byKind;
  const source = decisionSource(f);
  const sourceType =
    source === 'notice'
      ? 'SOURCE_ARTICLE_16'
      : source === 'trusted_flagger'
        ? 'SOURCE_TRUSTED_FLAGGER'
        : source === 'player_report'
          ? 'SOURCE_TYPE_OTHER_NOTIFICATION'
          : 'SOURCE_VOLUNTARY';
  const automatic = detectedAutomatically(f);
  const automatedDecision =
    f.decidedBy === 'strike_ladder' || f.decidedBy === 'rule'
      ? 'AUTOMATED_DECISION_FULLY'
      : f.decidedBy === 'moderator' && automatic
        ? 'AUTOMATED_DECISION_PARTIALLY'
        : 'AUTOMATED_DECISION_NOT_AUTOMATED';
  const what = kind
    ? `${KIND_WORDS[kind]} (${f.case!.severity} severity)`
    : 'a breach of the terms of service';
  // The rule's name is an administrator's words: the regulator reads that a rule decided, not which.
  const how = deciderWords({ ...f, rule: null }, what);
  const detected = detectionWords(f);
  const scope = f.scope === 'global' ? 'in every game of the service' : "in the studio's games";
  const lasts = f.matches
    ? ` for the next ${f.matches.total} ${f.matches.total === 1 ? 'match' : 'matches'} the account finishes`
    : f.expiresAt
      ? ` until ${day(f.expiresAt)}`
      : '';
  const facts = `${how}${detected ? ` ${detected}` : ''} The restriction applies ${scope}${lasts}.`;
  return {
    ...restriction,
    decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
    incompatible_content_ground: kind
      ? GROUND_OF_KIND[kind]
      : evasionOnly(f)
        ? "The game's terms of service: no playing on another account to evade a ban."
        : "The game's terms of service.",
    incompatible_content_explanation: facts.slice(0, TDB_LIMITS.explanation),
    incompatible_content_illegal: 'No',
    content_type: [content.type],
    ...(content.other ? { content_type_other: content.other } : {}),
    category: category.category,
    ...(category.keywords.length ? { category_specification: category.keywords } : {}),
    territorial_scope: [...opts.territorialScope],
    content_date: day(f.case?.firstReportAt ?? f.createdAt),
    application_date: day(f.startsAt),
    decision_facts: facts.slice(0, TDB_LIMITS.facts),
    source_type: sourceType,
    automated_detection: automatic ? 'Yes' : 'No',
    automated_decision: automatedDecision,
    puid: `sanction-${f.sanctionId}`,
  };
}
