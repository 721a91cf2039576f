import type { TdbCategory } from '../domain/transparency-statement.js';
import crypto from 'node:crypto';
import Joi from 'joi';
import { isUniqueViolation, withTransaction, type Pool, type Queryable } from '../data/db.js';
import { recordReports, type FilingOptions, type ReportToRecord } from '../data/repos/offenses.js';
import { insertAudit } from '../data/repos/moderation.js';
import { effectiveLimits, type Limits } from '../domain/limits.js';
import { isUuid } from '../domain/ids.js';
import {
  CATEGORY_WORDS,
  kindOfCategory,
  NOTICE_CATEGORIES,
  noticeSchema,
  flaggerNoticeSchema,
  STANDING_WORDS,
  COMPLAINT_WORDS,
  urgencyOf,
  NOTIFIER_REDRESS as REDRESS,
  REVERSED_WORDS as REVERSED,
  type NoticeInput,
} from '../domain/notices.js';
import { computePenalty, type PenaltyCaps } from '../domain/penalty.js';
import type { NormalisedReport, NoticeSource } from '../domain/reports.js';
import { AppError, notFound } from '../errors.js';
import { recordFiling } from '../lifecycles/appeal.js';
import {
  noticeSenderKey,
  reporterSenderKey,
  senderOfKey,
  senderStanding,
  type MeasureRow,
  type MisusePolicy,
} from '../lifecycles/misuse.js';
import { CURSOR, decodeCursor, encodeCursor, invalidCursor } from '../cursor.js';
import { presentSender } from './misuse.js';
import { canContest, recordNotice, standingOf, takeQuota } from '../lifecycles/notice.js';
import { recordMail } from '../lifecycles/notifier-mail.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import { sealWebhookSecret } from '../security/webhook-secrets.js';
import {
  flaggerByKeyHash,
  flaggersWithAccuracy,
  flaggerSuspended,
  gameForNotice,
  gameTitles,
  noticeRows,
  noticeStandingRow,
  offenseOfNotice,
  playerOfGame,
  reportStanding,
  type StandingRow,
} from '../data/repos/notices.js';
import { recordRegistration, recordStatus, type FlaggerRow } from '../lifecycles/trusted-flagger.js';
import { writeJob, type OutboxRow } from '../queues/outbox.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import { appendComplaintEvidence } from '../lifecycles/offense.js';
import { evidenceItem } from '../domain/reports.js';
import { check, text } from '../validation.js';

/**
 * Notices from anyone (DSA Art. 16) and trusted flaggers (Art. 22): issue 37; docs/moderators.md "Notices".
 * A notice is filed like a game's report of the player (the same statement, its rules: the same
 * duplicate window, a reporter quota a sender), but its points are held for a moderator; the
 * notifier keeps a receipt (the notice's id and a secret) to read where it stands.
 */

export interface NoticeDeps {
  pool: Pool;
  /** The server secret: keys the HMACs that stand for an address or an e-mail. */
  pepper: string;
  caps: PenaltyCaps;
  defaults: Limits;
  credibility: { threshold: number; minHistory: number };
  quotas: { perAddress: number; perEmail: number };
  /** Art. 23: a suspended sender's notices and complaints are refused; a warned one is told. */
  misuse: MisusePolicy;
  /** Days after a decision within which its notifier may contest it (NOTICE_COMPLAINT_DAYS). */
  complaintDays: number;
  filing?: FilingOptions;
}

export type NoticeSender =
  | { kind: 'public'; address: string }
  | { kind: 'flagger'; flagger: { id: string; name: string; areas: TdbCategory[] } };

const hmac = (pepper: string, what: string) =>
  crypto.createHmac('sha256', pepper).update(what).digest('base64url').slice(0, 24);
const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest();

