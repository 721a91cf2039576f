import crypto from 'node:crypto';
import Joi from 'joi';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { recordReports, type FilingOptions, type ReportToRecord } from '../data/repos/offenses.js';
import { insertAudit } from '../data/repos/moderation.js';
import { effectiveLimits, type Limits, type LimitOverrides } from '../domain/limits.js';
import { isUuid } from '../domain/ids.js';
import {
  CATEGORY_WORDS,
  kindOfCategory,
  NOTICE_CATEGORIES,
  noticeSchema,
  flaggerNoticeSchema,
  STANDING_WORDS,
  type NoticeInput,
  type NoticeStanding,
} from '../domain/notices.js';
import { computePenalty, type PenaltyCaps } from '../domain/penalty.js';
import type { NormalisedReport, NoticeSource } from '../domain/reports.js';
import { AppError, notFound } from '../errors.js';
import {
  recordNotice,
  STANDING_COLUMNS,
  STANDING_JOINS,
  standingOf,
  takeQuota,
  type StandingFacts,
} from '../lifecycles/notice.js';
import { recordRegistration, recordStatus, type FlaggerRow } from '../lifecycles/trusted-flagger.js';
import type { OutboxRow } from '../queues/outbox.js';
import { check } from '../validation.js';

/**
 * Notices from anyone (DSA Art. 16) and trusted flaggers (Art. 22): issue 37; README "Notices".
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
  filing?: FilingOptions;
}

export type NoticeSender =
  | { kind: 'public'; address: string }
  | { kind: 'flagger'; flagger: { id: string; name: string; areas: string[] } };

const hmac = (pepper: string, what: string) =>
  crypto.createHmac('sha256', pepper).update(what).digest('base64url').slice(0, 24);
const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest();

/** The notifier's receipt: keep the secret, it is never shown again. */
export interface NoticeReceipt {
  noticeId: string;
  secret: string;
  status: NoticeStanding;
  receivedAt: string;
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
  const { rows: games } = await deps.pool.query<{ studio_id: string; limits: LimitOverrides }>(
    'SELECT studio_id, limits FROM games WHERE id = $1',
    [input.gameId],
  );
  const game = games[0];
  if (!game) throw notFound(`Game ${input.gameId}`);
  const { rows: players } = await deps.pool.query<{ service_id: string }>(
    `SELECT p.service_id FROM players p JOIN player_games pg ON pg.player_id = p.id
      WHERE pg.game_id = $1 AND p.erased_at IS NULL AND (p.service_id = $2 OR lower(p.gamer_tag) = lower($2))
      ORDER BY p.service_id = $2 DESC LIMIT 1`,
    [input.gameId, input.player],
  );
  const player = players[0];
  if (!player) throw notFound(`A player ${input.player} of this game`);

