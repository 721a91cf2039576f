import { lockPlayerRow } from '../data/repos/trust.js';
import Joi from 'joi';
import { claimVerdict, dropLease, grantLease, releaseVerdict, type Lease } from '../lifecycles/lease.js';
import { assign, escalateToSenior, moveToQueue, recordResolution } from '../lifecycles/review-case.js';
import { tellDecisions } from '../lifecycles/notifier-mail.js';
import { check, text } from '../validation.js';
import {
  isUniqueViolation,
  withTransaction,
  type Pool,
  type PoolClient,
  type Queryable,
} from '../data/db.js';
import {
  enabledModerator,
  findCase,
  findModeratorCredentials,
  insertAudit,
  insertModerator,
  MODERATOR_ROLES,
  OUTCOMES,
  setModeratorPassword,
  type CaseRecord,
  type Moderator,
  type ModeratorRole,
  type Outcome,
} from '../data/repos/moderation.js';
import { studiosOfPlayer, type EventType } from '../data/repos/webhooks.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import { moveOffenses } from '../lifecycles/offense.js';
import type { ReporterRecord } from '../data/repos/reporters.js';
import { setReporterMuted } from '../lifecycles/misuse.js';
import { clearSuspicionsOfOffenses } from '../lifecycles/signals.js';
import { isUuid } from '../domain/ids.js';
import { findQueue, seesQueue } from '../data/repos/review-queues.js';
import { ruleSanctionsOfCase, type SanctionRecord } from '../data/repos/sanctions.js';
import {
  addStrike,
  applySanction,
  revokeInTransaction,
  sanctionSchema,
  type SanctionInput,
  type StrikePolicy,
} from './sanctions.js';
import { AppError, notFound, validationError } from '../errors.js';
import { sanctionNeedsApproval, type FourEyes } from './waves.js';
import type { OutboxRow } from '../queues/outbox.js';
import { hashPassword } from '../security/secrets.js';
import { passwordSignIn, type SignInResult } from './lockout.js';
import { endConsoleSessionsOf } from '../data/repos/console-sessions.js';
import { markCaseOffensesReviewed } from '../lifecycles/offense.js';
import { countReporterDecisions } from '../data/repos/reporters.js';

export const USERNAME = /^[a-z0-9_.-]{3,64}$/;
export const NOTE_MAX = 2000;

/** Admin tool: a moderator account. Usernames are lower-case; passwords at least 12 characters. */
export async function createModerator(
  db: Queryable,
  input: { username: string; displayName: string; role: string; password: string },
): Promise<Moderator> {
  const v = check<{ username: string; displayName: string; role: ModeratorRole; password: string }>(
    Joi.object({
      username: Joi.string().trim().lowercase().pattern(USERNAME).required().messages({
        'string.pattern.base': 'must be 3 to 64 characters: a-z, 0-9, _ . -',
      }),
      displayName: Joi.string().trim().min(1).max(200).required(),
      role: Joi.string()
        .valid(...MODERATOR_ROLES)
        .required(),
      password: Joi.string().min(12).max(256).required(),
    }),
    input,
  );
  try {
    return await insertModerator(db, { ...v, passwordHash: await hashPassword(v.password) });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(409, 'username_taken', `The username ${v.username} is taken.`);
    throw err;
  }
}

/**
 * Admin tool: a new password for a moderator (at least 12 characters). Their console sessions end, so
 * whoever held the old password is signed out; bearer tokens already issued run out within
 * MODERATOR_TOKEN_TTL_SECONDS. 404 for an unknown username.
 */
export async function resetModeratorPassword(
  db: Queryable,
  input: { username: string; password: string },
): Promise<{ username: string; passwordReset: true; consoleSessionsEnded: number }> {
  const v = check<{ username: string; password: string }>(
    Joi.object({
      username: Joi.string().trim().lowercase().max(64).required(),
      password: Joi.string().min(12).max(256).required(),
    }),
    input,
  );
  const id = await setModeratorPassword(db, v.username, await hashPassword(v.password));
  if (!id) throw notFound(`Moderator ${v.username}`);
  const ended = await endConsoleSessionsOf(db, id);
  return { username: v.username, passwordReset: true, consoleSessionsEnded: ended };
}