/** The notifier's receipt: keep the secret, it is never shown again. */
export interface NoticeReceipt {
  noticeId: string;
  secret: string;
  status: 'received';
  receivedAt: string;
  /** Set when the sender has been warned under Art. 23 (docs/moderators.md "Notices"). */
  warning: string | null;
  /** Where the notifier reads it (the page; the JSON route takes the secret in a header). */
  statusPage: string;
}

/**
 * Files a notice: validated (400 with every bad field), its player found in the game it names (404
 * otherwise), the sender's bounds taken (429), then filed with its row in one transaction (409 for
 * the same sender, player and kind in the same match within 24 h, or within the hour without one).
 */
export async function fileNotice(
  deps: NoticeDeps,
  body: unknown,
  sender: NoticeSender,
  now: Date = new Date(),
): Promise<{ receipt: NoticeReceipt; outbox: OutboxRow[] }> {
  const input = check<NoticeInput>(sender.kind === 'flagger' ? flaggerNoticeSchema : noticeSchema, body);
  const game = await gameForNotice(deps.pool, input.gameId);
  if (!game) throw notFound(`Game ${input.gameId}`);
  const player = await playerOfGame(deps.pool, input.gameId, input.player);
  if (!player) throw notFound(`A player ${input.player} of this game`);

  const trusted = sender.kind === 'flagger' && sender.flagger.areas.includes(input.category);
  const source: NoticeSource = trusted ? 'trusted_flagger' : 'notice';
  // The address and the e-mail stand as HMACs: for the quotas, the duplicate rule and Art. 23.
  const address = sender.kind === 'public' ? hmac(deps.pepper, `address:${sender.address}`) : null;
  const email = input.email ? hmac(deps.pepper, `email:${input.email}`) : null;
  const reporterId =
    sender.kind === 'flagger' ? `tf-${sender.flagger.id}` : email ? `n-${email}` : `n-a-${address!}`;
  const submittedAt = now.toISOString();
  const kind = kindOfCategory(input.category);
  // An urgent notice (docs/moderators.md "Notices": "Urgent notices") is filed at a higher severity, and its case
  // goes to the top of the queue with a short deadline (review-case.ts reads details.urgency).
  const urgency = urgencyOf(input);
  const report: NormalisedReport = {
    kind,
    type: kind,
    detected: true,
    severity: urgency === 'life' ? 'critical' : urgency ? 'high' : 'medium',
    description: input.explanation,
    evidence: (input.evidence ?? []).map((e) => ({ ...e, submittedAt })) as NormalisedReport['evidence'],
    details: { dsaCategory: input.category, ...(urgency ? { urgency } : {}) },
    context: { source, reporterId, ...(input.matchId ? { matchId: input.matchId } : {}) },
  };
  const limits = effectiveLimits(deps.defaults, game.limits);
  const offenseId = crypto.randomUUID();
  const item: ReportToRecord = {
    offenseId,
    serviceId: player.service_id,
    gameId: input.gameId,
    studioId: game.studio_id,
    report,
    penalty: computePenalty(report, deps.caps),
    playerSourced: false,
    hold: 'notice',
    policy: {
      // A trusted flagger is bounded by its own good standing, not a player's daily quota.
      reporterQuota: sender.kind === 'flagger' ? 1_000_000 : limits.reporterQuota,
      studioBudget: limits.studioBudget,
      credibilityThreshold: deps.credibility.threshold,
      credibilityMinHistory: deps.credibility.minHistory,
    },
  };
  const noticeId = crypto.randomUUID();
  const secret = crypto.randomBytes(24).toString('base64url');
  const senderKey = noticeSenderKey(reporterId);
  // A public notifier is known by its e-mail and by its address: a suspension of either refuses it.
  const keys = address ? [...new Set([senderKey, noticeSenderKey(`n-a-${address}`)])] : [senderKey];
  // Refused while suspended; told when warned (the filing changes neither).
  const { warning } = refuseSuspended(await senderStanding(deps.pool, keys, deps.misuse.windowDays, now));
  const outbox = await withTransaction(deps.pool, async (client) => {
    if (address) {
      const wait = await takeQuota(client, { address, email }, deps.quotas, now);
      if (wait !== null)
        throw new AppError(
          429,
          'notice_quota_exceeded',
          `Too many notices from this address or e-mail today; try again in ${wait} seconds.`,
          { headers: { 'Retry-After': String(wait) } },
        );
    }
    const [outcome] = await recordReports(client, [item], deps.filing);
    if (outcome!.status === 'duplicate')
      throw new AppError(
        409,
        'duplicate_notice',
        'You already sent a notice about this player for the same reason in this match (or within the hour): it is being handled.',
      );
    if (outcome!.status === 'quota_exceeded')
      throw new AppError(
        429,
        'notice_quota_exceeded',
        `Too many notices from this sender to this game today; try again in ${outcome!.retryAfterSeconds} seconds.`,
        { headers: { 'Retry-After': String(outcome!.retryAfterSeconds) } },
      );
    if (outcome!.status !== 'created') throw notFound(`A player ${input.player} of this game`);
    const notifierEmail = sender.kind === 'flagger' ? null : (input.email ?? null);
    await recordNotice(client, {
      id: noticeId,
      secretHash: sha256(secret),
      secretSealed: notifierEmail ? sealWebhookSecret(secret, deps.pepper) : null,
      offenseId,
      gameId: input.gameId,
      category: input.category,
      source,
      // Outside its areas a flagger's notice is a person's notice (docs/moderators.md "Trusted flaggers"): it is
      // not counted as the flagger's, and the row says so (notices_check ties the id to the source).
      trustedFlaggerId: trusted ? sender.flagger.id : null,
      notifierName: sender.kind === 'flagger' ? null : (input.name ?? null),
      notifierEmail,
      senderKey,
      urgency,
    });
    // The studio hears of an urgent notice at once (notice.urgent), before any moderator: a threat to
    // life or safety is its to take to the authorities (DSA Art. 18).
    const alert = urgency
      ? await emitEvents(client, [
          {
            type: 'notice.urgent',
            dataByStudio: new Map([
              [
                game.studio_id,
                {
                  noticeId,
                  offenseId,
                  gameId: input.gameId,
                  playerId: player.service_id,
                  category: input.category,
                  urgency,
                  art18: urgency === 'life',
                  explanation: input.explanation,
                  receivedAt: submittedAt,
                },
              ],
            ]),
          },
        ])
      : [];
    // The acknowledgement of receipt (Art. 16(4)), when the notifier gave an e-mail.
    const mail = await recordMail(client, {
      noticeId,
      kind: 'notice_received',
      facts: { receivedAt: submittedAt, category: input.category, game: game.title },
    });
    return [...outcome!.outbox, ...alert, ...mail];
  });
  return {
    receipt: {
      noticeId,
      secret,
      status: 'received',
      receivedAt: submittedAt,
      warning: warning ? warningWords(deps.misuse) : null,
      statusPage: '/notice/status',
    },
    outbox,
  };
}

