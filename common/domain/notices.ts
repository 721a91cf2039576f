import Joi from 'joi';
import { cleanText, evidenceItem, LIMITS } from './reports.js';
import { TDB } from './transparency-vocabulary.js';
import type { TdbCategory } from './transparency-statement.js';

/**
 * A notice (DSA Art. 16; issue 37; docs/moderators.md "Notices"): anyone flags a player of a game, or what they
 * wrote or made, as illegal or against the rules. What it carries, in the article's order: where
 * (the game, the player by service id or gamer tag, the match), why (a category of the Transparency
 * Database and the explanation), the notifier's name and e-mail (not for the offences Art. 16(2)(c)
 * exempts), and a statement of good faith.
 */

/**
 * The public notice channel's daily bounds (docs/moderators.md "Notices"): what an address, and an
 * e-mail, sent counts for this many hours from its first notice, then a new window starts from
 * nothing. The limits themselves are configured (NOTICE_QUOTA_PER_ADDRESS, NOTICE_QUOTA_PER_EMAIL).
 */
export const NOTICE_QUOTA_WINDOW_HOURS = 24;

/** The categories a notice may name: the Transparency Database's, but "not specified" (its own fallback). */
export const NOTICE_CATEGORIES = TDB.category.filter(
  (c) => c !== 'STATEMENT_CATEGORY_NOT_SPECIFIED_NOTICE',
) as TdbCategory[];

/** Words for a category, on the form and the notifier's page. */
export const CATEGORY_WORDS: Record<string, string> = {
  STATEMENT_CATEGORY_ANIMAL_WELFARE: 'Animal welfare',
  STATEMENT_CATEGORY_CONSUMER_INFORMATION: 'Consumer information infringements',
  STATEMENT_CATEGORY_CYBER_VIOLENCE: 'Cyber violence (harassment, stalking, threats)',
  STATEMENT_CATEGORY_CYBER_VIOLENCE_AGAINST_WOMEN: 'Cyber violence against women',
  STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS: 'Data protection and privacy violations',
  STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH: 'Illegal or harmful speech (hate speech, defamation)',
  STATEMENT_CATEGORY_INTELLECTUAL_PROPERTY_INFRINGEMENTS: 'Intellectual property infringements',
  STATEMENT_CATEGORY_NEGATIVE_EFFECTS_ON_CIVIC_DISCOURSE_OR_ELECTIONS:
    'Negative effects on civic discourse or elections',
  STATEMENT_CATEGORY_OTHER_VIOLATION_TC: "Against the game's rules (cheating, griefing, other)",
  STATEMENT_CATEGORY_PROTECTION_OF_MINORS: 'Protection of minors (including child sexual abuse)',
  STATEMENT_CATEGORY_RISK_FOR_PUBLIC_SECURITY: 'Risk for public security (terrorism, incitement)',
  STATEMENT_CATEGORY_SCAMS_AND_FRAUD: 'Scams and fraud',
  STATEMENT_CATEGORY_SELF_HARM: 'Self-harm',
  STATEMENT_CATEGORY_UNSAFE_AND_PROHIBITED_PRODUCTS: 'Unsafe and prohibited products',
  STATEMENT_CATEGORY_VIOLENCE: 'Violence',
};

/**
 * Art. 16(2)(c): a notice of the offences of Articles 3 to 7 of Directive 2011/93/EU (sexual abuse and
 * exploitation of children) need not name its sender.
 */
export const ANONYMOUS_CATEGORIES: readonly string[] = ['STATEMENT_CATEGORY_PROTECTION_OF_MINORS'];

/**
 * The kind of case a notice is reviewed in: speech-like categories with the toxicity reports, every
 * other one with griefing (behaviour that harms others in a game). The case keeps the notice's own
 * category for its statements (docs/moderators.md "Notices").
 */
export function kindOfCategory(category: string): 'toxicity' | 'griefing' {
  return [
    'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
    'STATEMENT_CATEGORY_CYBER_VIOLENCE',
    'STATEMENT_CATEGORY_CYBER_VIOLENCE_AGAINST_WOMEN',
    'STATEMENT_CATEGORY_NEGATIVE_EFFECTS_ON_CIVIC_DISCOURSE_OR_ELECTIONS',
  ].includes(category)
    ? 'toxicity'
    : 'griefing';
}

const text = (max: number) => Joi.string().trim().max(max).custom(cleanText);