/** Moderator password sign-in behind the same lockout as players'; a disabled account cannot sign in. */
export function moderatorSignIn(
  pool: Pool,
  input: { username: string; password: string; address: string; now: Date },
): Promise<SignInResult<Moderator>> {
  const username = input.username.trim().toLowerCase();
  return passwordSignIn(pool, { ...input, accountKey: `mod:${username}` }, async () => {
    const found = USERNAME.test(username) ? await findModeratorCredentials(pool, username) : undefined;
    return found && !found.moderator.disabled
      ? { account: found.moderator, passwordHash: found.passwordHash }
      : undefined;
  });
}

export interface Actor {
  id: string;
  username: string;
  role: ModeratorRole;
}

const conflict = (code: string, detail: string, c?: CaseRecord) =>
  new AppError(409, code, detail, {
    extensions: c?.claim
      ? { claimedBy: c.claim.username, claimExpiresAt: c.claim.expiresAt.toISOString() }
      : {},
  });

/**
 * A case in a queue only admins see is theirs alone: 403 for a moderator (to read, claim, resolve or
 * escalate it; an admin may still assign it to an admin).
 */
export function assertMayWork(actor: Actor, c: CaseRecord) {
  if (!seesQueue(actor.role, c.queue.visibleTo))
    throw new AppError(403, 'forbidden', `The case is in the ${c.queue.name} queue, which only admins work.`);
}

/** A case escalated to the senior role is the admins': 409 case_escalated for anyone else. */
function assertNotEscalatedAway(actor: Actor, c: CaseRecord) {
  if (c.escalation && actor.role !== 'admin')
    throw conflict('case_escalated', 'The case was escalated: an admin works it.', c);
}

/** Locks the case for this transaction; 404 when there is none, 409 when it is already resolved. */
async function lockOpenCase(client: PoolClient, caseId: string): Promise<CaseRecord> {
  const c = await findCase(client, caseId, true);
  if (!c) throw notFound(`Case ${caseId}`);
  if (c.status !== 'open')
    throw conflict('case_resolved', `The case was already resolved (${c.resolution?.outcome}).`);
  return c;
}

/**
 * Claims a case for `leaseSeconds` (claiming one's own claim again renews it). A live claim of
 * another moderator gets 409 case_claimed naming them; an expired one may be taken over.
 */
/** A case's live claim as a lease (common/lifecycles/lease.ts). */
const leaseOf = (c: CaseRecord): Lease | null =>
  c.claim && { holderId: c.claim.moderatorId, expiresAt: c.claim.expiresAt };

export async function claimCase(pool: Pool, actor: Actor, caseId: string, leaseSeconds: number) {
  return withTransaction(pool, async (client) => {
    const c = await lockOpenCase(client, caseId);
    assertMayWork(actor, c);
    assertNotEscalatedAway(actor, c);
    const claim = claimVerdict('case', leaseOf(c), actor);
    if (claim.verdict === 'refused')
      throw conflict('case_claimed', `The case is claimed by ${c.claim!.username}.`, c);
    const expiresAt = await grantLease(client, 'case', caseId, actor.id, leaseSeconds);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId,
      action: 'claim',
      outcome: null,
      note: null,
      trustScoreBefore: c.player.trustScore,
      trustScoreAfter: c.player.trustScore,
      details: { renewed: claim.verdict === 'renew', leaseExpiresAt: expiresAt.toISOString() },
    });
    return (await findCase(client, caseId))!;
  });
}

/** Gives a claim back. Only its holder may, or an admin (who thereby frees a case someone left). */
export async function releaseCase(pool: Pool, actor: Actor, caseId: string) {
  return withTransaction(pool, async (client) => {
    const c = await lockOpenCase(client, caseId);
    const release = releaseVerdict(leaseOf(c), actor);
    if (release.verdict === 'not_claimed') throw conflict('case_not_claimed', 'The case is not claimed.');
    if (release.verdict === 'refused')
      throw conflict('case_claimed', `The case is claimed by ${c.claim!.username}.`, c);
    await dropLease(client, 'case', caseId);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId,
      action: 'release',
      outcome: null,
      note: null,
      trustScoreBefore: c.player.trustScore,
      trustScoreAfter: c.player.trustScore,
      details: { releasedClaimOf: c.claim!.username },
    });
    return (await findCase(client, caseId))!;
  });
}