/** The words a warned sender reads (Art. 23(1): a prior warning). */
const warningWords = (p: MisusePolicy) =>
  `Several of your notices or complaints were found manifestly unfounded. If that goes on, notices and complaints from you will not be processed for ${p.suspensionDays} days (DSA Art. 23).`;

/** The words a suspended sender reads (Art. 23(1)), in its refusals and on its page. */
const suspendedWords = (until: Date) =>
  `Notices and complaints from you are not processed until ${until.toISOString()}: too many of them were found manifestly unfounded (DSA Art. 23).`;

/** 403 notifier_suspended while the sender is suspended (Art. 23), saying until when; else its standing. */
function refuseSuspended<S extends { suspension: MeasureRow | null }>(standing: S): S {
  const until = standing.suspension?.ends_at;
  if (until)
    throw new AppError(403, 'notifier_suspended', suspendedWords(until), {
      extensions: { suspendedUntil: until.toISOString() },
    });
  return standing;
}

/** Where a notice stands, as its notifier may read it: nothing about the player beyond the outcome. */
export function presentStanding(
  r: StandingRow,
  ctx: { now: Date; complaintDays: number; warning: string | null; suspendedUntil: Date | null },
) {
  const { status, reversed, decidedAt } = standingOf(r);
  const contest = canContest(r, r.complaint_id !== null, decidedAt, ctx.complaintDays, ctx.now);
  return {
    noticeId: r.id,
    receivedAt: r.created_at.toISOString(),
    game: r.game_title,
    category: r.category,
    categoryWords: CATEGORY_WORDS[r.category] ?? r.category,
    trustedFlagger: r.source === 'trusted_flagger',
    status,
    words: reversed ? REVERSED : STANDING_WORDS[status],
    decidedAt: decidedAt?.toISOString() ?? null,
    // Decisions on notices are taken by moderators; the filing itself used no automated means.
    automatedMeans: decidedAt ? 'No: a moderator decided it; no automated means were used.' : null,
    redress: decidedAt ? REDRESS : null,
    complaint: r.complaint_status
      ? {
          status: r.complaint_status,
          filedAt: r.complaint_at!.toISOString(),
          decidedAt: r.complaint_decided_at?.toISOString() ?? null,
          words:
            r.complaint_status === 'granted' &&
            decidedAt &&
            r.complaint_decided_at &&
            decidedAt > r.complaint_decided_at
              ? COMPLAINT_WORDS.regranted
              : COMPLAINT_WORDS[r.complaint_status],
        }
      : null,
    /** Whether the notifier may contest the decision now (DSA Art. 20), until when, or why not. */
    contest: {
      possible: contest.possible && ctx.suspendedUntil === null,
      until: contest.until?.toISOString() ?? null,
      why:
        contest.why ??
        (ctx.suspendedUntil
          ? `Complaints from you are not processed until ${ctx.suspendedUntil.toISOString()} (DSA Art. 23).`
          : null),
    },
    warning: ctx.warning,
  };
}
export type NoticeStandingView = ReturnType<typeof presentStanding>;

