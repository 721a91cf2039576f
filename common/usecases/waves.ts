import Joi from 'joi';
import { BAN_TYPES } from '../domain/sanctions.js';
import { encodeCursor, decodeCursor, encodeKeys, invalidCursor, oneKey, pageOf, CURSOR } from '../cursor.js';
import { withTransaction, type Pool, type PoolClient, type Queryable } from '../data/db.js';
import { findStudio } from '../data/repos/accounts.js';
import { insertAudit } from '../data/repos/moderation.js';
import { findSanctionForUpdate, SANCTION_TYPES, type SanctionType } from '../data/repos/sanctions.js';
import {
  findWave,
  listMembers,
  listWaves,
  playersByServiceId,
  playersOfCases,
  protectedAmong,
  type NamedWaveRow,
} from '../data/repos/waves.js';
import { isUuid } from '../domain/ids.js';
import { SERVICE_ID } from '../domain/players.js';
import { TDB } from '../domain/transparency-vocabulary.js';
import { AppError, notFound, validationError } from '../errors.js';
import {
  claimMembers,
  lockWave,
  MEMBER_STATES,
  membersLeft,
  nextWaveState,
  recordMembers,
  recordTransition,
  recordWave,
  WAVE_STATES,
  type MemberState,
  type WaveActor,
  type WaveEvent,
  type WaveRow,
  type WaveState,
  approvalVerdict,
  waitsForApproval,
} from '../lifecycles/wave.js';
import type { OutboxRow } from '../queues/outbox.js';
import { check, text } from '../validation.js';
import {
  applySanction,
  placeSanction,
  sanctionSchema,
  type SanctionInput,
  period,
  refuseCategoryOnWarning,
  revokeInTransaction,
  SANCTION_LIMITS,
} from './sanctions.js';

/**
 * Ban waves (issue 38; docs/moderators.md "Waves"): a named set of sanctions of one kind, placed at one time on up
 * to WAVE_MAX_PLAYERS players, each with its own statement of reasons, exactly once a player; made by
 * a moderator (from players or from review cases) or by a studio (its own players, in its own games);
 * cancelled before it runs, rolled back after. A moderator's wave above WAVE_APPROVAL_ABOVE players,
 * or one that bans for good, waits for a second moderator, an admin, to approve it (four eyes). The
 * life cycle is common/lifecycles/wave.ts.
 */

export interface WavePolicy {
  approvalAbove: number;
  maxPlayers: number;
  batch: number;
  /** PROTECTED_TAGS: a moderator's wave with a player carrying one waits for a second moderator. */
  protectedTags?: readonly string[];
}

/** The most players a wave may name, whatever WAVE_MAX_PLAYERS says (the schema's bound). */
const PLAYERS_BOUND = 100_000;

const sanctionOfWave = Joi.object({
  type: Joi.string()
    .valid(...SANCTION_TYPES)
    .required(),
  scope: Joi.alternatives(Joi.string().valid('global'), Joi.string().guid())
    .default('global')
    .description('"global" (default) or the id of the one studio it applies to. Not for a studio (its own).'),
  reason: text(2000).required().description("Shown to each player in their sanction's statement of reasons."),
  durationSeconds: Joi.number()
    .integer()
    .min(SANCTION_LIMITS.minSeconds)
    .max(SANCTION_LIMITS.maxSeconds)
    .description(
      'From the moment each sanction is placed. Required for chat_restriction, matchmaking_restriction and temporary_ban; optional for a warning; refused for a permanent_ban.',
    ),
  dsaCategory: Joi.string()
    .valid(...TDB.category)
    .description('The Transparency Database category of its statements (not for a warning).'),
});

export const waveSchema = Joi.object({
  name: text(200).required().description('What the wave is, for moderators: e.g. "Aimbot ring, November".'),
  runAt: Joi.date()
    .iso()
    .description(
      'When it runs. Default: now. Not in the past (60 s of clock skew allowed), at most 365 days ahead.',
    ),
  sanction: sanctionOfWave.required(),
  players: Joi.array()
    .items(Joi.string().pattern(SERVICE_ID))
    .min(1)
    .max(PLAYERS_BOUND)
    .unique()
    .description('The players, by serviceId (or cases). At most WAVE_MAX_PLAYERS.'),
  cases: Joi.array()
    .items(Joi.string().guid())
    .min(1)
    .max(PLAYERS_BOUND)
    .unique()
    .description("Or review cases (moderators only): each case's player, once."),
}).xor('players', 'cases');

