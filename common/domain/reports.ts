import Joi from 'joi';
import { fieldErrors, type FieldError } from '../errors.js';

/** The four report kinds: URL segment -> stored offense type. */
export const REPORT_KINDS = {
  anticheat: 'cheating',
  toxicity: 'toxicity',
  afk: 'afk',
  griefing: 'griefing',
} as const;
export type ReportKind = keyof typeof REPORT_KINDS;
export type OffenseType = (typeof REPORT_KINDS)[ReportKind];
/** The other way round: the report kind of each stored offense type. */
export const KIND_OF_TYPE = Object.fromEntries(
  Object.entries(REPORT_KINDS).map(([kind, type]) => [type, kind]),
) as Record<OffenseType, ReportKind>;

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const SOURCES = ['player', 'game_server', 'anticheat_system'] as const;
export const TOXICITY_CATEGORIES = [
  'harassment',
  'hate_speech',
  'threats',
  'spam',
  'sexual_content',
  'other',
] as const;
export const EVIDENCE_TYPES = ['screenshot', 'video', 'text'] as const;

export const LIMITS = {
  description: 2000,
  evidenceItems: 10,
  evidenceUrl: 2048,
  evidenceContent: 10_000,
  logChars: 20_000,
  logLines: 500,
  chatLines: 50,
  chatLineChars: 500,
  incidents: 50,
  affectedPlayers: 1000,
  affectedPlayerIds: 100,
  contextId: 128,
} as const;

export type EvidenceItem = {
  type: (typeof EVIDENCE_TYPES)[number];
  url?: string;
  content?: string;
  submittedAt: string;
};

/** Where a notice came from (docs/moderators.md "Notices"): a person's (Art. 16) or a trusted flagger's (Art. 22). */
export const NOTICE_SOURCES = ['notice', 'trusted_flagger'] as const;
export type NoticeSource = (typeof NOTICE_SOURCES)[number];
/** Where a case's reports come from: a game's report, or a notice (a person's or a trusted flagger's). */
export const CASE_SOURCES = ['game', ...NOTICE_SOURCES] as const;
/** The source of an offense the service's own sign-in check files (a suspected evasion of a ban). */
export const SERVICE_SOURCES = ['evasion_check'] as const;
/** Sources of offenses no studio filed: notices and the service's own; never told to a studio as its report. */
export const NOT_FILED_BY_STUDIO = [...NOTICE_SOURCES, ...SERVICE_SOURCES] as const;
/** Sources that are automated detection: a game's anti-cheat system or server, the sign-in check. */
export const AUTOMATED_SOURCES = ['anticheat_system', 'game_server', ...SERVICE_SOURCES] as const;
export type CaseSource = (typeof CASE_SOURCES)[number];

export interface ReportContext {
  matchId?: string;
  occurredAt?: string;
  reporterId?: string;
  /**
   * A report's source (SOURCES), a notice's (NOTICE_SOURCES), or the service's own sign-in check's
   * (evasion_check: a suspected evasion of a ban, docs/linked-accounts.md); the last two are never
   * sent in a report.
   */
  source?: (typeof SOURCES)[number] | NoticeSource | (typeof SERVICE_SOURCES)[number];
}

/**
 * A player's report (its source is a player, or it names a reporter and no source): the reporter's
 * credibility decides whether its points apply or wait for a moderator.
 */
export const isPlayerSourced = (context: ReportContext): boolean =>
  context.source === 'player' || (context.source === undefined && context.reporterId !== undefined);

/** A report after normalisation: everything the penalty rule and the offense record need. */
export interface NormalisedReport {
  kind: ReportKind;
  type: OffenseType;
  detected: boolean;
  severity: Severity;
  description: string;
  evidence: EvidenceItem[];
  details: Record<string, unknown>;
  context: ReportContext;
}

// Control characters other than tab and newline never reach storage.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
export const cleanText = (s: string) => s.replace(/\r\n?/g, '\n').replace(CONTROL, '').trim();

