import { COUNTED_IN_MATCHES, NEEDS_PERIOD } from '../domain/sanctions.js';
import { SANCTION_MATCHES_MAX } from '../domain/matches.js';
import {
  addStrikeOfCase,
  markExpiryAnnounced,
  recordPlacement,
  recordRevocation,
  type CountedDown,
} from '../lifecycles/sanction.js';
import { sanctionStatement } from '../domain/statement-of-reasons.js';
import Joi from 'joi';
import { withTransaction, type Pool, type PoolClient } from '../data/db.js';
import { isUuid } from '../domain/ids.js';
import { insertAudit } from '../data/repos/moderation.js';
import {
  extensionBlocked,
  findSanctionForUpdate,
  lockPlayerOfStudio,
  lockSanctionExpiry,
  SANCTION_TYPES,
  type SanctionRecord,
  type SanctionType,
} from '../data/repos/sanctions.js';
import { studiosOfPlayer } from '../data/repos/webhooks.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import { weighingFor } from './rule-triggers.js';
import { AppError, notFound, validationError } from '../errors.js';
import { strongLinksOf } from '../data/repos/signals.js';
import { extensionGround } from '../domain/signals.js';
import { writeJob, type OutboxRow } from '../queues/outbox.js';
import { check, text } from '../validation.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import type { StrikeRung } from '../config.js';
import { presentSanction } from '../views.js';
import { traceFields } from '../tracing/spans.js';
import { TDB } from '../domain/transparency-vocabulary.js';
import { recordOwed } from '../lifecycles/transparency-statement.js';
import { findStudio } from '../data/repos/accounts.js';
import { recordSanctionDecision } from '../lifecycles/decision-record.js';
import { placementAuditDetails, type SanctionDecision } from '../domain/decision-record.js';

/** Who places or revokes: a moderator (any scope) or a studio (its own studio's scope only). */
export type SanctionActor = { kind: 'moderator'; id: string } | { kind: 'studio'; id: string };

/**
 * One set of limits for a sanction's timing, however it is given: it lasts from 60 s to 10 years
 * (durationSeconds, or expiresAt - startsAt), starts no earlier than now (a minute's clock skew
 * allowed) and no later than a year from now.
 */
/** APPEAL_WINDOW_DAYS's default: what a statement says when a caller gives no window. */
export const DEFAULT_APPEAL_WINDOW_DAYS = 30;

/** How a sanction the strike ladder placed begins its reason (statements of reasons call it automated). */
export const STRIKE_LADDER_REASON = 'Strike ladder:';

export const SANCTION_LIMITS = {
  minSeconds: 60,
  maxSeconds: 10 * 365 * 86_400,
  pastSkewSeconds: 60,
  maxStartDays: 365,
} as const;
const reason = text(2000);

/** A sanction as a moderator asks for it (on a player, or with an upheld case). */
export const sanctionSchema = Joi.object({
  type: Joi.string()
    .valid(...SANCTION_TYPES)
    .required(),
  scope: Joi.alternatives(Joi.string().valid('global'), Joi.string().guid())
    .default('global')
    .description('"global" (default) or the id of the one studio it applies to.'),
  reason: reason.required().description('Shown to the player.'),
  startsAt: Joi.date()
    .iso()
    .description('Default: now. Not in the past (60 s of clock skew allowed) and at most 365 days ahead.'),
  durationSeconds: Joi.number()
    .integer()
    .min(SANCTION_LIMITS.minSeconds)
    .max(SANCTION_LIMITS.maxSeconds)
    .description(
      'Or expiresAt. Required for chat_restriction, matchmaking_restriction and temporary_ban; optional for a warning; refused for a permanent_ban. 60 s to 10 years.',
    ),
  expiresAt: Joi.date()
    .iso()
    .description(
      'Or durationSeconds. The same limits as durationSeconds: 60 s to 10 years after startsAt (so also in the future).',
    ),
  matches: Joi.number()
    .integer()
    .min(1)
    .max(SANCTION_MATCHES_MAX)
    .description(
      `Instead of a time, for a chat_restriction or a matchmaking_restriction: it lasts this many matches the player finishes (1 to ${SANCTION_MATCHES_MAX}; a match left early does not count), counted from the matches the studio sends (docs/moderators.md "Sanctions"). Not with durationSeconds or expiresAt.`,
    ),
  dsaCategory: Joi.string()
    .valid(...TDB.category)
    .description(
      'The category its statement to the DSA Transparency Database gives, instead of the one its case\'s kind gives (docs/compliance.md "Regulation (EU DSA)"): e.g. STATEMENT_CATEGORY_SCAMS_AND_FRAUD for account trading. Not for a warning (no statement).',
    ),
}).oxor('durationSeconds', 'expiresAt', 'matches');