export const studioWaveSchema = waveSchema.keys({
  sanction: sanctionOfWave.keys({ scope: Joi.forbidden() }).required(),
  cases: Joi.forbidden(),
});

export const waveNoteSchema = Joi.object({ reason: text(2000).required() });

export const waveListSchema = Joi.object({
  state: Joi.string().valid(...WAVE_STATES),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

export const memberListSchema = Joi.object({
  state: Joi.string().valid(...MEMBER_STATES),
  limit: Joi.number().integer().min(1).max(1000).default(100),
  cursor: CURSOR,
});

const actorOf = (w: WaveRow): WaveActor =>
  w.created_by_moderator
    ? { kind: 'moderator', id: w.created_by_moderator }
    : { kind: 'studio', id: w.created_by_studio! };

const byOf = (mod: string | null, studio: string | null) =>
  mod ? ({ kind: 'moderator', id: mod } as const) : studio ? ({ kind: 'studio', id: studio } as const) : null;

export const presentWave = (w: NamedWaveRow) => ({
  id: w.id,
  name: w.name,
  state: w.state,
  runAt: w.run_at.toISOString(),
  sanction: {
    type: w.sanction_type,
    scope: w.scope_studio_id ?? 'global',
    reason: w.reason,
    durationSeconds: w.duration_seconds,
    dsaCategory: w.dsa_category,
  },
  size: w.size,
  pending: w.state === 'rolling_back' || w.state === 'rolled_back' ? 0 : w.size - w.placed - w.skipped,
  placed: w.placed,
  skipped: w.skipped,
  revoked: w.revoked,
  createdBy: { ...actorOf(w), name: w.created_by_name },
  createdAt: w.created_at.toISOString(),
  approval:
    w.approved_at || w.state === 'awaiting_approval'
      ? {
          by: w.approved_by_moderator ? { id: w.approved_by_moderator, name: w.approved_by_name } : null,
          at: w.approved_at?.toISOString() ?? null,
        }
      : null,
  startedAt: w.started_at?.toISOString() ?? null,
  finishedAt: w.finished_at?.toISOString() ?? null,
  cancelled: w.cancelled_at
    ? {
        by: byOf(w.cancelled_by_moderator, w.cancelled_by_studio),
        at: w.cancelled_at.toISOString(),
        reason: w.cancel_reason,
      }
    : null,
  rollBack: w.rollback_requested_at
    ? {
        by: byOf(w.rolled_back_by_moderator, w.rolled_back_by_studio),
        at: w.rollback_requested_at.toISOString(),
        reason: w.rollback_reason,
      }
    : null,
});
export type WaveView = ReturnType<typeof presentWave>;

async function auditWave(
  client: PoolClient,
  by: WaveActor,
  action: 'create_wave' | 'approve_wave' | 'cancel_wave' | 'roll_back_wave',
  w: WaveRow,
  note: string | null,
) {
  await insertAudit(client, {
    ...(by.kind === 'moderator'
      ? ({ moderatorId: by.id } as const)
      : ({ moderatorId: null, studioId: by.id } as const)),
    caseId: null,
    action,
    outcome: null,
    note,
    trustScoreBefore: null,
    trustScoreAfter: null,
    details: { waveId: w.id, name: w.name, size: w.size, type: w.sanction_type, state: w.state },
  });
}

interface WaveInput {
  name: string;
  runAt?: Date;
  sanction: {
    type: SanctionType;
    scope?: string;
    reason: string;
    durationSeconds?: number;
    dsaCategory?: string;
  };
  players?: string[];
  cases?: string[];
}

/**
 * POST .../waves: checks the sanction as a sanction placed at `runAt` would be, finds the players (a
 * studio's: only its own; an erased or unknown one is named in `unmatched`, not added), and records
 * the wave, scheduled or (four eyes) awaiting approval. 201 with the wave and what was not matched.
 */
export async function createWave(
  pool: Pool,
  by: WaveActor,
  body: unknown,
  policy: WavePolicy,
  now: Date,
): Promise<{ wave: WaveView; unmatched: string[]; outbox: OutboxRow[] }> {
  const v = check<WaveInput>(by.kind === 'studio' ? studioWaveSchema : waveSchema, body);
  const named = v.players ?? v.cases!;
  if (named.length > policy.maxPlayers)
    throw validationError([
      {
        field: v.players ? 'players' : 'cases',
        message: `at most ${policy.maxPlayers} in one wave (WAVE_MAX_PLAYERS)`,
      },
    ]);
  const runAt = v.runAt ?? now;
  // The period a sanction of the wave would have, placed at its time (the same limits as one placed by
  // hand), its faults named by the wave's own fields.
  period({ ...v.sanction, startsAt: runAt }, now, {
    start: 'runAt',
    end: 'sanction.durationSeconds',
    duration: 'sanction.durationSeconds',
    endAccepted: false,
  });
  refuseCategoryOnWarning(v.sanction, 'sanction.dsaCategory');
  const scopeStudioId =
    by.kind === 'studio'
      ? by.id
      : !v.sanction.scope || v.sanction.scope === 'global'
        ? null
        : v.sanction.scope;

  return withTransaction(pool, async (client) => {
    if (scopeStudioId && by.kind === 'moderator') {
      if (!(await findStudio(client, scopeStudioId)))
        throw validationError([{ field: 'sanction.scope', message: 'is not a studio' }]);
    }
    let players: { id: string; service_id: string }[];
    let unmatched: string[];
    if (v.players) {
      players = await playersByServiceId(client, v.players, by.kind === 'studio' ? by.id : null);
      const found = new Set(players.map((p) => p.service_id));
      unmatched = v.players.filter((id) => !found.has(id));
    } else {
      const cases = await playersOfCases(client, v.cases!);
      players = cases.players;
      unmatched = cases.missing;
    }
    if (players.length === 0)
      throw validationError(
        [
          {
            field: v.players ? 'players' : 'cases',
            message: 'none of them is a player the caller may sanction',
          },
        ],
        'The wave names nobody it could sanction.',
      );
    const { wave, outbox } = await recordWave(client, {
      name: v.name,
      runAt,
      sanctionType: v.sanction.type,
      scopeStudioId,
      reason: v.sanction.reason,
      durationSeconds: v.sanction.durationSeconds ?? null,
      dsaCategory: v.sanction.dsaCategory ?? null,
      createdBy: by,
      needsApproval: waitsForApproval(policy.approvalAbove, {
        createdBy: by,
        size: players.length,
        type: v.sanction.type,
        protectedMembers: await protectedAmong(
          client,
          players.map((p) => p.id),
          policy.protectedTags ?? [],
        ),
      }),
      playerRowIds: players.map((p) => p.id),
    });
    await auditWave(client, by, 'create_wave', wave, null);
    return { wave: presentWave((await findWave(client, wave.id))!), unmatched, outbox };
  });
}

/** Sanctions that wait for a second moderator when a moderator places them on a protected player. */
const BANS = BAN_TYPES;

export interface FourEyes {
  protectedTags: readonly string[];
  /** FOUR_EYES_PERMANENT_BANS: every moderator's permanent ban waits too. */
  permanentBans: boolean;
}

/** Whether a moderator's sanction of this type on this player waits for a second moderator. */
export async function sanctionNeedsApproval(
  db: Queryable,
  rule: FourEyes,
  type: SanctionType,
  playerRowId: string,
): Promise<boolean> {
  if (type === 'permanent_ban' && rule.permanentBans) return true;
  return BANS.includes(type) && (await protectedAmong(db, [playerRowId], rule.protectedTags)) > 0;
}

/**
 * A moderator places a sanction on a player (POST /v1/admin/players/{id}/sanctions): at once, or
 * when it must wait for a second moderator (a ban of a player carrying a protected tag, or with
 * FOUR_EYES_PERMANENT_BANS any permanent ban), as a wave of that one player awaiting approval
 * (docs/moderators.md "Four eyes"), which the Approvals screen lists and an admin who did not make it approves.
 */
export async function placeOrAwaitApproval(
  pool: Pool,
  by: { kind: 'moderator'; id: string },
  serviceId: string,
  body: unknown,
  policy: WavePolicy & FourEyes,
  now: Date,
  appealWindowDays?: number,
): Promise<
  | { placed: Awaited<ReturnType<typeof placeSanction>>; awaiting?: undefined }
  | { awaiting: WaveView; outbox: OutboxRow[]; placed?: undefined }
> {
  const v = check<SanctionInput>(sanctionSchema, body);
  // Its period checked as the caller gave it (startsAt, expiresAt), whichever way it goes.
  period(v, now);
  // Only a ban can wait: any other sanction (and a ban when no tag is protected and permanent bans do
  // not wait) is placed without reading the player first.
  const mayWait =
    (v.type === 'permanent_ban' && policy.permanentBans) ||
    (BANS.includes(v.type) && policy.protectedTags.length > 0);
  const player = mayWait ? await playersByServiceId(pool, [serviceId], null) : [];
  if (player[0] && (await sanctionNeedsApproval(pool, policy, v.type, player[0].id))) {
    const startsAt = v.startsAt ?? now;
    const durationSeconds =
      v.durationSeconds ??
      (v.expiresAt ? Math.round((v.expiresAt.getTime() - startsAt.getTime()) / 1000) : undefined);
    const { wave, outbox } = await createWave(
      pool,
      by,
      {
        name: `${v.type.replace('_', ' ')} of ${serviceId}`,
        runAt: startsAt.toISOString(),
        sanction: {
          type: v.type,
          scope: v.scope ?? 'global',
          reason: v.reason,
          ...(durationSeconds !== undefined ? { durationSeconds } : {}),
          ...(v.dsaCategory ? { dsaCategory: v.dsaCategory } : {}),
        },
        players: [serviceId],
      },
      { ...policy, approvalAbove: 0 },
      now,
    );
    return { awaiting: wave, outbox };
  }
  return { placed: await placeSanction(pool, by, serviceId, v, now, appealWindowDays) };
}

/** A wave the caller may see: any for a moderator, its own for a studio (404 otherwise). */
export async function getWave(pool: Pool, id: string, studioId: string | null = null): Promise<WaveView> {
  const w = isUuid(id) ? await findWave(pool, id, studioId) : undefined;
  if (!w) throw notFound(`Wave ${id}`);
  return presentWave(w);
}

export async function listWavesPage(pool: Pool, query: unknown, studioId: string | null = null) {
  const q = check<{ state?: WaveState; limit: number; cursor?: string }>(waveListSchema, query, 'query');
  const after = q.cursor ? decodeCursor(q.cursor) : undefined;
  if (q.cursor && !after) throw invalidCursor();
  const rows = await listWaves(pool, { state: q.state, studioId, limit: q.limit, after });
  return pageOf(rows, q.limit, presentWave, (last) => encodeCursor(last.cursor_ts, last.id));
}

/** A wave's members, each with where it stands: the result per player. */
export async function listWaveMembers(
  pool: Pool,
  id: string,
  query: unknown,
  studioId: string | null = null,
) {
  await getWave(pool, id, studioId);
  const q = check<{ state?: MemberState; limit: number; cursor?: string }>(memberListSchema, query, 'query');
  const after = oneKey(q.cursor, isUuid);
  const rows = await listMembers(pool, id, { state: q.state, limit: q.limit, afterPlayerId: after });
  return pageOf(
    rows,
    q.limit,
    (m) => ({
      serviceId: m.service_id,
      state: m.state,
      sanctionId: m.sanction_id,
      skipReason: m.skip_reason,
      doneAt: m.done_at?.toISOString() ?? null,
    }),
    (last) => encodeKeys([last.player_id]),
  );
}

/** The 409 of an event the wave's state does not allow. */
function notNow(event: 'approve' | 'cancel' | 'roll_back', state: WaveState): AppError {
  const now = `This one is ${state.replaceAll('_', ' ')}.`;
  if (event === 'approve')
    return new AppError(
      409,
      'wave_not_awaiting_approval',
      `Only a wave awaiting approval is approved. ${now}`,
    );
  if (event === 'cancel')
    return new AppError(
      409,
      'wave_not_cancellable',
      `Only a wave that has not started (awaiting approval or scheduled) is cancelled. ${now}`,
    );
  return new AppError(409, 'wave_not_done', `Only a wave that has run (done) is rolled back. ${now}`);
}

/**
 * Approves, cancels or rolls back a wave: a studio only its own; approving only an admin who did not
 * make it (403 own_wave); each audited. Answers the wave as it is now.
 */
export async function decideWave(
  pool: Pool,
  id: string,
  by: WaveActor & { role?: string },
  event: 'approve' | 'cancel' | 'roll_back',
  body: unknown,
  now: Date,
): Promise<{ wave: WaveView; outbox: OutboxRow[] }> {
  const note = event === 'approve' ? null : check<{ reason: string }>(waveNoteSchema, body).reason;
  return withTransaction(pool, async (client) => {
    const w = isUuid(id) ? await lockWave(client, id) : undefined;
    if (!w || (by.kind === 'studio' && w.created_by_studio !== by.id)) throw notFound(`Wave ${id}`);
    if (event === 'approve') {
      const verdict = approvalVerdict(w, by);
      if (verdict === 'not_an_admin') throw new AppError(403, 'forbidden', 'Only an admin approves a wave.');
      if (verdict === 'own_wave')
        throw new AppError(403, 'own_wave', 'A wave needs a second moderator: another admin approves it.');
    }
    if (!nextWaveState(w.state, event)) throw notNow(event, w.state);
    const { wave, outbox } = await recordTransition(client, w, event as WaveEvent, by, note, now);
    const action = { approve: 'approve_wave', cancel: 'cancel_wave', roll_back: 'roll_back_wave' } as const;
    await auditWave(client, by, action[event], wave, note);
    return { wave: presentWave((await findWave(client, wave.id))!), outbox };
  });
}

/**
 * The run-wave job: starts a scheduled wave at its time (early, it fails and BullMQ retries it), then
 * places the sanctions of its pending members in batches of `policy.batch`, one transaction a batch
 * (each member marked placed with its sanction there), or on a roll back revokes the sanctions of its
 * placed members the same way. Finished when no member is left; when members are left that another
 * runner holds, it fails so BullMQ runs it again later.
 */
export async function runWaveStep(
  pool: Pool,
  waveId: string,
  policy: WavePolicy,
  dispatch: (rows: OutboxRow[]) => void,
  clock: () => Date = () => new Date(),
): Promise<{ state: WaveState; placed: number; skipped: number; revoked: number }> {
  const done = { placed: 0, skipped: 0, revoked: 0 };
  const start = await withTransaction(pool, async (client) => {
    const w = await lockWave(client, waveId);
    if (!w) return undefined;
    if (w.state === 'scheduled') {
      if (w.run_at.getTime() > clock().getTime())
        throw new Error(`wave ${waveId} is not due until ${w.run_at.toISOString()}`);
      return (await recordTransition(client, w, 'start', null, null, clock())).wave;
    }
    return w;
  });
  if (!start || !['running', 'rolling_back'].includes(start.state))
    return { state: start?.state ?? 'cancelled', ...done };
  const revoking = start.state === 'rolling_back';
  for (;;) {
    const n = await withTransaction(pool, async (client) => {
      const now = clock();
      const members = await claimMembers(client, waveId, revoking ? 'placed' : 'pending', policy.batch);
      const outbox: OutboxRow[] = [];
      const results: Parameters<typeof recordMembers>[2] = [];
      for (const m of members) {
        if (revoking) {
          const s = m.sanction_id
            ? await findSanctionForUpdate(client, m.service_id, m.sanction_id, now)
            : undefined;
          if (s && !s.revokedAt)
            outbox.push(
              ...(await revokeInTransaction(
                client,
                byOf(start.rolled_back_by_moderator, start.rolled_back_by_studio) ?? actorOf(start),
                s,
                start.rollback_reason ?? 'Wave rolled back',
                now,
              )),
            );
          results.push({ playerId: m.player_id, state: 'revoked' });
          continue;
        }
        if (m.erased) {
          results.push({ playerId: m.player_id, state: 'skipped', skipReason: 'erased' });
          continue;
        }
        const placed = await applySanction(client, {
          actor: actorOf(start),
          player: { rowId: m.player_id, serviceId: m.service_id },
          sanction: {
            type: start.sanction_type,
            scope: start.scope_studio_id ?? 'global',
            reason: start.reason,
            durationSeconds: start.duration_seconds ?? undefined,
            dsaCategory: start.dsa_category ?? undefined,
          },
          caseId: null,
          now,
          waveId,
        });
        outbox.push(...placed.outbox);
        results.push({ playerId: m.player_id, state: 'placed', sanctionId: placed.sanction.id });
      }
      await recordMembers(client, waveId, results, now);
      return { results, outbox };
    });
    dispatch(n.outbox);
    for (const r of n.results) done[r.state]++;
    if (n.results.length < policy.batch) break;
  }
  const finished = await withTransaction(pool, async (client) => {
    const w = (await lockWave(client, waveId))!;
    if (w.state !== start.state) return w;
    if (await membersLeft(client, waveId, revoking ? 'placed' : 'pending')) return undefined;
    return (await recordTransition(client, w, 'finish', null, null, clock())).wave;
  });
  if (!finished) throw new Error(`wave ${waveId}: members held by another runner; running again to finish`);
  return { state: finished.state, ...done };
}