/** A trusted flagger's notice (its key names it: no name or e-mail needed). */
export const flaggerNoticeSchema = Joi.object({
  gameId: Joi.string()
    .guid()
    .required()
    .description('The game the player plays (GET /v1/notices/games lists them).'),
  player: Joi.string()
    .trim()
    .min(1)
    .max(64)
    .required()
    .description('The player: their service id or gamer tag in that game (any case for the tag).'),
  category: Joi.string()
    .valid(...NOTICE_CATEGORIES)
    .required()
    .description('Why: a category of the DSA Transparency Database.'),
  explanation: text(LIMITS.description)
    .min(10)
    .required()
    .description('Why it is illegal or against the rules, in your words (10 to 2000 characters).'),
  matchId: Joi.string()
    .trim()
    .min(1)
    .max(LIMITS.contextId)
    .description('The match it happened in, when known.'),
  evidence: Joi.array()
    .items(evidenceItem)
    .max(LIMITS.evidenceItems)
    .description('What they wrote or made: text, or links (fetched only by the evidence worker).'),
  name: text(200).min(1).description('Your name: required, except for the categories Art. 16(2)(c) exempts.'),
  email: Joi.string()
    .trim()
    .lowercase()
    .max(254)
    .email({ tlds: { allow: false } })
    .description('Your e-mail: required, except for the categories Art. 16(2)(c) exempts.'),
  lifeAtRisk: Joi.boolean()
    .default(false)
    .description(
      "Someone's life or safety is at risk: a threat to kill or hurt someone, or a plan to (DSA Art. 18). The notice goes to the top of the queue and the studio is alerted at once (notice.urgent).",
    ),
  childInvolved: Joi.boolean()
    .default(false)
    .description(
      'The person harmed, or at risk, is a child (under 18). The notice goes to the top of the queue.',
    ),
  goodFaith: Joi.boolean()
    .valid(true)
    .required()
    .messages({ 'any.only': 'must be true: you confirm the notice is accurate and complete, in good faith' })
    .description('You confirm, in good faith, that the notice is accurate and complete (Art. 16(2)(d)).'),
}).id('FlaggerNotice');

/** A notice as a person sends it (the form, or the JSON route without a key). */
export const noticeSchema = flaggerNoticeSchema
  .when(Joi.object({ category: Joi.valid(...ANONYMOUS_CATEGORIES) }).unknown(), {
    otherwise: Joi.object({
      name: Joi.required().messages({ 'any.required': 'is required for this category (Art. 16(2)(c))' }),
      email: Joi.required().messages({ 'any.required': 'is required for this category (Art. 16(2)(c))' }),
    }),
  })
  .id('Notice');

export interface NoticeInput {
  gameId: string;
  player: string;
  category: TdbCategory;
  explanation: string;
  matchId?: string;
  evidence?: { type: string; url?: string; content?: string }[];
  name?: string;
  email?: string;
  lifeAtRisk: boolean;
  childInvolved: boolean;
  goodFaith: true;
}

/**
 * Categories whose notices are urgent by themselves: a child's protection, and self-harm (a life at
 * risk).
 */
export const URGENT_CATEGORIES: readonly string[] = [
  'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
  'STATEMENT_CATEGORY_SELF_HARM',
];

/**
 * How urgent a notice is (issue 51; docs/moderators.md "Notices": "Urgent notices"): `life` when the notifier says
 * a life or safety is at risk (the DSA Art. 18 path: the studio is alerted at once), `child` when a
 * child is involved, by the box or the category, `category` for self-harm, else null. An urgent notice
 * is filed at critical severity (life) or high (the others), goes to the top of the queue
 * (PRIORITY_WEIGHTS.urgent) and is due within URGENT_NOTICE_DUE_HOURS.
 */
export type Urgency = 'life' | 'child' | 'category';
export function urgencyOf(
  input: Pick<NoticeInput, 'category' | 'lifeAtRisk' | 'childInvolved'>,
): Urgency | null {
  if (input.lifeAtRisk) return 'life';
  if (input.childInvolved || input.category === 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS') return 'child';
  if (URGENT_CATEGORIES.includes(input.category)) return 'category';
  return null;
}

/** Where a notice stands for its notifier, from the offense it was filed as and its case. */
export type NoticeStanding = 'received' | 'in_review' | 'action_taken' | 'no_action';

/** What the notifier is told of each standing: general terms, never a sanction's details or a name. */
export const STANDING_WORDS: Record<NoticeStanding, string> = {
  received: 'Your notice was received and is waiting for a moderator.',
  in_review: 'Your notice is with a moderator.',
  action_taken:
    "A moderator found that the player broke the law or the game's rules as you described, and action was taken against their account.",
  no_action:
    "A moderator did not find that the player broke the law or the game's rules as described: no action was taken.",
};

/** What a notifier reads of its complaint (DSA Art. 20), on its page and in its e-mail. */
export const COMPLAINT_WORDS = {
  open: 'Your complaint was received and is with a moderator other than the one who decided.',
  granted: 'Your complaint was upheld: the notice is being reviewed again.',
  /** Granted, and the notice decided again since: its standing is that new decision. */
  regranted:
    'Your complaint was upheld: the notice was reviewed again, and where it stands now is that new decision.',
  denied: 'Your complaint was reviewed by another moderator, who kept the decision.',
} as const;

/** How a decided notice can be taken further (Art. 16(5), 20, 21). */
export const NOTIFIER_REDRESS =
  'If you disagree, you can bring the decision to a certified out-of-court dispute settlement body (DSA Art. 21) or to a court.';
/** A notice acted on, then reversed on the player's appeal. */
export const REVERSED_WORDS =
  'Action was first taken, then reversed when the player contested it and a moderator agreed: no action stands.';
