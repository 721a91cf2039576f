import { lockPlayerRow } from '../data/repos/trust.js';
import Joi from 'joi';
import { claimVerdict, dropLease, grantLease, releaseVerdict, type Lease } from '../lifecycles/lease.js';
import { recordAppealDecision, recordFiling } from '../lifecycles/appeal.js';
import { removeStrikeOfCase } from '../lifecycles/sanction.js';
import { senderOfKey, withdrawMark, type MisusePolicy } from '../lifecycles/misuse.js';
import { reopenForNotice } from '../lifecycles/review-case.js';
import { recordMail, tellDecisions } from '../lifecycles/notifier-mail.js';
import { gameTitleOfNotice } from '../data/repos/notices.js';
import { applyMark } from './misuse.js';
import { isUniqueViolation, withTransaction, type Pool, type PoolClient } from '../data/db.js';
import {
  APPEAL_REASONS,
  findAppeal,
  type AppealReason,
  type AppealRecord,
  type KeptSanction,
} from '../data/repos/appeals.js';
import { insertAudit } from '../data/repos/moderation.js';
import { sanctionsOfDecision, sanctionsPlacedBetween } from '../data/repos/sanctions.js';
import { findCaseOffenses, offensesFiledBetween } from '../data/repos/offenses.js';
import { revokeEverySession } from '../data/repos/oauth.js';
import { forgetSignals } from '../lifecycles/signals.js';
import { isAppealable, moveOffenses, reopenDropped, type OffenseStatus } from '../lifecycles/offense.js';
import { studiosOfPlayer } from '../data/repos/webhooks.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import { AppError, notFound, validationError } from '../errors.js';
import type { OutboxRow } from '../queues/outbox.js';
import { check, text } from '../validation.js';
import { presentAppeal } from '../views.js';
import type { Actor } from './moderation.js';
import { lockPlayer, revokeInTransaction } from './sanctions.js';
import {
  grantedAppealOf,
  lockOffenseOfPlayer,
  lockSanctionOfPlayer,
  noticeOfPlayer,
  openAppealOf,
} from '../data/repos/appeals.js';
import { trustScoreOf } from '../data/repos/trust.js';

export const appealFileSchema = Joi.object({
  sanctionId: Joi.string().guid(),
  offenseId: Joi.string().guid(),
  reason: Joi.string()
    .valid(...APPEAL_REASONS)
    .required(),
  statement: text(2000).required(),
})
  .xor('sanctionId', 'offenseId')
  .description('Exactly one of sanctionId and offenseId.');

export const appealDecisionSchema = Joi.object({
  decision: Joi.string().valid('granted', 'denied').required(),
  note: text(2000).required(),
  // A granted appeal undoes the whole decision it contests; the moderator may keep some of what that
  // decision placed, each with the ground the player reads (GET /v1/admin/appeals/{id}: ifGranted).
  keep: Joi.array()
    .items(Joi.object({ sanctionId: Joi.string().guid().required(), reason: text(2000).required() }))
    .max(50)
    .when('decision', { not: 'granted', then: Joi.forbidden() })
    .description(
      'With granted only: sanctions of the contested decision that stay in force, each with the reason the player reads. Every other sanction of that decision is revoked.',
    ),
  compromisedWindow: Joi.object({
    from: Joi.date().iso().required(),
    to: Joi.date().iso().required(),
  })
    .when('decision', { not: 'granted', then: Joi.forbidden() })
    .description(
      "With granted, on an appeal whose reason is compromised_account only: when someone else had the account. Every decision taken in it is undone too (its sanctions revoked, its points given back, no strike left) and the signals first seen in it leave the player's links (they were the thief's). Granting such an appeal ends every token and session of the player, with a window or without.",
    ),
  unfounded: Joi.boolean()
    .when('decision', { not: 'denied', then: Joi.forbidden() })
    .description(
      'With denied, on a notifier\'s complaint only: the complaint was manifestly unfounded (DSA Art. 23), a mark against its sender (docs/moderators.md "Notices").',
    ),
})
  // The document's reading of the rules above, which refer to another field (no converter reads them).
  .meta({
    'x-also': {
      allOf: [
        {
          if: { properties: { decision: { not: { const: 'granted' } } } },
          then: { not: { required: ['keep'] } },
        },
        {
          if: { properties: { decision: { not: { const: 'denied' } } } },
          then: { not: { required: ['unfounded'] } },
        },
        {
          if: { properties: { decision: { not: { const: 'granted' } } } },
          then: { not: { required: ['compromisedWindow'] } },
        },
      ],
    },
  });