/** A studio's: always scoped to the studio itself, so no scope to give. */
export const studioSanctionSchema = sanctionSchema.keys({ scope: Joi.forbidden() });

export interface SanctionInput {
  type: SanctionType;
  scope?: string;
  reason: string;
  startsAt?: Date;
  durationSeconds?: number;
  expiresAt?: Date;
  /** Lasts this many finished matches instead of a time (a chat or matchmaking restriction). */
  matches?: number;
  dsaCategory?: string;
}

/** A warning restricts nothing, so it sends no statement: a Transparency Database category is refused. */
export function refuseCategoryOnWarning(
  v: Pick<SanctionInput, 'type' | 'dsaCategory'>,
  field = 'dsaCategory',
) {
  if (v.dsaCategory && v.type === 'warning')
    throw validationError([
      { field, message: 'a warning restricts nothing: it sends no statement to categorise' },
    ]);
}

/** When it starts and ends, by its type's rules: a permanent ban never ends, a restriction always does. */
/**
 * The fields a period's faults are named by: a sanction's own (startsAt, expiresAt, durationSeconds),
 * or a wave's, which has a run time and a duration but no end time.
 */
export interface PeriodFields {
  start: string;
  end: string;
  duration: string;
  /** Whether an end time may be given instead of a duration (a sanction's expiresAt). */
  endAccepted: boolean;
}
const SANCTION_PERIOD: PeriodFields = {
  start: 'startsAt',
  end: 'expiresAt',
  duration: 'durationSeconds',
  endAccepted: true,
};

export function period(
  v: SanctionInput,
  now: Date,
  f: PeriodFields = SANCTION_PERIOD,
): { startsAt: Date; expiresAt: Date | null } {
  const startsAt = v.startsAt ?? now;
  if (v.matches !== undefined && !COUNTED_IN_MATCHES.includes(v.type))
    throw validationError([
      {
        field: 'matches',
        message: 'only a chat_restriction or a matchmaking_restriction is counted in matches',
      },
    ]);
  const expiresAt =
    v.expiresAt ?? (v.durationSeconds ? new Date(startsAt.getTime() + v.durationSeconds * 1000) : null);
  const length = (bound: string) => (f.endAccepted ? `${bound} after ${f.start}` : `${bound} long`);
  if (v.type === 'permanent_ban' && expiresAt)
    throw validationError([{ field: f.end, message: 'a permanent ban does not expire' }]);
  if (NEEDS_PERIOD.includes(v.type) && !expiresAt && v.matches === undefined)
    throw validationError([
      {
        field: f.duration,
        message: `a ${v.type} needs ${f.duration.replace(/^.*\./, '')}${f.endAccepted ? ` or ${f.end}` : ''}`,
      },
    ]);
  const L = SANCTION_LIMITS;
  if (startsAt.getTime() < now.getTime() - L.pastSkewSeconds * 1000)
    throw validationError([{ field: f.start, message: 'must not be in the past' }]);
  if (startsAt.getTime() > now.getTime() + L.maxStartDays * 86_400_000)
    throw validationError([{ field: f.start, message: `must be within ${L.maxStartDays} days from now` }]);
  if (expiresAt) {
    const seconds = (expiresAt.getTime() - startsAt.getTime()) / 1000;
    if (seconds < L.minSeconds)
      throw validationError([
        { field: f.end, message: `must be at least ${length(`${L.minSeconds} seconds`)}` },
      ]);
    if (seconds > L.maxSeconds)
      throw validationError([{ field: f.end, message: `must be at most ${length('10 years')}` }]);
  }
  return { startsAt, expiresAt };
}

