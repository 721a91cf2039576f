import Joi from 'joi';
import {
  isUniqueViolation,
  withTransaction,
  type Pool,
  type PoolClient,
  type Queryable,
} from '../data/db.js';
import { insertAudit } from '../data/repos/moderation.js';
import { isUuid } from '../domain/ids.js';
import { AppError, notFound } from '../errors.js';
import {
  recordLift,
  recordMark,
  reporterSenderKey,
  senderOfKey,
  type MeasureRow,
  type MisusePolicy,
  type Sender,
} from '../lifecycles/misuse.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';
import { lockOffenseSender, measureExists, measureRows } from '../data/repos/misuse.js';

/**
 * Measures against misuse (DSA Art. 23; docs/moderators.md "Notices"): a moderator marks what was manifestly
 * unfounded, the life cycle (lifecycles/misuse.ts) counts the marks against the sender and warns or
 * suspends it at the documented counts; an admin may lift a suspension. Every step is audited.
 */

export const unfoundedSchema = Joi.object({
  note: text(2000)
    .required()
    .description('Why it was manifestly unfounded (audited; never shown to the sender).'),
});
export const measuresQuerySchema = Joi.object({
  inForce: Joi.boolean()
    .default(false)
    .description('Only suspensions in force (default: every warning and suspension).'),
  limit: Joi.number().integer().min(1).max(200).default(50),
});
export const liftSchema = Joi.object({
  note: text(2000).required().description('Why it is lifted (audited).'),
});

/** A sender as moderators read it: never the notifier's e-mail or address, which are kept only as HMACs. */
export function presentSender(sender: Sender, flaggerName?: string | null) {
  switch (sender.kind) {
    case 'reporter':
      return { kind: sender.kind, studioId: sender.studioId, reporterId: sender.reporterId };
    case 'trusted_flagger':
      return {
        kind: sender.kind,
        flaggerId: sender.key.slice('notice:tf-'.length),
        name: flaggerName ?? null,
      };
    case 'notifier':
      return { kind: sender.kind, key: sender.key.slice('notice:'.length) };
  }
}

export const presentMeasure = (m: MeasureRow & { flagger_name?: string | null }, now = new Date()) => ({
  id: m.id,
  sender: presentSender(senderOfKey(m.sender_key), m.flagger_name),
  kind: m.kind,
  marks: m.marks,
  createdAt: m.created_at.toISOString(),
  endsAt: m.ends_at?.toISOString() ?? null,
  liftedAt: m.lifted_at?.toISOString() ?? null,
  /** A suspension not lifted whose end is ahead. */
  inForce: m.kind === 'suspension' && m.lifted_at === null && m.ends_at!.getTime() > now.getTime(),
});
export type MeasureView = ReturnType<typeof presentMeasure>;

/**
 * One mark against a sender, in the caller's transaction, and the measure it leads to; each audited
 * (mark_unfounded, then warn_sender or suspend_sender). 409 already_marked for a subject marked before.
 */
export async function applyMark(
  client: PoolClient,
  actor: Actor,
  mark: {
    sender: Sender;
    subject: { offenseId: string } | { appealId: string };
    note: string;
    caseId?: string | null;
  },
  policy: MisusePolicy,
  now: Date,
): Promise<{ marks: number; measure: MeasureView | null }> {
  let result;
  try {
    result = await recordMark(client, { ...mark, moderatorId: actor.id }, policy, now);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new AppError(409, 'already_marked', 'This was already marked manifestly unfounded.');
  }
  const sender = presentSender(mark.sender);
  const audit = (
    action: 'mark_unfounded' | 'warn_sender' | 'suspend_sender',
    details: Record<string, unknown>,
  ) =>
    insertAudit(client, {
      moderatorId: actor.id,
      caseId: action === 'mark_unfounded' ? (mark.caseId ?? null) : null,
      action,
      outcome: null,
      note: action === 'mark_unfounded' ? mark.note : null,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { ...details, sender, marks: result.marks },
    });
  await audit('mark_unfounded', { ...mark.subject });
  const measure = result.measure && presentMeasure(result.measure, now);
  if (measure)
    await audit(measure.kind === 'warning' ? 'warn_sender' : 'suspend_sender', {
      measureId: measure.id,
      ...(measure.endsAt ? { endsAt: measure.endsAt } : {}),
    });
  return { marks: result.marks, measure };
}

/**
 * Marks a notice or a game's report (one filed with a reporterId) manifestly unfounded: only once its
 * case was dismissed (409 not_dismissed), and only when it has a sender to count it against (409
 * no_sender for a game server's finding). 404 for an unknown offense.
 */
export async function markOffenseUnfounded(
  pool: Pool,
  actor: Actor,
  offenseId: string,
  body: unknown,
  policy: MisusePolicy,
  now: Date,
) {
  const { note } = check<{ note: string }>(unfoundedSchema, body);
  if (!isUuid(offenseId)) throw notFound(`Offense ${offenseId}`);
  return withTransaction(pool, async (client) => {
    const o = await lockOffenseSender(client, offenseId);
    if (!o) throw notFound(`Offense ${offenseId}`);
    const key = o.senderKey ?? (o.reporterId ? reporterSenderKey(o.studioId, o.reporterId) : null);
    if (!key)
      throw new AppError(
        409,
        'no_sender',
        "This report names no reporter (a game server's or anti-cheat finding): there is no one to count it against.",
      );
    if (o.outcome !== 'dismissed')
      throw new AppError(
        409,
        'not_dismissed',
        'Only a notice or report whose case was dismissed can be marked manifestly unfounded.',
      );
    const sender = senderOfKey(key);
    const { marks, measure } = await applyMark(
      client,
      actor,
      { sender, subject: { offenseId }, note, caseId: o.caseId },
      policy,
      now,
    );
    return { offenseId, sender: presentSender(sender), marks, measure };
  });
}

/** Warnings and suspensions, newest first; `inForce` for the suspensions in force only. */
export async function listMeasures(db: Queryable, filter: { inForce: boolean; limit: number }, now: Date) {
  const rows = await measureRows(db, filter.inForce, now, filter.limit);
  return { items: rows.map((r) => presentMeasure(r, now)) };
}

/** Lifts a suspension in force (admins): audited; 404 for an unknown one, 409 suspension_not_in_force. */
export async function liftMeasure(pool: Pool, actor: Actor, id: string, body: unknown, now: Date) {
  const { note } = check<{ note: string }>(liftSchema, body);
  if (!isUuid(id)) throw notFound(`Measure ${id}`);
  return withTransaction(pool, async (client) => {
    const lifted = await recordLift(client, id, { by: actor.id, note, at: now });
    if (!lifted) {
      if (!(await measureExists(client, id))) throw notFound(`Measure ${id}`);
      throw new AppError(
        409,
        'suspension_not_in_force',
        'This is a warning, or a suspension already lifted or ended: there is nothing to lift.',
      );
    }
    const view = presentMeasure(lifted, now);
    await insertAudit(client, {
      moderatorId: actor.id,
      caseId: null,
      action: 'lift_suspension',
      outcome: null,
      note,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { measureId: id, sender: view.sender },
    });
    return view;
  });
}