const conflict = (code: string, detail: string, extensions: Record<string, unknown> = {}) =>
  new AppError(409, code, detail, { extensions });

/** What an appeal is about, locked, with who decided it (for the self-review rule). */
interface Subject {
  kind: 'sanction' | 'offense' | 'notice';
  id: string;
  /** When the decision was made: the window runs from here. */
  decidedAt: Date;
  /** The moderator whose decision it was (placed the sanction, or resolved its case). */
  deciderId: string | null;
  caseId: string | null;
  /** Studios concerned besides the player's: the offense's filer, the sanction's studio. */
  studios: string[];
  revoked: boolean;
  /** An offense's status (its life cycle decides whether an appeal can still change anything). */
  offenseStatus: OffenseStatus | null;
  /** A notice: the offense it was filed as, its held points, its sender, whether a trusted flagger's. */
  notice?: { offenseId: string; held: number; senderKey: string; flagged: boolean };
}

async function lockSubject(
  client: PoolClient,
  playerRowId: string,
  input: { sanctionId?: string; offenseId?: string; noticeId?: string },
  viewerStudioId: string | null,
): Promise<Subject | undefined> {
  if (input.noticeId) {
    // A notifier's complaint: the subject is the offense the notice was filed as, locked as any.
    const n = await noticeOfPlayer(client, input.noticeId, playerRowId);
    const offense =
      n && (await lockSubject(client, playerRowId, { offenseId: n.offense_id }, viewerStudioId));
    return (
      offense && {
        ...offense,
        kind: 'notice',
        id: input.noticeId,
        notice: {
          offenseId: n.offense_id,
          held: n.penalty_held,
          senderKey: n.sender_key,
          flagged: n.source === 'trusted_flagger',
        },
      }
    );
  }
  if (input.sanctionId) {
    const s = await lockSanctionOfPlayer(client, input.sanctionId, playerRowId);
    if (!s || (viewerStudioId && s.scope_studio_id && s.scope_studio_id !== viewerStudioId)) return undefined;
    return {
      kind: 'sanction',
      id: s.id,
      decidedAt: s.created_at,
      deciderId: s.issued_by_moderator ?? s.resolved_by,
      caseId: s.case_id,
      studios: [s.scope_studio_id, s.issued_by_studio].filter((x): x is string => x !== null),
      revoked: s.revoked,
      offenseStatus: null,
    };
  }
  const o = await lockOffenseOfPlayer(client, input.offenseId!, playerRowId);
  if (!o) return undefined;
  return {
    kind: 'offense',
    id: o.id,
    decidedAt: o.resolved_at ?? o.created_at,
    deciderId: o.resolved_by,
    caseId: o.case_id,
    studios: [o.studio_id],
    revoked: false,
    offenseStatus: o.status,
  };
}

async function emitAppealEvent(
  client: PoolClient,
  type: 'appeal.filed' | 'appeal.decided',
  appeal: AppealRecord,
  studios: string[],
): Promise<OutboxRow[]> {
  const audience = new Set([
    ...studios,
    ...(await studiosOfPlayer(client, appeal.serviceId)),
    ...(appeal.filedBy.kind === 'studio' ? [appeal.filedBy.id] : []),
  ]);
  if (audience.size === 0) return [];
  const data = { playerId: appeal.serviceId, appeal: presentAppeal(appeal) };
  return emitEvents(client, [{ type, dataByStudio: new Map([...audience].map((s) => [s, data])) }]);
}