/**
 * A notice's standing for whoever holds its receipt: the same 404 for an unknown id, a malformed one
 * and a wrong secret, so nothing tells one from the other.
 */
export async function noticeStanding(
  deps: Pick<NoticeDeps, 'pool' | 'misuse' | 'complaintDays'>,
  id: string,
  secret: string,
  now: Date = new Date(),
): Promise<NoticeStandingView> {
  const row = await noticeOfReceipt(deps.pool, id, secret);
  return standingFor(deps, row, now);
}

async function standingFor(
  deps: Pick<NoticeDeps, 'pool' | 'misuse' | 'complaintDays'>,
  row: StandingRow,
  now: Date,
): Promise<NoticeStandingView> {
  const { suspension, warning } = await senderStanding(
    deps.pool,
    [row.sender_key],
    deps.misuse.windowDays,
    now,
  );
  return presentStanding(row, {
    now,
    complaintDays: deps.complaintDays,
    warning: suspension ? suspendedWords(suspension.ends_at!) : warning ? warningWords(deps.misuse) : null,
    suspendedUntil: suspension?.ends_at ?? null,
  });
}

/** The notice a receipt names (`lock`: its row locked), or the one 404 for every way it can be wrong. */
async function noticeOfReceipt(
  db: Queryable,
  id: string,
  secret: string,
  lock = false,
): Promise<StandingRow> {
  const missing = () => notFound('A notice with this id and secret');
  if (!isUuid(id) || typeof secret !== 'string' || secret.length === 0 || secret.length > 200)
    throw missing();
  const row = await noticeStandingRow(db, id, lock);
  const given = sha256(secret);
  // Compared in constant time, and against a stand-in when there is no such notice.
  const stored = row?.secret_hash ?? sha256(`absent:${id}`);
  if (!crypto.timingSafeEqual(given, stored) || !row) throw missing();
  return row;
}