/**
 * Places a sanction in the caller's transaction, with its audit row and its `sanction.applied`
 * events (to the studios that may see it: the scope's studio, or for a global one every studio whose
 * games the player plays, and the issuing studio). Shared by the direct placement and a case upheld
 * with a sanction.
 */
export async function applySanction(
  client: PoolClient,
  input: {
    actor: SanctionActor;
    player: { rowId: string; serviceId: string };
    sanction: SanctionInput;
    caseId: string | null;
    now: Date;
    /** APPEAL_WINDOW_DAYS: the appeal deadline its statement of reasons gives. */
    appealWindowDays?: number;
    /** The ban wave placing it (common/usecases/waves.ts). */
    waveId?: string;
    /** The rule placing it on its own (common/usecases/rules.ts): its statement names it. */
    rule?: { id: string; version: number; name: string };
    /** Placed by the strike ladder (an upheld case's strike reached a rung): its audit entry says so. */
    byStrikeLadder?: true;
    /** Extends this sanction of a strongly linked account (extendSanction). */
    extendedFrom?: { sanctionId: string; kinds: string[] };
  },
): Promise<{ sanction: SanctionRecord; outbox: OutboxRow[] }> {
  const v = input.sanction;
  const scopeStudioId =
    input.actor.kind === 'studio' ? input.actor.id : !v.scope || v.scope === 'global' ? null : v.scope;
  if (scopeStudioId && input.actor.kind === 'moderator') {
    if (!(await findStudio(client, scopeStudioId)))
      throw validationError([{ field: 'scope', message: 'is not a studio' }]);
  }
  refuseCategoryOnWarning(v);
  const sanction = await recordPlacement(
    client,
    {
      playerRowId: input.player.rowId,
      type: v.type,
      scopeStudioId,
      reason: v.reason,
      caseId: input.caseId,
      issuedBy: input.actor,
      ...period(v, input.now),
      dsaCategory: v.dsaCategory ?? null,
      waveId: input.waveId ?? null,
      rule: input.rule ?? null,
      extendedFrom: input.extendedFrom?.sanctionId ?? null,
      matches: v.matches ?? null,
    },
    input.now,
  );
  // Its decision record, stored with it: every message about the decision is made from it.
  const decision = await recordSanctionDecision(client, sanction.id, {
    decidedBy: input.rule ? 'rule' : input.byStrikeLadder ? 'strike_ladder' : input.actor.kind,
    extendedFrom: input.extendedFrom ?? null,
  });
  // Its audit entry, made from the record as every other message about it is.
  await audit(
    client,
    input.actor,
    'place_sanction',
    v.reason,
    input.caseId,
    sanction,
    placementAuditDetails(decision),
  );
  const outbox = await emitSanctionEvent(client, 'sanction.applied', sanction, {
    decision,
    appealWindowDays: input.appealWindowDays ?? DEFAULT_APPEAL_WINDOW_DAYS,
  });
  if (sanction.expiresAt) {
    // The expiry's event comes from a delayed job written with the sanction; whether the sanction is
    // active never depends on it.
    outbox.push(
      ...(await writeJob(client, {
        queue: QUEUES.review,
        name: JOB_NAMES.sanctionExpiry,
        id: `sanction-expiry-${sanction.id}`,
        payload: { sanctionId: sanction.id, runAt: sanction.expiresAt.toISOString(), ...traceFields() },
        // Sharded by the player (migration 019), as the player's offense jobs are.
        shardKey: input.player.rowId,
      })),
    );
  }
  // A restriction began: the player's conduct summaries, once this commits (common/lifecycles/conduct.ts).
  if (sanction.type !== 'warning')
    outbox.push(
      ...(await writeJob(client, {
        queue: QUEUES.review,
        name: JOB_NAMES.summarizeConduct,
        id: `summarize-conduct-${sanction.id}`,
        payload: { sanctionId: sanction.id, ...traceFields() },
        shardKey: input.player.rowId,
      })),
    );
  // Its statement to the DSA Transparency Database, when its platform has an account (issue 35).
  outbox.push(...(await recordOwed(client, sanction)));
  // Rules triggered by a sanction placed weigh the player's open cases once this commits.
  outbox.push(...(await weighingFor(client, 'sanction_placed', input.player.rowId, sanction.id)));
  return { sanction, outbox };
}