/**
 * Files an appeal of a sanction or an offense: by the player (OAuth) or by a studio for a player of
 * its games. One open appeal per subject (409 appeal_open naming it); only within `windowDays` of the
 * decision (409 appeal_window_closed); not for a revoked sanction or a subject already granted (409
 * not_appealable). `appeal.filed` goes to the studios concerned.
 */
export async function fileAppeal(
  pool: Pool,
  input: {
    serviceId: string;
    filedBy: { kind: 'player' } | { kind: 'studio'; id: string };
    body: unknown;
    now: Date;
    windowDays: number;
  },
): Promise<{ appeal: AppealRecord; outbox: OutboxRow[] }> {
  const v = check<{ sanctionId?: string; offenseId?: string; reason: AppealReason; statement: string }>(
    appealFileSchema,
    input.body,
  );
  return withTransaction(pool, async (client) => {
    const studio = input.filedBy.kind === 'studio' ? input.filedBy.id : null;
    const player = await lockPlayer(client, input.serviceId, studio);
    const subject = await lockSubject(client, player.rowId, v, studio);
    if (!subject) throw notFound(`${v.sanctionId ? 'Sanction' : 'Offense'} ${v.sanctionId ?? v.offenseId}`);
    if (subject.revoked || (await grantedAppealOf(client, subject.id)))
      throw conflict(
        'not_appealable',
        'This was already revoked or granted on appeal: there is nothing to appeal.',
      );
    if (subject.offenseStatus && !isAppealable(subject.offenseStatus))
      throw conflict(
        'not_appealable',
        subject.offenseStatus === 'recorded'
          ? 'This offense took no points: there is nothing to appeal.'
          : `This offense's points were already ${subject.offenseStatus === 'dropped' ? 'dropped' : 'given back'}: there is nothing to appeal.`,
        { offenseStatus: subject.offenseStatus },
      );
    if (input.now.getTime() > subject.decidedAt.getTime() + input.windowDays * 86_400_000)
      throw conflict(
        'appeal_window_closed',
        `Appeals are taken within ${input.windowDays} days of the decision; this one was made on ${subject.decidedAt.toISOString()}.`,
      );
    let id: string;
    try {
      id = await recordFiling(client, {
        playerRowId: player.rowId,
        sanctionId: v.sanctionId ?? null,
        offenseId: v.offenseId ?? null,
        reason: v.reason,
        statement: v.statement,
        filedByStudio: studio,
        at: input.now,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw conflict('appeal_open', 'An appeal of this is already open.', {
        openAppealId: await openAppealOf(pool, subject.id),
      });
    }
    const appeal = (await findAppeal(client, id))!;
    return { appeal, outbox: await emitAppealEvent(client, 'appeal.filed', appeal, subject.studios) };
  });
}

async function lockOpenAppeal(client: PoolClient, id: string): Promise<AppealRecord> {
  const appeal = await findAppeal(client, id, true);
  if (!appeal) throw notFound(`Appeal ${id}`);
  if (appeal.status !== 'open') throw conflict('appeal_decided', `The appeal was already ${appeal.status}.`);
  return appeal;
}

/** The appeal's subject, locked, for the rules that depend on who decided it. */
async function lockSubjectOf(client: PoolClient, appeal: AppealRecord): Promise<Subject> {
  return (await lockSubject(
    client,
    appeal.playerRowId,
    appeal.subject.kind === 'sanction'
      ? { sanctionId: appeal.subject.id }
      : appeal.subject.kind === 'notice'
        ? { noticeId: appeal.subject.id }
        : { offenseId: appeal.subject.id },
    null,
  ))!;
}

/** An appeal's live claim as a lease (common/lifecycles/lease.ts). */
const leaseOfAppeal = (a: AppealRecord): Lease | null =>
  a.claim && { holderId: a.claim.moderatorId, expiresAt: a.claim.expiresAt };

/**
 * 403 own_decision when the actor took the decision contested. An admin may decide a player's appeal
 * against their own decision; a notifier's complaint (DSA Art. 20) goes to someone else, admins
 * included, as the notifier's page promises.
 */
function refuseOwnDecision(subject: Subject, actor: Actor): void {
  if (subject.deciderId !== actor.id) return;
  if (subject.kind === 'notice')
    throw new AppError(
      403,
      'own_decision',
      'This complaint is about your own decision: another moderator must decide it.',
    );
  if (actor.role !== 'admin')
    throw new AppError(
      403,
      'own_decision',
      'This appeal is against your own decision: another moderator (or an admin) must decide it.',
    );
}

/**
 * Claims an appeal for `leaseSeconds`, like a case (again: renews). A moderator may not claim an
 * appeal against their own decision (403 own_decision, so it never sits claimed by someone who cannot
 * decide it); an admin may, except for a notifier's complaint. A live claim of another moderator: 409 appeal_claimed, except for an
 * admin, who takes it over (audited with the previous holder).
 */
export async function claimAppeal(pool: Pool, actor: Actor, id: string, leaseSeconds: number) {
  return withTransaction(pool, async (client) => {
    const appeal = await lockOpenAppeal(client, id);
    const claim = claimVerdict('appeal', leaseOfAppeal(appeal), actor);
    if (claim.verdict === 'refused')
      throw conflict('appeal_claimed', 'Another moderator holds a claim on this appeal.', {
        claimExpiresAt: claim.holder.expiresAt.toISOString(),
      });
    const subject = await lockSubjectOf(client, appeal);
    refuseOwnDecision(subject, actor);
    await grantLease(client, 'appeal', id, actor.id, leaseSeconds);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId: null,
      action: 'claim_appeal',
      outcome: null,
      note: null,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: {
        appealId: id,
        ...(claim.verdict === 'take_over' ? { takenOverFrom: claim.from.holderId } : {}),
      },
    });
    return (await findAppeal(client, id))!;
  });
}