const FLAG_TRUE = new Set(['true', 'yes', '1']);
const FLAG_FALSE = new Set(['false', 'no', '0']);

/** Booleans, "true"/"false", "yes"/"no" (any case) and 1/0. */
const flag = Joi.any()
  .custom((value: unknown, helpers) => {
    if (typeof value === 'boolean') return value;
    if (value === 1 || value === 0) return value === 1;
    if (typeof value === 'string') {
      const v = value.trim().toLowerCase();
      if (FLAG_TRUE.has(v)) return true;
      if (FLAG_FALSE.has(v)) return false;
    }
    return helpers.message({ custom: 'must be a boolean, "true"/"false", "yes"/"no" or 1/0' });
  })
  .description('A boolean, "true"/"false", "yes"/"no" (any case) or 1/0.')
  // The custom validator above is what runs; this is how the document states it (no inline regex
  // flags, so every JSON Schema validator reads it the same).
  .meta({
    'x-schema': {
      oneOf: [
        { type: 'boolean' },
        { type: 'integer', enum: [0, 1] },
        {
          type: 'string',
          pattern: '^\\s*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Yy][Ee][Ss]|[Nn][Oo]|1|0)\\s*$',
        },
      ],
    },
  });

const severity = Joi.string()
  .trim()
  .lowercase()
  .valid(...SEVERITIES)
  .messages({ 'any.only': `must be one of ${SEVERITIES.join(', ')}` })
  .description('Case and surrounding spaces do not matter.');

/** 0..1 as a fraction, above 1 up to 100 as a percentage, or a string such as "87%". */
const confidence = Joi.any()
  .custom((value: unknown, helpers) => {
    let n: number | undefined;
    let percent = false;
    if (typeof value === 'number') n = value;
    else if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*%?\s*$/.test(value)) {
      percent = value.includes('%');
      n = Number(value.replace('%', '').trim());
    }
    if (n === undefined || !Number.isFinite(n) || n < 0 || n > 100)
      return helpers.message({ custom: 'must be a number from 0 to 1, or a percentage from 0 to 100' });
    const fraction = percent || n > 1 ? n / 100 : n;
    return Math.round(fraction * 1000) / 1000;
  })
  .description(
    'Detection confidence: 0..1, or a percentage (a number above 1 up to 100, or a string such as "87%").',
  )
  .meta({
    'x-schema': {
      oneOf: [
        { type: 'number', minimum: 0, maximum: 100 },
        { type: 'string', pattern: '^\\s*0*(100(\\.0+)?|\\d{1,2}(\\.\\d+)?)\\s*%?\\s*$' },
      ],
    },
  });