export const resolutionSchema = Joi.object({
  outcome: Joi.string()
    .valid(...OUTCOMES)
    .required(),
  note: text(NOTE_MAX).required(),
  // Upholding may place a sanction in the same transaction (see usecases/sanctions.ts).
  sanction: sanctionSchema
    .when('outcome', { not: 'upheld', then: Joi.forbidden() })
    .description('With upheld only: a sanction placed in the same transaction, with the caseId.'),
})
  // The document's reading of the rule above, which refers to another field (no converter reads it).
  .meta({
    'x-also': {
      if: { properties: { outcome: { not: { const: 'upheld' } } } },
      then: { not: { required: ['sanction'] } },
    },
  });

/**
 * Resolves a case the actor holds a live claim on, in one transaction: every offense of the case
 * gets reviewedByAdmin, resolved and resolvedAt; a dismissal gives the player back the points those
 * offenses actually deducted (the score never above 100); the case records the outcome, the note and
 * the points restored; the audit log records the score before and after; case.resolved (and
 * trust.changed when the score moved) are emitted. The case row lock makes two resolutions
 * serialise: the second sees the case resolved and gets 409.
 */
export async function resolveCase(
  pool: Pool,
  actor: Actor,
  caseId: string,
  input: unknown,
  now: Date = new Date(),
  /** Upholding adds a strike under this policy (none without one). */
  strikes?: StrikePolicy,
  /** A sanction that must wait for a second moderator is refused here (docs/moderators.md "Four eyes"). */
  fourEyes?: FourEyes,
  /** NOTICE_COMPLAINT_DAYS: until when a notifier told of a dismissal may contest it. */
  complaintDays = 183,
): Promise<{ case: CaseRecord; outbox: OutboxRow[] }> {
  const { outcome, note, sanction } = check<{ outcome: Outcome; note: string; sanction?: SanctionInput }>(
    resolutionSchema,
    input,
  );
  return withTransaction(pool, async (client) => {
    const c = await lockOpenCase(client, caseId);
    assertMayWork(actor, c);
    assertNotEscalatedAway(actor, c);
    if (c.claim && c.claim.moderatorId !== actor.id)
      throw conflict('case_claimed', `The case is claimed by ${c.claim.username}.`, c);
    if (!c.claim)
      throw conflict('case_not_claimed', 'Claim the case before resolving it (or renew an expired claim).');
    await lockPlayerRow(client, c.playerRowId);
    if (sanction && fourEyes && (await sanctionNeedsApproval(client, fourEyes, sanction.type, c.playerRowId)))
      throw new AppError(
        409,
        'approval_required',
        `A ${sanction.type.replace('_', ' ')} of this player waits for a second moderator: resolve the case without it and place it on the player, where it waits for an admin's approval.`,
      );
    const effects = await applyOutcome(client, c, outcome, now);
    // A dismissed evasion case clears its suspicions (docs/linked-accounts.md "Evasion at the door"):
    // the moderator found no evasion, and a cleared suspicion stays cleared.
    const evasionCleared =
      outcome === 'dismissed'
        ? await clearSuspicionsOfOffenses(
            client,
            effects.offenses.map((o) => o.id),
            actor.id,
            `Dismissed with its review case: ${note}`.slice(0, 2000),
            now,
          )
        : [];
    await recordResolution(client, c, {
      outcome,
      note,
      by: actor.id,
      pointsRestored: effects.pointsRestored,
    });
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId,
      action: 'resolve',
      outcome,
      note,
      trustScoreBefore: effects.before,
      trustScoreAfter: effects.after,
      details: {
        offenseIds: effects.offenses.map((o) => o.id).sort(),
        pointsDeducted: effects.deducted,
        pointsRestored: effects.pointsRestored,
        heldPointsApplied: effects.heldApplied,
        heldPointsDropped: effects.heldDropped,
        ...(evasionCleared.length ? { evasionSuspicionsCleared: evasionCleared.sort() } : {}),
      },
    });
    const resolved = (await findCase(client, caseId))!;
    const outbox: OutboxRow[] = [];
    const placed: SanctionRecord[] = [];
    if (outcome === 'upheld' && strikes) {
      const struck = await addStrike(client, {
        moderatorId: actor.id,
        player: { rowId: c.playerRowId, serviceId: c.player.serviceId },
        caseId,
        now,
        policy: strikes,
      });
      placed.push(...struck.sanctions);
      outbox.push(...struck.outbox);
    }
    if (outcome === 'dismissed')
      // A rule's sanction rests on the reports a moderator has now dismissed: it goes with them.
      for (const s of await ruleSanctionsOfCase(client, caseId, now))
        outbox.push(
          ...(await revokeInTransaction(
            client,
            { kind: 'moderator', id: actor.id },
            s,
            'A moderator reviewed the reports the automated rule acted on and dismissed them.',
            now,
          )),
        );
    if (sanction) {
      const given = await applySanction(client, {
        actor: { kind: 'moderator', id: actor.id },
        player: { rowId: c.playerRowId, serviceId: c.player.serviceId },
        sanction,
        caseId,
        now,
        appealWindowDays: strikes?.appealWindowDays,
      });
      placed.push(given.sanction);
      outbox.push(...given.outbox);
    }
    outbox.push(...(await emitResolutionEvents(client, resolved, effects, placed)));
    // The notifiers of the case's notices are told the decision (Art. 16(5)), by e-mail when they gave one.
    outbox.push(
      ...(await tellDecisions(
        client,
        effects.offenses.map((o) => o.id),
        { complaintDays, now },
      )),
    );
    return { case: resolved, outbox };
  });
}