/**
 * Restrictions counted in matches whose last match was just finished (common/lifecycles/matches.ts):
 * each announces its end as a timed one does, through the expiry job (sanction.expired, once), written
 * in the caller's transaction.
 */
export async function markCountedDownEnded(
  client: PoolClient,
  ended: readonly CountedDown[],
): Promise<OutboxRow[]> {
  const outbox: OutboxRow[] = [];
  for (const c of ended)
    outbox.push(
      ...(await writeJob(client, {
        queue: QUEUES.review,
        name: JOB_NAMES.sanctionExpiry,
        id: `sanction-expiry-${c.sanctionId}`,
        payload: { sanctionId: c.sanctionId, runAt: c.endedAt!.toISOString(), ...traceFields() },
        shardKey: c.playerRowId,
      })),
    );
  return outbox;
}

/**
 * The delayed expiry job: once a sanction has expired (and was not revoked first), sanction.expired
 * goes to the studios that may see it, once. Early (clocks apart), it fails and BullMQ retries it.
 */
export async function announceExpiry(
  pool: Pool,
  sanctionId: string,
  now: Date,
): Promise<{ announced: boolean; outbox: OutboxRow[] }> {
  return withTransaction(pool, async (client) => {
    const s = await lockSanctionExpiry(client, sanctionId);
    if (!s || s.revoked || s.done || !s.expiresAt) return { announced: false, outbox: [] };
    if (s.expiresAt > now)
      throw new Error(`sanction ${sanctionId} expires at ${s.expiresAt.toISOString()}, not yet`);
    await markExpiryAnnounced(client, sanctionId, now);
    const found = await findSanctionForUpdate(client, s.serviceId, sanctionId, now);
    return { announced: true, outbox: await emitSanctionEvent(client, 'sanction.expired', found!) };
  });
}

async function audit(
  client: PoolClient,
  actor: SanctionActor,
  action: 'place_sanction' | 'revoke_sanction',
  note: string,
  caseId: string | null,
  s: SanctionRecord,
  extra: Record<string, unknown> = {},
) {
  const who =
    actor.kind === 'moderator'
      ? ({ moderatorId: actor.id } as const)
      : ({ moderatorId: null, studioId: actor.id } as const);
  await insertAudit(client, {
    ...who,
    caseId,
    action,
    outcome: null,
    note,
    trustScoreBefore: null,
    trustScoreAfter: null,
    details: {
      sanctionId: s.id,
      playerId: s.serviceId,
      type: s.type,
      scope: s.scopeStudioId ?? 'global',
      ...extra,
    },
  });
}

async function emitSanctionEvent(
  client: PoolClient,
  type: 'sanction.applied' | 'sanction.revoked' | 'sanction.expired',
  s: SanctionRecord,
  /** A placement's: its decision record and the appeal window its statement of reasons gives. */
  applied?: { decision: SanctionDecision; appealWindowDays: number },
): Promise<OutboxRow[]> {
  const audience = s.scopeStudioId
    ? [s.scopeStudioId]
    : [
        ...new Set([
          ...(await studiosOfPlayer(client, s.serviceId)),
          ...(s.issuedBy.kind === 'studio' ? [s.issuedBy.id] : []),
        ]),
      ];
  if (audience.length === 0) return [];
  const data = {
    playerId: s.serviceId,
    sanction: presentSanction(s),
    // What the game shows its player: the same statement as the standing page and the API.
    ...(applied ? { statementOfReasons: statementOf(s, applied.decision, applied.appealWindowDays) } : {}),
  };
  return emitEvents(client, [{ type, dataByStudio: new Map(audience.map((studio) => [studio, data])) }]);
}