/**
 * Gives a claim up: its holder, or an admin for anyone's (a live claim left by a moderator who is
 * away). 409 appeal_not_claimed when there is none, appeal_claimed for another's claim.
 */
export async function releaseAppeal(pool: Pool, actor: Actor, id: string) {
  return withTransaction(pool, async (client) => {
    const appeal = await lockOpenAppeal(client, id);
    const release = releaseVerdict(leaseOfAppeal(appeal), actor);
    if (release.verdict === 'not_claimed') throw conflict('appeal_not_claimed', 'The appeal is not claimed.');
    if (release.verdict === 'refused')
      throw conflict('appeal_claimed', 'Another moderator holds a claim on this appeal.', {
        claimExpiresAt: release.holder.expiresAt.toISOString(),
      });
    await dropLease(client, 'appeal', id);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId: null,
      action: 'release_appeal',
      outcome: null,
      note: null,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { appealId: id, releasedClaimOf: release.of.holderId },
    });
    return (await findAppeal(client, id))!;
  });
}

/**
 * Decides an appeal the actor holds a live claim on, in one transaction. Granted undoes the whole
 * decision contested: an offense's points are given back (never above 100; trust history `appeal`),
 * the strike of the case behind it is removed, and the appealed sanction and every sanction the
 * case's uphold placed are revoked, except those the moderator `keep`s with a ground for the
 * player. A moderator may not decide an appeal against their own decision (403 own_decision); an
 * admin may. Audited; `appeal.decided` goes to the studios concerned.
 */