interface OutcomeEffects {
  offenses: {
    id: string;
    studio_id: string;
    reporter_id: string | null;
    match_id: string | null;
    not_the_studios: boolean;
  }[];
  before: number;
  after: number;
  /** Points the case's offenses had taken off the score. */
  deducted: number;
  /** Given back by a dismissal. */
  pointsRestored: number;
  /** Held points applied by upholding, and dropped by dismissing. */
  heldApplied: number;
  heldDropped: number;
  reason: 'dismissal' | 'held_released' | null;
}

/**
 * What an outcome does to the player and the reporters, in the caller's transaction (which holds the
 * case's and the player's row locks): every offense of the case is marked reviewed and resolved, then
 * moved by the offense life cycle (common/lifecycles/offense.ts): upholding takes the held points, in
 * the order the reports came, each floored at 0 (`held_released`); dismissing gives back the points
 * the offenses took and that no granted appeal gave back already (never above 100, `dismissal`) and
 * drops the held ones. Each offense's reporter (per studio) gets the outcome counted for its
 * credibility.
 */
async function applyOutcome(
  client: PoolClient,
  c: CaseRecord,
  outcome: Outcome,
  now: Date,
): Promise<OutcomeEffects> {
  const offenses = await markCaseOffensesReviewed(client, c.id);
  const moved = await moveOffenses(client, {
    playerRowId: c.playerRowId,
    offenseIds: offenses.map((o) => o.id),
    event: outcome === 'upheld' ? 'uphold' : 'dismiss',
    caseId: c.id,
    now,
  });
  const effects: OutcomeEffects = {
    offenses,
    before: moved.before,
    after: moved.after,
    deducted: offenses.reduce((sum, o) => sum + o.penalty_points, 0),
    pointsRestored: moved.points > 0 ? moved.points : 0,
    heldApplied: moved.points < 0 ? -moved.points : 0,
    heldDropped: moved.moves.reduce((sum, m) => sum + m.heldDropped, 0),
    reason: moved.reason === 'dismissal' || moved.reason === 'held_released' ? moved.reason : null,
  };
  await countReporterOutcomes(client, offenses, outcome);
  return effects;
}