/**
 * The statement of reasons of a sanction just placed (common/domain/statement-of-reasons.ts), made
 * from its decision record, as the standing page and the Transparency Database statement are.
 */
function statementOf(s: SanctionRecord, decision: SanctionDecision, appealWindowDays: number) {
  return sanctionStatement(
    { decision, reason: s.reason, revokedAt: s.revokedAt, revokeReason: s.revokeReason, keptOnAppeal: null },
    { windowDays: appealWindowDays, now: s.createdAt, appeal: null },
  );
}

/** A player by service id, locked; with `studioId`, only a player of that studio's games (else 404). */
export async function lockPlayer(client: PoolClient, serviceId: string, studioId: string | null) {
  const player = await lockPlayerOfStudio(client, serviceId, studioId);
  if (!player)
    throw notFound(studioId ? `Player ${serviceId} of your studio's games` : `Player ${serviceId}`);
  return player;
}

/** POST .../sanctions: a moderator on any player, a studio on a player of its own games. */
export async function placeSanction(
  pool: Pool,
  actor: SanctionActor,
  serviceId: string,
  body: unknown,
  now: Date,
  appealWindowDays?: number,
): Promise<{ sanction: SanctionRecord; outbox: OutboxRow[] }> {
  const sanction = check<SanctionInput>(
    actor.kind === 'studio' ? studioSanctionSchema : sanctionSchema,
    body,
  );
  return withTransaction(pool, async (client) => {
    const player = await lockPlayer(client, serviceId, actor.kind === 'studio' ? actor.id : null);
    return applySanction(client, { actor, player, sanction, caseId: null, now, appealWindowDays });
  });
}

export const revokeSanctionSchema = Joi.object({ reason: reason.required() });

/**
 * Revokes a sanction (a moderator any, a studio only its own studio's: 404 otherwise) with its
 * audit row and `sanction.revoked`. Revoking a revoked one changes nothing and answers it as it is.
 */
export async function revokeSanction(
  pool: Pool,
  actor: SanctionActor,
  serviceId: string,
  sanctionId: string,
  body: unknown,
  now: Date,
): Promise<{ sanction: SanctionRecord; outbox: OutboxRow[] }> {
  const { reason: why } = check<{ reason: string }>(revokeSanctionSchema, body);
  return withTransaction(pool, async (client) => {
    const found = isUuid(sanctionId)
      ? await findSanctionForUpdate(client, serviceId, sanctionId, now)
      : undefined;
    if (!found || (actor.kind === 'studio' && found.scopeStudioId !== actor.id))
      throw notFound(`Sanction ${sanctionId} of player ${serviceId}`);
    if (found.revokedAt) return { sanction: found, outbox: [] };
    const outbox = await revokeInTransaction(client, actor, found, why, now);
    return { sanction: (await findSanctionForUpdate(client, serviceId, found.id, now))!, outbox };
  });
}

/** Revokes a locked, unrevoked sanction in the caller's transaction: audit row and sanction.revoked. */
export async function revokeInTransaction(
  client: PoolClient,
  actor: SanctionActor,
  found: SanctionRecord,
  why: string,
  now: Date,
): Promise<OutboxRow[]> {
  const sanction = await recordRevocation(client, found.id, actor, why, now);
  await audit(client, actor, 'revoke_sanction', why, found.caseId, sanction);
  return emitSanctionEvent(client, 'sanction.revoked', sanction);
}

export interface StrikePolicy {
  ttlDays: number;
  ladder: StrikeRung[];
  /** APPEAL_WINDOW_DAYS, for the statements of reasons of the sanctions it places. */
  appealWindowDays?: number;
}

/**
 * An upheld case adds a strike to its player (once per case), in the caller's transaction, which
 * holds the player's row lock: concurrent upholds count one after another, so each rung of the
 * ladder is crossed exactly once. Crossing a rung places its sanction (audited, with the case id).
 */