export async function decideAppeal(
  pool: Pool,
  actor: Actor,
  id: string,
  body: unknown,
  now: Date,
  options: DecideOptions,
): Promise<{ appeal: AppealRecord; outbox: OutboxRow[] }> {
  const {
    decision,
    note,
    keep = [],
    unfounded = false,
    compromisedWindow: window,
  } = check<{
    decision: 'granted' | 'denied';
    note: string;
    keep?: KeptSanction[];
    unfounded?: boolean;
    compromisedWindow?: { from: Date; to: Date };
  }>(appealDecisionSchema, body);
  if (window) {
    const faults = [
      ...(window.from >= window.to ? [{ field: 'compromisedWindow.to', message: 'must be after from' }] : []),
      ...(window.to.getTime() > now.getTime() + 60_000
        ? [{ field: 'compromisedWindow.to', message: 'must not be in the future' }]
        : []),
      ...(window.to.getTime() - window.from.getTime() > 365 * 86_400_000
        ? [{ field: 'compromisedWindow', message: 'must span at most 365 days' }]
        : []),
    ];
    if (faults.length) throw validationError(faults);
  }
  return withTransaction(pool, async (client) => {
    const appeal = await lockOpenAppeal(client, id);
    if (!appeal.claim) throw conflict('appeal_not_claimed', 'Claim the appeal before deciding it.');
    if (appeal.claim.moderatorId !== actor.id)
      throw conflict('appeal_claimed', 'Another moderator holds a claim on this appeal.');
    await lockPlayerRow(client, appeal.playerRowId);
    const subject = await lockSubjectOf(client, appeal);
    refuseOwnDecision(subject, actor);
    if (subject.kind === 'notice') {
      if (keep.length)
        throw validationError([
          { field: 'keep', message: "a notifier's complaint has no sanctions to keep" },
        ]);
      return decideComplaint(client, actor, appeal, subject, { decision, note, unfounded }, now, options);
    }
    if (unfounded)
      throw validationError([
        { field: 'unfounded', message: "only a notifier's complaint can be marked manifestly unfounded" },
      ]);
    if (window && appeal.reason !== 'compromised_account')
      throw validationError([
        {
          field: 'compromisedWindow',
          message: 'only an appeal whose reason is compromised_account names a window',
        },
      ]);
    // A stolen account given back: the decisions taken while someone else had it go too.
    const stolen = decision === 'granted' && appeal.reason === 'compromised_account';
    const windowOffenses =
      stolen && window ? await offensesFiledBetween(client, appeal.playerRowId, window) : [];
    let tokensRevoked = 0;
    let signalsForgotten = 0;
    const outbox: OutboxRow[] = [];
    let refunded = 0;
    let scores: { before: number; after: number } | undefined;
    const revoked: string[] = [];
    if (decision === 'granted') {
      // The whole decision goes, bar what the moderator keeps: the appealed sanction, or for an
      // offense the points, and every sanction its case's uphold placed (with it, or by the ladder).
      const ofDecision = await sanctionsOfDecision(
        client,
        {
          playerRowId: appeal.playerRowId,
          caseId: subject.caseId,
          ...(subject.kind === 'sanction' ? { sanctionId: subject.id } : {}),
        },
        now,
        true,
      );
      const inWindow =
        stolen && window ? await sanctionsPlacedBetween(client, appeal.playerRowId, window, now) : [];
      const placed = [...ofDecision, ...inWindow.filter((w) => !ofDecision.some((d) => d.id === w.id))];
      // Checked here, not in the schema: JSON Schema's uniqueItems compares whole items, and a
      // sanction named twice with two reasons is as much a fault as one named twice alike.
      const fault = (k: KeptSanction, i: number) =>
        k.sanctionId === subject.id
          ? 'is the sanction appealed: granting the appeal revokes it'
          : keep.findIndex((other) => other.sanctionId === k.sanctionId) < i
            ? 'names a sanction already kept above'
            : placed.some((p) => p.id === k.sanctionId)
              ? null
              : 'is not a sanction in force of the decision appealed';
      const faults = keep.flatMap((k, i) => {
        const message = fault(k, i);
        return message ? [{ field: `keep.${i}.sanctionId`, message }] : [];
      });
      if (faults.length) throw validationError(faults);
      for (const sanction of placed) {
        if (keep.some((k) => k.sanctionId === sanction.id)) continue;
        outbox.push(
          ...(await revokeInTransaction(
            client,
            { kind: 'moderator', id: actor.id },
            sanction,
            `Appeal granted: ${note}`,
            now,
          )),
        );
        revoked.push(sanction.id);
      }
      // The points of the decision: the appealed offense's, or for a sanction that came with an
      // upheld case, its case's offenses' (the same decision: docs/moderators.md "Appeals").
      const ofCase =
        subject.kind === 'sanction' && subject.caseId ? await findCaseOffenses(client, subject.caseId) : [];
      const offenseIds = [
        ...new Set([
          ...(subject.kind === 'offense' ? [subject.id] : ofCase.map((o) => o.id)),
          ...windowOffenses.map((o) => o.id),
        ]),
      ];
      if (offenseIds.length) {
        // Through the life cycle: points a dismissal already gave back are not given again.
        const moved = await moveOffenses(client, {
          playerRowId: appeal.playerRowId,
          offenseIds,
          event: 'appeal',
          caseId: subject.caseId,
          now,
        });
        refunded = moved.points;
        scores = { before: moved.before, after: moved.after };
        // A notice acted on and now reversed: its notifier is told (Art. 16(5)).
        outbox.push(
          ...(await tellDecisions(client, offenseIds, { complaintDays: options.complaintDays, now })),
        );
        if (refunded > 0) {
          const change = {
            playerId: appeal.serviceId,
            trustScoreBefore: moved.before,
            trustScoreAfter: moved.after,
            reason: 'appeal',
            ...(subject.kind === 'offense' ? { offenseId: subject.id } : { caseId: subject.caseId }),
          };
          const audience = new Set([
            ...subject.studios,
            ...ofCase.map((o) => o.studioId),
            ...(await studiosOfPlayer(client, appeal.serviceId)),
          ]);
          outbox.push(
            ...(await emitEvents(client, [
              { type: 'trust.changed', dataByStudio: new Map([...audience].map((st) => [st, change])) },
            ])),
          );
        }
      }
      // No strike stays: the contested decision's, and (a stolen account) every case decided in the window.
      const struck = new Set([
        subject.caseId,
        ...windowOffenses.map((o) => o.caseId),
        ...placed.filter((p) => !keep.some((k) => k.sanctionId === p.id)).map((p) => p.caseId),
      ]);
      for (const caseId of struck) if (caseId) await removeStrikeOfCase(client, caseId, now);
      if (stolen) {
        tokensRevoked = await revokeEverySession(client, appeal.playerRowId, now);
        if (window) signalsForgotten = await forgetSignals(client, appeal.playerRowId, window);
      }
    }
    await recordAppealDecision(client, appeal, {
      event: decision === 'granted' ? 'grant' : 'deny',
      by: actor.id,
      at: now,
      note,
      pointsRefunded: refunded,
      sanctionsRevoked: revoked,
      sanctionsKept: keep,
    });
    // The score as the decision left it (the player's row is locked): moved by a granted offense
    // appeal, as it was otherwise.
    if (!scores) {
      const score = await trustScoreOf(client, appeal.playerRowId);
      scores = { before: score, after: score };
    }
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId: subject.caseId,
      action: 'decide_appeal',
      outcome: null,
      note,
      trustScoreBefore: scores.before,
      trustScoreAfter: scores.after,
      details: {
        appealId: id,
        decision,
        subject: appeal.subject,
        pointsRefunded: refunded,
        ...(decision === 'granted' ? { sanctionsRevoked: revoked, sanctionsKept: keep } : {}),
        ...(stolen
          ? {
              compromisedWindow: window
                ? { from: window.from.toISOString(), to: window.to.toISOString() }
                : null,
              tokensRevoked,
              signalsForgotten,
            }
          : {}),
      },
    });
    const decided = (await findAppeal(client, id))!;
    outbox.push(...(await emitAppealEvent(client, 'appeal.decided', decided, subject.studios)));
    return { appeal: decided, outbox };
  });
}