/** Each named reporter's upheld or dismissed count goes up by its reports in the case. */
async function countReporterOutcomes(
  client: PoolClient,
  offenses: { studio_id: string; reporter_id: string | null }[],
  outcome: Outcome,
): Promise<void> {
  const counts = new Map<string, { studio: string; reporter: string; n: number }>();
  for (const o of offenses) {
    if (o.reporter_id === null) continue;
    const key = `${o.studio_id}\n${o.reporter_id}`;
    const entry = counts.get(key) ?? { studio: o.studio_id, reporter: o.reporter_id, n: 0 };
    entry.n++;
    counts.set(key, entry);
  }
  if (counts.size === 0) return;
  const list = [...counts.values()].sort((a, b) =>
    a.studio === b.studio ? (a.reporter < b.reporter ? -1 : 1) : a.studio < b.studio ? -1 : 1,
  );
  const column = outcome === 'upheld' ? 'upheld' : 'dismissed';
  await countReporterDecisions(client, column, list);
}

/**
 * case.resolved to each studio that filed an offense in the case (with its own offenses' ids; the
 * moderator's note stays internal); trust.changed to those and to every studio the player is linked
 * to, when the score moved.
 */
async function emitResolutionEvents(
  client: PoolClient,
  c: CaseRecord,
  effects: OutcomeEffects,
  sanctions: SanctionRecord[],
): Promise<OutboxRow[]> {
  const { before, after } = effects;
  // What the studios filed: a notice's offense, and the sign-in check's on a suspected evasion, carry
  // a studio, but the studio filed nothing (issue 49); a notifier hears of it on its status page.
  const offenses = effects.offenses.filter((o) => !o.not_the_studios);
  const playerId = c.player.serviceId;
  const filers = new Map<string, string[]>();
  for (const o of offenses) filers.set(o.studio_id, [...(filers.get(o.studio_id) ?? []), o.id]);
  const resolvedAt = c.resolution!.resolvedAt.toISOString();
  const events: { type: EventType; dataByStudio: Map<string, unknown> }[] = [
    {
      type: 'case.resolved',
      dataByStudio: new Map(
        [...filers].map(([studio, offenseIds]) => [
          studio,
          {
            caseId: c.id,
            playerId,
            type: c.type,
            outcome: c.resolution!.outcome,
            resolvedAt,
            pointsRestored: effects.pointsRestored,
            heldPointsApplied: effects.heldApplied,
            trustScore: after,
            offenseIds,
          },
        ]),
      ),
    },
  ];
  // Reporter feedback: each filing studio hears what became of its reports, so the game can tell the
  // reporting player "action was taken" (nothing about other studios' reports).
  const reportsByStudio = new Map<
    string,
    { offenseId: string; reporterId: string | null; matchId: string | null }[]
  >();
  for (const o of offenses)
    reportsByStudio.set(o.studio_id, [
      ...(reportsByStudio.get(o.studio_id) ?? []),
      { offenseId: o.id, reporterId: o.reporter_id, matchId: o.match_id },
    ]);
  if (reportsByStudio.size)
    events.push({
      type: 'report.outcome',
      dataByStudio: new Map(
        [...reportsByStudio].map(([studio, reports]) => [
          studio,
          {
            caseId: c.id,
            playerId,
            outcome: c.resolution!.outcome,
            sanctionTypes: sanctions.map((s) => s.type),
            reports,
          },
        ]),
      ),
    });
  if (after !== before) {
    const change = {
      playerId,
      trustScoreBefore: before,
      trustScoreAfter: after,
      reason: effects.reason,
      caseId: c.id,
    };
    const audience = new Set([...filers.keys(), ...(await studiosOfPlayer(client, playerId))]);
    events.push({ type: 'trust.changed', dataByStudio: new Map([...audience].map((s) => [s, change])) });
  }
  return emitEvents(client, events);
}

export const muteSchema = Joi.object({ note: text(NOTE_MAX).required() });