const httpUrl = Joi.string()
  .trim()
  .max(LIMITS.evidenceUrl)
  .uri({ scheme: ['http', 'https'] })
  .messages({ 'string.uriCustomScheme': 'must be an http or https URL' })
  // The converter reads .uri() as format uri, whatever the schemes: the document names them.
  .meta({ 'x-also': { pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' } });

export const evidenceItem = Joi.object({
  type: Joi.string()
    .trim()
    .lowercase()
    .valid(...EVIDENCE_TYPES)
    .required()
    .description('screenshot and video need url, text needs content (case does not matter).'),
  url: httpUrl.description('http or https only.'),
  content: Joi.string().max(LIMITS.evidenceContent).custom(cleanText),
})
  .when(Joi.object({ type: Joi.valid('screenshot', 'video') }).unknown(), {
    then: Joi.object({ url: Joi.required() }),
  })
  .when(Joi.object({ type: Joi.valid('text') }).unknown(), {
    then: Joi.object({ content: Joi.required() }),
  })
  .id('EvidenceInput');

const text = (max: number) => Joi.string().max(max).allow('').custom(cleanText);
const contextId = Joi.string().trim().min(1).max(LIMITS.contextId);
const context = {
  matchId: contextId,
  reporterId: contextId,
  occurredAt: Joi.date().iso().max('now').raw(false).description('When it happened; not in the future.'),
  source: Joi.string()
    .trim()
    .lowercase()
    .replace(/[\s-]+/g, '_')
    .valid(...SOURCES)
    .description('Case does not matter; spaces and dashes read as _.'),
};
const common = {
  description: text(LIMITS.description),
  severity,
  evidence: Joi.array().items(evidenceItem).max(LIMITS.evidenceItems),
  ...context,
};

const logs = Joi.alternatives()
  .try(
    Joi.string().max(LIMITS.logChars),
    Joi.array()
      .items(Joi.string().max(LIMITS.chatLineChars * 4))
      .max(LIMITS.logLines),
  )
  .description(`Raw log text or lines; kept as text evidence (at most ${LIMITS.logChars} characters).`);

const BODY_SCHEMAS: Record<ReportKind, Joi.ObjectSchema> = {
  anticheat: Joi.object({
    isCheatDetected: flag.required(),
    type: Joi.string()
      .trim()
      .lowercase()
      .pattern(/^[a-z0-9_ -]{1,64}$/)
      .meta({ 'x-also': { pattern: '\\S' } })
      .description('Cheat category, e.g. aimbot, wallhack, speedhack (any case).'),
    confidence,
    logs,
    ...common,
  }).id('AntiCheatReport'),
  toxicity: Joi.object({
    isToxic: flag.required(),
    category: Joi.string()
      .trim()
      .lowercase()
      .replace(/[\s-]+/g, '_')
      .valid(...TOXICITY_CATEGORIES)
      .description('Case does not matter; spaces and dashes read as _.'),
    messages: Joi.array()
      .items(Joi.string().max(LIMITS.chatLineChars))
      .max(LIMITS.chatLines)
      .description('The offending chat lines; kept as text evidence.'),
    ...common,
  }).id('ToxicityReport'),
  afk: Joi.object({
    isAfk: flag.required(),
    afkDurationSeconds: Joi.number().min(0).max(86_400),
    matchDurationSeconds: Joi.number().greater(0).max(86_400),
    occurrences: Joi.number().integer().min(1).max(100),
    ...common,
  })
    .custom((value: { afkDurationSeconds?: number; matchDurationSeconds?: number }, helpers) => {
      if (
        value.afkDurationSeconds !== undefined &&
        value.matchDurationSeconds !== undefined &&
        value.afkDurationSeconds > value.matchDurationSeconds
      )
        return helpers.message({ custom: 'afkDurationSeconds cannot exceed matchDurationSeconds' });
      return value;
    })
    .description('afkDurationSeconds may not exceed matchDurationSeconds.')
    .id('AfkReport'),
  griefing: Joi.object({
    isGriefing: flag.required(),
    affectedPlayers: Joi.alternatives()
      .try(
        Joi.number().integer().min(0).max(LIMITS.affectedPlayers),
        Joi.array().items(contextId).max(LIMITS.affectedPlayerIds).unique(),
      )
      .description('How many players were affected, or their identifiers.'),
    incidents: Joi.array()
      .items(
        Joi.object({
          severity: severity.required(),
          description: text(500),
          occurredAt: context.occurredAt,
        }),
      )
      .max(LIMITS.incidents),
    ...common,
  }).id('GriefingReport'),
};

export const REPORT_ENVELOPES = Object.fromEntries(
  (Object.keys(BODY_SCHEMAS) as ReportKind[]).map((k) => [
    k,
    Joi.object({ report: BODY_SCHEMAS[k].required() }),
  ]),
) as Record<ReportKind, Joi.ObjectSchema>;

export type ParseResult = { ok: true; report: NormalisedReport } | { ok: false; errors: FieldError[] };

const SEVERITY_RANK: Record<Severity, number> = { low: 0, medium: 1, high: 2, critical: 3 };
const maxSeverity = (list: Severity[]): Severity =>
  list.reduce((a, b) => (SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a), 'low' as Severity);

/** AFK reports may leave severity out: it then follows the share of the match spent AFK. */
function afkSeverity(afk?: number, match?: number): Severity {
  if (afk === undefined || match === undefined) return 'medium';
  const share = afk / match;
  if (share < 0.25) return 'low';
  if (share < 0.5) return 'medium';
  if (share < 0.75) return 'high';
  return 'critical';
}

/**
 * Validates and normalises a report body of one kind. Unknown fields are errors, so a body can never
 * carry a trust score, penalty or studio of its own.
 */
export function parseReport(kind: ReportKind, body: unknown, now: Date = new Date()): ParseResult {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object { "report": { ... } }' }] };
  const { value, error } = REPORT_ENVELOPES[kind].validate(body, { abortEarly: false, convert: true });
  if (error) {
    return { ok: false, errors: fieldErrors(error.details) };
  }
  const r = (value as { report: Record<string, unknown> }).report;
  const submittedAt = now.toISOString();
  const evidence: EvidenceItem[] = (
    (r.evidence as Omit<EvidenceItem, 'submittedAt'>[] | undefined) ?? []
  ).map((e) => ({ ...e, submittedAt }));
  const ctx: ReportContext = {};
  if (r.matchId !== undefined) ctx.matchId = r.matchId as string;
  if (r.reporterId !== undefined) ctx.reporterId = r.reporterId as string;
  if (r.source !== undefined) ctx.source = r.source as ReportContext['source'];
  if (r.occurredAt !== undefined) ctx.occurredAt = (r.occurredAt as Date).toISOString();

  const details: Record<string, unknown> = {};
  let detected: boolean;
  let sev = r.severity as Severity | undefined;
  switch (kind) {
    case 'anticheat': {
      detected = r.isCheatDetected as boolean;
      if (r.type !== undefined) details.cheatType = r.type;
      if (r.confidence !== undefined) details.confidence = r.confidence;
      if (r.logs !== undefined) {
        const lines = Array.isArray(r.logs) ? (r.logs as string[]) : [r.logs as string];
        const content = cleanText(lines.join('\n')).slice(0, LIMITS.logChars);
        if (content) evidence.push({ type: 'text', content, submittedAt });
      }
      break;
    }
    case 'toxicity': {
      detected = r.isToxic as boolean;
      if (r.category !== undefined) details.category = r.category;
      const messages = ((r.messages as string[] | undefined) ?? []).map(cleanText).filter(Boolean);
      if (messages.length) {
        details.messageCount = messages.length;
        evidence.push({ type: 'text', content: messages.join('\n'), submittedAt });
      }
      break;
    }
    case 'afk': {
      detected = r.isAfk as boolean;
      const afk = r.afkDurationSeconds as number | undefined;
      const match = r.matchDurationSeconds as number | undefined;
      if (afk !== undefined) details.afkDurationSeconds = afk;
      if (match !== undefined) details.matchDurationSeconds = match;
      details.occurrences = (r.occurrences as number | undefined) ?? 1;
      sev ??= afkSeverity(afk, match);
      break;
    }
    case 'griefing': {
      detected = r.isGriefing as boolean;
      const affected = r.affectedPlayers;
      if (Array.isArray(affected)) {
        details.affectedPlayers = affected.length;
        details.affectedPlayerIds = affected;
      } else if (affected !== undefined) details.affectedPlayers = affected;
      const incidents =
        (r.incidents as { severity: Severity; description?: string; occurredAt?: Date }[]) ?? [];
      if (incidents.length) {
        details.incidents = incidents.map((i) => ({
          severity: i.severity,
          ...(i.description ? { description: i.description } : {}),
          ...(i.occurredAt ? { occurredAt: i.occurredAt.toISOString() } : {}),
        }));
        // The report is as severe as its worst incident.
        sev = maxSeverity([...(sev ? [sev] : []), ...incidents.map((i) => i.severity)]);
      }
      break;
    }
  }
  return {
    ok: true,
    report: {
      kind,
      type: REPORT_KINDS[kind],
      detected,
      severity: sev ?? 'medium',
      description: (r.description as string | undefined) ?? '',
      evidence,
      details,
      context: ctx,
    },
  };
}