/** Evidence a complaint may bring (text, or links only the evidence worker fetches). */
export const COMPLAINT_EVIDENCE_MAX = 5;

export const complaintSchema = Joi.object({
  statement: text(2000)
    .required()
    .description(
      'Why the decision is wrong, in your words (a moderator other than the one who decided reads it).',
    ),
  evidence: Joi.array()
    .items(evidenceItem)
    .max(COMPLAINT_EVIDENCE_MAX)
    .description(
      "More evidence of what the notice said (text, or links to screenshots or videos, fetched only by the evidence worker): added to the notice's own, marked as the complaint's.",
    ),
});

/**
 * A notifier contests the decision on its notice (DSA Art. 20), with the receipt's secret: filed as
 * an appeal of the notice into the appeals queue, decided by a moderator other than the one who
 * dismissed it. 404 as for the standing; 409 not_contestable (with why) when canContest says no, 409
 * complaint_exists for a second one; 403 notifier_suspended under Art. 23. Answers the standing.
 */
export async function fileComplaint(
  deps: Pick<NoticeDeps, 'pool' | 'misuse' | 'complaintDays'>,
  id: string,
  secret: string,
  body: unknown,
  now: Date = new Date(),
): Promise<{ standing: NoticeStandingView; outbox: OutboxRow[] }> {
  const { statement, evidence = [] } = check<{
    statement: string;
    evidence?: { type: string; url?: string; content?: string }[];
  }>(complaintSchema, body);
  const { row, outbox } = await withTransaction(deps.pool, async (client) => {
    const notice = await noticeOfReceipt(client, id, secret, true);
    refuseSuspended(await senderStanding(client, [notice.sender_key], deps.misuse.windowDays, now));
    const { decidedAt } = standingOf(notice);
    const contest = canContest(notice, notice.complaint_id !== null, decidedAt, deps.complaintDays, now);
    if (notice.complaint_id)
      throw new AppError(409, 'complaint_exists', 'A complaint about this decision was already made.');
    if (!contest.possible)
      throw new AppError(409, 'not_contestable', contest.why ?? 'This decision cannot be contested.');
    try {
      await recordFiling(client, {
        playerRowId: notice.player_id,
        sanctionId: null,
        offenseId: null,
        noticeId: notice.id,
        reason: 'incorrect',
        statement,
        filedByStudio: null,
        at: now,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new AppError(409, 'complaint_exists', 'A complaint about this decision was already made.');
    }
    const row = (await noticeStandingRow(client, id))!;
    // Its evidence joins the notice's, and the evidence worker enriches it behind its guard.
    const enrich: OutboxRow[] = [];
    if (evidence.length) {
      const offenseId = (await offenseOfNotice(client, row.id))!;
      await appendComplaintEvidence(
        client,
        offenseId,
        evidence.map((e) => ({ ...e, submittedAt: now.toISOString() })),
      );
      enrich.push(
        ...(await writeJob(client, {
          queue: QUEUES.enrichment,
          name: JOB_NAMES.enrichOffenses,
          id: `${QUEUES.enrichment}-complaint-${row.id}`,
          payload: { offenseIds: [offenseId] },
          shardKey: row.player_id,
        })),
      );
    }
    // Its receipt by e-mail, when the notifier gave one.
    const mail = await recordMail(client, {
      noticeId: row.id,
      kind: 'complaint_received',
      facts: { filedAt: now.toISOString(), game: row.game_title },
    });
    return { row, outbox: [...enrich, ...mail] };
  });
  return { standing: await standingFor(deps, row, now), outbox };
}

/**
 * What a game may show its in-game reporter about a report it filed (with a reporterId): the same
 * standing and words as a notifier reads, for the studio that filed it (404 for any other, or for a
 * report without one).
 */
export async function reportOutcome(
  db: Queryable,
  offenseId: string,
  studioId: string,
  misuse: MisusePolicy,
  now: Date = new Date(),
) {
  if (!isUuid(offenseId)) throw notFound(`Report ${offenseId}`);
  const r = await reportStanding(db, offenseId, studioId);
  if (!r) throw notFound(`Report ${offenseId}`);
  const { status, reversed, decidedAt } = standingOf(r);
  // The reporter's own standing under Art. 23, for the game to tell them.
  const key = reporterSenderKey(studioId, r.reporter_id);
  const { suspension: suspended, warning: warned } = await senderStanding(db, [key], misuse.windowDays, now);
  return {
    reportId: offenseId,
    reporterId: r.reporter_id,
    status,
    words: reversed ? REVERSED : STANDING_WORDS[status],
    decidedAt: decidedAt?.toISOString() ?? null,
    reporterStanding: suspended
      ? {
          measure: 'suspension' as const,
          until: suspended.ends_at!.toISOString(),
          words: `Reports from this reporter are not weighed until ${suspended.ends_at!.toISOString()}: too many of them were found manifestly unfounded (DSA Art. 23).`,
        }
      : warned
        ? {
            measure: 'warning' as const,
            until: null,
            words: `Several reports from this reporter were found manifestly unfounded. If that goes on, their reports will not be weighed for ${misuse.suspensionDays} days (DSA Art. 23).`,
          }
        : null,
  };
}

export const noticeListSchema = Joi.object({
  source: Joi.string().valid('notice', 'trusted_flagger').description('Only notices of this source.'),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

/**
 * Notices for moderators, newest first, keyset-paginated: what each is about and where it stands,
 * its complaint and whether it was marked manifestly unfounded. Not the notifier's name or e-mail:
 * deciding does not need them (docs/moderators.md "Notices").
 */
export async function listNotices(db: Queryable, query: unknown) {
  const q = check<{ source?: NoticeSource; limit: number; cursor?: string }>(
    noticeListSchema,
    query,
    'query',
  );
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  if (q.cursor !== undefined && !after) throw invalidCursor();
  const rows = await noticeRows(db, q.source ?? null, after, q.limit + 1);
  const items = rows.slice(0, q.limit).map((r) => {
    const { status, reversed, decidedAt } = standingOf(r);
    return {
      id: r.id,
      receivedAt: r.created_at.toISOString(),
      game: { id: r.game_id, title: r.game_title },
      player: { serviceId: r.service_id, gamerTag: r.gamer_tag },
      category: r.category,
      categoryWords: CATEGORY_WORDS[r.category] ?? r.category,
      source: r.source,
      trustedFlagger: r.flagger_name,
      sender: presentSender(senderOfKey(r.sender_key), r.flagger_name),
      offenseId: r.offense_id,
      caseId: r.case_id,
      status,
      reversed,
      decidedAt: decidedAt?.toISOString() ?? null,
      complaint: r.complaint_id ? { id: r.complaint_id, status: r.complaint_status! } : null,
      markedUnfounded: r.marked,
    };
  });
  const last = rows[Math.min(rows.length, q.limit) - 1];
  return {
    items,
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.cursor_ts, last.id) : null,
  };
}

/** The games a notice may name, for the form and tools: id and title only. */
export async function noticeGames(db: Queryable) {
  return gameTitles(db);
}

// Trusted flaggers (Art. 22), for admins.

export const flaggerSchema = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  areas: Joi.array()
    .items(Joi.string().valid(...NOTICE_CATEGORIES))
    .min(1)
    .unique()
    .required()
    .description('The Transparency Database categories it is trusted for.'),
  coordinator: Joi.string()
    .trim()
    .min(1)
    .max(200)
    .required()
    .description('The Digital Services Coordinator that awarded the status.'),
});

export const presentFlagger = (
  f: FlaggerRow,
  accuracy?: { notices: number; decided: number; upheld: number },
) => ({
  id: f.id,
  name: f.name,
  areas: f.areas,
  coordinator: f.coordinator,
  createdAt: f.created_at.toISOString(),
  suspended: f.suspended_at !== null,
  suspendedAt: f.suspended_at?.toISOString() ?? null,
  suspendReason: f.suspend_reason,
  notices: accuracy?.notices ?? 0,
  decided: accuracy?.decided ?? 0,
  upheld: accuracy?.upheld ?? 0,
  /** Upheld of decided; null before any is decided. */
  accuracy:
    accuracy && accuracy.decided > 0 ? Math.round((accuracy.upheld / accuracy.decided) * 1000) / 1000 : null,
});

/** Registers a flagger: its API key is in this answer only. Audited. */
export async function registerFlagger(pool: Pool, body: unknown, moderatorId: string) {
  const v = check<{ name: string; areas: TdbCategory[]; coordinator: string }>(flaggerSchema, body);
  const key = `ptf_${crypto.randomBytes(24).toString('base64url')}`;
  const row = await withTransaction(pool, async (client) => {
    const f = await recordRegistration(client, { ...v, keyHash: sha256(key), by: moderatorId });
    await insertAudit(client, {
      moderatorId,
      caseId: null,
      action: 'register_flagger',
      outcome: null,
      note: null,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { flaggerId: f.id, name: f.name, areas: f.areas, coordinator: f.coordinator },
    });
    return f;
  });
  return { ...presentFlagger(row), apiKey: key };
}

export const suspendSchema = Joi.object({
  reason: Joi.string().trim().min(1).max(2000).required().description('Why: kept and audited.'),
});

/** Suspends (with a reason) or reinstates a flagger. Audited; 409 when it already is. */
export async function setFlaggerStatus(
  pool: Pool,
  id: string,
  change: { suspend: true; body: unknown } | { suspend: false },
  moderatorId: string,
) {
  if (!isUuid(id)) throw notFound(`Trusted flagger ${id}`);
  const reason = change.suspend ? check<{ reason: string }>(suspendSchema, change.body).reason : null;
  const row = await withTransaction(pool, async (client) => {
    const f = await recordStatus(
      client,
      id,
      reason !== null ? { suspend: true, reason, by: moderatorId } : { suspend: false, by: moderatorId },
    );
    if (!f) return undefined;
    await insertAudit(client, {
      moderatorId,
      caseId: null,
      action: reason !== null ? 'suspend_flagger' : 'reinstate_flagger',
      outcome: null,
      note: reason,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { flaggerId: f.id, name: f.name },
    });
    return f;
  });
  if (!row) {
    const suspended = await flaggerSuspended(pool, id);
    if (suspended === undefined) throw notFound(`Trusted flagger ${id}`);
    if (suspended) throw new AppError(409, 'flagger_suspended', 'This trusted flagger is already suspended.');
    throw new AppError(409, 'flagger_not_suspended', 'This trusted flagger is not suspended.');
  }
  return presentFlagger(row);
}

/** Every flagger with its accuracy: notices sent, decided, upheld. */
export async function listFlaggers(db: Queryable) {
  const rows = await flaggersWithAccuracy(db);
  return { items: rows.map((r) => presentFlagger(r, r)) };
}

/** The flagger an API key names: 401 when none does, 403 when it is suspended. */
export async function flaggerOfKey(db: Queryable, key: string) {
  const f = await flaggerByKeyHash(db, sha256(key));
  if (!f) throw new AppError(401, 'invalid_flagger_key', 'The trusted flagger key is not valid.');
  if (f.suspended_at)
    throw new AppError(
      403,
      'flagger_suspended',
      'This trusted flagger is suspended: its notices are not taken.',
    );
  return f;
}