/**
 * Mutes (or unmutes) one studio's reporter: a muted reporter's reports are stored but never take
 * points and open no case. Audited; 404 for an unknown studio.
 */
export async function setReporterMute(
  pool: Pool,
  actor: Actor,
  input: { studioId: string; reporterId: string; muted: boolean; body: unknown },
): Promise<ReporterRecord> {
  const { note } = check<{ note: string }>(muteSchema, input.body);
  return withTransaction(pool, async (client) => {
    const reporter = isUuid(input.studioId)
      ? await setReporterMuted(client, { ...input, moderatorId: actor.id, note })
      : undefined;
    if (!reporter) throw notFound(`Studio ${input.studioId}`);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId: null,
      action: input.muted ? 'mute_reporter' : 'unmute_reporter',
      outcome: null,
      note,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { studioId: input.studioId, reporterId: input.reporterId },
    });
    return reporter;
  });
}

export const escalationSchema = Joi.object({
  note: text(NOTE_MAX).required().description('Why it needs the senior role or the other queue (audited).'),
  queue: Joi.string()
    .max(40)
    .description(
      'The review queue to move it to (its key); left out, the case goes to the senior role (admins) in its own queue.',
    ),
});
export const assignmentSchema = Joi.object({
  username: Joi.string()
    .trim()
    .lowercase()
    .max(64)
    .allow(null)
    .required()
    .description("The moderator's username; null takes the assignment back."),
});

/**
 * Escalates an open case, with a note: to another review queue (`queue`: it is moved there and stays,
 * whatever the routing rules say) or, without one, to the senior role (admins: from then only they
 * see it in the queue and may claim it). Either way its claim and assignment go. Audited (escalate).
 */
export async function escalateCase(pool: Pool, actor: Actor, caseId: string, input: unknown) {
  const { note, queue } = check<{ note: string; queue?: string }>(escalationSchema, input);
  return withTransaction(pool, async (client) => {
    const c = await lockOpenCase(client, caseId);
    assertMayWork(actor, c);
    if (queue === undefined) {
      if (c.escalation) throw conflict('case_escalated', 'The case is already escalated.', c);
      await escalateToSenior(client, caseId, note);
    } else {
      assertNotEscalatedAway(actor, c);
      const target = await findQueue(client, queue);
      if (!target) throw validationError([{ field: 'queue', message: 'is no queue in use' }]);
      if (target.key === c.queue.key)
        throw validationError([{ field: 'queue', message: `the case is in ${target.name} already` }]);
      await moveToQueue(client, caseId, target.key);
    }
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId,
      action: 'escalate',
      outcome: null,
      note,
      trustScoreBefore: c.player.trustScore,
      trustScoreAfter: c.player.trustScore,
      details: queue === undefined ? { to: 'senior' } : { to: 'queue', from: c.queue.key, queue },
    });
    return (await findCase(client, caseId))!;
  });
}

/** Assigns an open case to a moderator, or takes the assignment back (admins). Audited (assign). */
export async function assignCase(pool: Pool, actor: Actor, caseId: string, input: unknown) {
  const { username } = check<{ username: string | null }>(assignmentSchema, input);
  return withTransaction(pool, async (client) => {
    const c = await lockOpenCase(client, caseId);
    let assignee: { id: string; role: ModeratorRole } | undefined;
    if (username !== null) {
      assignee = await enabledModerator(client, username);
      if (!assignee) throw validationError([{ field: 'username', message: 'is no enabled moderator' }]);
      if (c.escalation && assignee.role !== 'admin')
        throw conflict('case_escalated', 'An escalated case goes to an admin only.', c);
      if (!seesQueue(assignee.role, c.queue.visibleTo))
        throw validationError([
          { field: 'username', message: `is no admin, and only admins work the ${c.queue.name} queue` },
        ]);
    }
    await assign(client, caseId, assignee?.id ?? null);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId,
      action: 'assign',
      outcome: null,
      note: null,
      trustScoreBefore: c.player.trustScore,
      trustScoreAfter: c.player.trustScore,
      details: { assignedTo: username },
    });
    return (await findCase(client, caseId))!;
  });
}