  const trusted = sender.kind === 'flagger' && sender.flagger.areas.includes(input.category);
  const source: NoticeSource = trusted ? 'trusted_flagger' : 'notice';
  const anonymous = !input.email;
  const reporterId =
    sender.kind === 'flagger'
      ? `tf-${sender.flagger.id}`
      : anonymous
        ? `n-a-${hmac(deps.pepper, `address:${sender.address}`)}`
        : `n-${hmac(deps.pepper, `email:${input.email!}`)}`;
  const submittedAt = now.toISOString();
  const kind = kindOfCategory(input.category);
  const report: NormalisedReport = {
    kind,
    type: kind,
    detected: true,
    severity: 'medium',
    description: input.explanation,
    evidence: (input.evidence ?? []).map((e) => ({ ...e, submittedAt })) as NormalisedReport['evidence'],
    details: { dsaCategory: input.category },
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
  const outbox = await withTransaction(deps.pool, async (client) => {
    if (sender.kind === 'public') {
      const keys = [
        { key: `a:${hmac(deps.pepper, `address:${sender.address}`)}`, limit: deps.quotas.perAddress },
      ];
      if (input.email)
        keys.push({ key: `e:${hmac(deps.pepper, `email:${input.email}`)}`, limit: deps.quotas.perEmail });
      const wait = await takeQuota(client, keys, now);
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
    await recordNotice(client, {
      id: noticeId,
      secretHash: sha256(secret),
      offenseId,
      gameId: input.gameId,
      category: input.category,
      source,
      trustedFlaggerId: sender.kind === 'flagger' ? sender.flagger.id : null,
      notifierName: sender.kind === 'flagger' ? null : (input.name ?? null),
      notifierEmail: sender.kind === 'flagger' ? null : (input.email ?? null),
    });
    return outcome!.outbox;
  });
  return {
    receipt: {
      noticeId,
      secret,
      status: 'received',
      receivedAt: submittedAt,
      statusPage: '/notice/status',
    },
    outbox,
  };
}

interface StandingRow extends StandingFacts {
  id: string;
  secret_hash: Buffer;
  category: string;
  source: NoticeSource;
  created_at: Date;
  game_title: string;
}

/** How a decided notice can be taken further (Art. 16(5), 20, 21). */
const REDRESS =
  'If you disagree, you can bring the decision to a certified out-of-court dispute settlement body (DSA Art. 21) or to a court.';
const REVERSED =
  'Action was first taken, then reversed when the player contested it and a moderator agreed: no action stands.';

/** Where a notice stands, as its notifier may read it: nothing about the player beyond the outcome. */
export function presentStanding(r: StandingRow) {
  const { status, reversed, decidedAt } = standingOf(r);
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
  };
}
export type NoticeStandingView = ReturnType<typeof presentStanding>;

/**
 * A notice's standing for whoever holds its receipt: the same 404 for an unknown id, a malformed one
 * and a wrong secret, so nothing tells one from the other.
 */
export async function noticeStanding(db: Queryable, id: string, secret: string): Promise<NoticeStandingView> {
  const missing = () => notFound('A notice with this id and secret');
  if (!isUuid(id) || typeof secret !== 'string' || secret.length === 0 || secret.length > 200)
    throw missing();
  const { rows } = await db.query<StandingRow>(
    `SELECT n.id, n.secret_hash, n.category, n.source, n.created_at, g.title AS game_title, ${STANDING_COLUMNS}
       FROM notices n JOIN offenses o ON o.id = n.offense_id JOIN games g ON g.id = n.game_id ${STANDING_JOINS}
      WHERE n.id = $1`,
    [id],
  );
  const row = rows[0];
  const given = sha256(secret);
  // Compared in constant time, and against a stand-in when there is no such notice.
  const stored = row?.secret_hash ?? sha256(`absent:${id}`);
  if (!crypto.timingSafeEqual(given, stored) || !row) throw missing();
  return presentStanding(row);
}

/**
 * What a game may show its in-game reporter about a report it filed (with a reporterId): the same
 * standing and words as a notifier reads, for the studio that filed it (404 for any other, or for a
 * report without one).
 */
export async function reportOutcome(db: Queryable, offenseId: string, studioId: string) {
  if (!isUuid(offenseId)) throw notFound(`Report ${offenseId}`);
  const { rows } = await db.query<StandingFacts & { reporter_id: string }>(
    `SELECT o.reporter_id, ${STANDING_COLUMNS} FROM offenses o ${STANDING_JOINS}
      WHERE o.id = $1 AND o.studio_id = $2 AND o.reporter_id IS NOT NULL`,
    [offenseId, studioId],
  );
  const r = rows[0];
  if (!r) throw notFound(`Report ${offenseId}`);
  const { status, reversed, decidedAt } = standingOf(r);
  return {
    reportId: offenseId,
    reporterId: r.reporter_id,
    status,
    words: reversed ? REVERSED : STANDING_WORDS[status],
    decidedAt: decidedAt?.toISOString() ?? null,
  };
}

/** The games a notice may name, for the form and tools: id and title only. */
export async function noticeGames(db: Queryable) {
  const { rows } = await db.query<{ id: string; title: string }>(
    'SELECT id, title FROM games ORDER BY title, id',
  );
  return rows;
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
  const v = check<{ name: string; areas: string[]; coordinator: string }>(flaggerSchema, body);
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
    const { rows } = await pool.query<{ suspended: boolean }>(
      'SELECT suspended_at IS NOT NULL AS suspended FROM trusted_flaggers WHERE id = $1',
      [id],
    );
    if (!rows[0]) throw notFound(`Trusted flagger ${id}`);
    if (rows[0].suspended)
      throw new AppError(409, 'flagger_suspended', 'This trusted flagger is already suspended.');
    throw new AppError(409, 'flagger_not_suspended', 'This trusted flagger is not suspended.');
  }
  return presentFlagger(row);
}

/** Every flagger with its accuracy: notices sent, decided, upheld. */
export async function listFlaggers(db: Queryable) {
  const { rows } = await db.query<FlaggerRow & { notices: number; decided: number; upheld: number }>(
    `SELECT f.id, f.name, f.areas, f.coordinator, f.created_at, f.suspended_at, f.suspend_reason,
            count(n.id)::int AS notices,
            count(*) FILTER (WHERE c.status = 'resolved')::int AS decided,
            count(*) FILTER (WHERE c.status = 'resolved' AND c.outcome = 'upheld')::int AS upheld
       FROM trusted_flaggers f
       LEFT JOIN notices n ON n.trusted_flagger_id = f.id
       LEFT JOIN case_offenses co ON co.offense_id = n.offense_id
       LEFT JOIN review_cases c ON c.id = co.case_id
      GROUP BY f.id ORDER BY f.created_at, f.id`,
  );
  return { items: rows.map((r) => presentFlagger(r, r)) };
}

/** The flagger an API key names: 401 when none does, 403 when it is suspended. */
export async function flaggerOfKey(db: Queryable, key: string) {
  const { rows } = await db.query<FlaggerRow>(
    'SELECT id, name, areas, coordinator, created_at, suspended_at, suspend_reason FROM trusted_flaggers WHERE key_hash = $1',
    [sha256(key)],
  );
  const f = rows[0];
  if (!f) throw new AppError(401, 'invalid_flagger_key', 'The trusted flagger key is not valid.');
  if (f.suspended_at)
    throw new AppError(
      403,
      'flagger_suspended',
      'This trusted flagger is suspended: its notices are not taken.',
    );
  return f;
}