export async function addStrike(
  client: PoolClient,
  input: {
    moderatorId: string;
    player: { rowId: string; serviceId: string };
    caseId: string;
    now: Date;
    policy: StrikePolicy;
  },
): Promise<{ activeStrikes: number; sanctions: SanctionRecord[]; outbox: OutboxRow[] }> {
  const { before, added } = await addStrikeOfCase(client, {
    playerRowId: input.player.rowId,
    caseId: input.caseId,
    now: input.now,
    ttlDays: input.policy.ttlDays,
  });
  const after = before + (added ? 1 : 0);
  const sanctions: SanctionRecord[] = [];
  const outbox: OutboxRow[] = [];
  for (const rung of input.policy.ladder.filter((r) => r.strikes > before && r.strikes <= after)) {
    const placed = await applySanction(client, {
      actor: { kind: 'moderator', id: input.moderatorId },
      player: input.player,
      sanction: {
        type: rung.type,
        reason: `${STRIKE_LADDER_REASON} ${rung.strikes} active strikes.`,
        ...(rung.matches
          ? { matches: rung.matches }
          : rung.durationSeconds
            ? { durationSeconds: rung.durationSeconds }
            : {}),
      },
      caseId: input.caseId,
      now: input.now,
      appealWindowDays: input.policy.appealWindowDays,
      byStrikeLadder: true,
    });
    sanctions.push(placed.sanction);
    outbox.push(...placed.outbox);
  }
  return { activeStrikes: after, sanctions, outbox };
}

export interface Extension {
  sanctions: SanctionRecord[];
  skipped: { serviceId: string; why: 'already_extended' | 'already_sanctioned' }[];
}

/**
 * A moderator extends a sanction in force to the accounts strongly linked to its player (through the
 * sanction's studio's signals, or every studio's for a global one): each gets a sanction of its own,
 * of the same type, scope and end, with its own statement of reasons (the ground: extensionGround),
 * Transparency Database statement and appeal. One link alone never does this: a moderator decides.
 * An account already given one extended from this sanction, or already under one of the same type and
 * scope, is skipped. 404 for no such sanction; 409 for one not in force or a warning.
 */
export async function extendSanction(
  pool: Pool,
  actor: SanctionActor,
  sanctionId: string,
  now: Date,
  appealWindowDays?: number,
): Promise<Extension & { outbox: OutboxRow[] }> {
  return withTransaction(pool, async (client) => {
    const original = isUuid(sanctionId)
      ? await findSanctionForUpdate(client, null, sanctionId, now)
      : undefined;
    if (!original) throw notFound(`Sanction ${sanctionId}`);
    if (!original.active && !(original.revokedAt === null && original.startsAt > now))
      throw new AppError(
        409,
        'sanction_not_in_force',
        'Only a sanction in force (or yet to start) can be extended.',
      );
    if (original.type === 'warning')
      throw new AppError(
        409,
        'sanction_not_in_force',
        'A warning restricts nothing: there is nothing to extend.',
      );
    const linked = await strongLinksOf(client, original.playerRowId, original.scopeStudioId);
    const outbox: OutboxRow[] = [];
    const sanctions: SanctionRecord[] = [];
    const skipped: Extension['skipped'] = [];
    for (const alt of linked) {
      const why = await extensionBlocked(client, alt.playerRowId, original, now);
      if (why) {
        skipped.push({ serviceId: alt.serviceId, why });
        continue;
      }
      const placed = await applySanction(client, {
        actor,
        player: { rowId: alt.playerRowId, serviceId: alt.serviceId },
        sanction: {
          type: original.type,
          scope: original.scopeStudioId ?? 'global',
          reason: extensionGround(original, alt.kinds),
          ...(original.expiresAt ? { expiresAt: original.expiresAt } : {}),
        },
        caseId: null,
        now,
        appealWindowDays,
        extendedFrom: { sanctionId: original.id, kinds: alt.kinds },
      });
      sanctions.push(placed.sanction);
      outbox.push(...placed.outbox);
    }
    return { sanctions, skipped, outbox };
  });
}