/** What deciding an appeal needs beyond the appeal: how a reopened case is due, and the misuse rules. */
export interface DecideOptions {
  /** Hours to review a case by its highest severity (CASE_DUE_HOURS): a reopened case is due again. */
  dueHours: readonly number[];
  /** TRUSTED_FLAGGER_DUE_HOURS, for a reopened case holding a trusted flagger's notice. */
  flaggedDueHours: number;
  misuse: MisusePolicy;
  /** URGENT_NOTICE_DUE_HOURS, for a reopened case holding an urgent notice. */
  urgentDueHours?: number;
  /** NOTICE_COMPLAINT_DAYS, for the decision mail of a notice the appeal reverses. */
  complaintDays: number;
}

/**
 * A notifier's complaint about the dismissal of a notice (DSA Art. 20), decided under the locks
 * decideAppeal took. Granted, the notice is put back before a moderator: its offense held again and
 * its case reopened (or, when the player has another open case of that kind, filed into that one);
 * nothing moves on the score until that case is decided. Denied, it may be marked manifestly
 * unfounded, a mark against its sender (usecases/misuse.ts). Audited as decide_appeal.
 */
async function decideComplaint(
  client: PoolClient,
  actor: Actor,
  appeal: AppealRecord,
  subject: Subject,
  d: { decision: 'granted' | 'denied'; note: string; unfounded: boolean },
  now: Date,
  options: DecideOptions,
): Promise<{ appeal: AppealRecord; outbox: OutboxRow[] }> {
  const notice = subject.notice!;
  let reopenedCaseId: string | null = null;
  const markWithdrawn = d.decision === 'granted' && (await withdrawMark(client, notice.offenseId));
  if (d.decision === 'granted' && subject.caseId && (await reopenDropped(client, notice.offenseId)))
    reopenedCaseId = await reopenForNotice(client, {
      caseId: subject.caseId,
      offenseId: notice.offenseId,
      held: notice.held,
      flagged: notice.flagged,
      dueHours: options.dueHours,
      flaggedDueHours: options.flaggedDueHours,
      urgentDueHours: options.urgentDueHours,
    });
  await recordAppealDecision(client, appeal, {
    event: d.decision === 'granted' ? 'grant' : 'deny',
    by: actor.id,
    at: now,
    note: d.note,
    pointsRefunded: 0,
    sanctionsRevoked: [],
    sanctionsKept: [],
    reopenedCaseId,
  });
  const score = await trustScoreOf(client, appeal.playerRowId);
  await insertAudit(client, {
    moderatorId: actor.id,
    caseId: subject.caseId,
    action: 'decide_appeal',
    outcome: null,
    note: d.note,
    trustScoreBefore: score,
    trustScoreAfter: score,
    details: {
      appealId: appeal.id,
      decision: d.decision,
      subject: appeal.subject,
      complaint: true,
      ...(reopenedCaseId ? { reopenedCaseId } : {}),
      ...(markWithdrawn ? { markWithdrawn } : {}),
    },
  });
  if (d.unfounded)
    await applyMark(
      client,
      actor,
      { sender: senderOfKey(notice.senderKey), subject: { appealId: appeal.id }, note: d.note },
      options.misuse,
      now,
    );
  // The notifier is told the complaint's outcome (Art. 20(5)), by e-mail when they gave one.
  const outbox = await recordMail(client, {
    noticeId: subject.id,
    kind: 'complaint_decided',
    facts: {
      status: d.decision,
      decidedAt: now.toISOString(),
      game: await gameTitleOfNotice(client, subject.id),
    },
  });
  return { appeal: (await findAppeal(client, appeal.id))!, outbox };
}
