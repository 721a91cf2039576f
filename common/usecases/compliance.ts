import Joi from 'joi';
import type { Pool, Queryable } from '../data/db.js';
import { findStudio } from '../data/repos/accounts.js';
import { complianceRecords } from '../data/repos/compliance.js';
import { isUuid } from '../domain/ids.js';
import { NOTICE_CATEGORIES } from '../domain/notices.js';
import { TDB } from '../domain/transparency-vocabulary.js';
import type { TdbCategory } from '../domain/transparency-statement.js';
import { notFound, validationError, type FieldError } from '../errors.js';
import { CURSOR, decodeCursor, encodeCursor, invalidCursor } from '../cursor.js';
import {
  DISPUTE_OUTCOMES,
  DISPUTE_SUBJECTS,
  ORDER_KINDS,
  recordDispute,
  recordOrder,
  type DisputeFields,
  type DisputeRow,
  type OrderFields,
  type OrderRow,
} from '../lifecycles/compliance-record.js';
import { check, text } from '../validation.js';

/**
 * Orders from authorities (DSA Art. 9, 10) and out-of-court disputes (Art. 21), as a studio's
 * compliance officer records them (issue 51; docs/compliance.md "Orders and disputes"): admins only. The
 * transparency report counts them (Art. 15(1)(a), 24(1)(a)).
 */

const when = Joi.date().iso();
const platform = Joi.string()
  .max(64)
  .required()
  .description('Whose games it concerns: `operator` (global decisions) or a studio id.');

export const orderSchema = Joi.object({
  platform,
  kind: Joi.string()
    .valid(...ORDER_KINDS)
    .required()
    .description(
      '`act`: an order to act against illegal content (Art. 9); `information`: to provide information (Art. 10).',
    ),
  authority: text(200)
    .min(1)
    .required()
    .description('The judicial or administrative authority that issued it.'),
  memberState: Joi.string()
    .valid(...TDB.countries)
    .required()
    .description('The Member State of the issuing authority (ISO 3166-1 alpha-2, EU/EEA).'),
  category: Joi.string()
    .valid(...NOTICE_CATEGORIES)
    .required()
    .description('The type of illegal content concerned (a category of the DSA Transparency Database).'),
  reference: text(200).min(1).description("The order's reference in the authority's file."),
  receivedAt: when.required().description('When the order was received.'),
  acknowledgedAt: when
    .allow(null)
    .description('When the authority was told of its receipt (Art. 9(1), 10(1)); null until then.'),
  actedAt: when.allow(null).description('When effect was given to it; null until then (with action).'),
  action: text(2000).min(1).allow(null).description('What was done (with actedAt).'),
});

export const disputeSchema = Joi.object({
  platform,
  body: text(200)
    .min(1)
    .required()
    .description('The certified out-of-court dispute settlement body (Art. 21) it was brought to.'),
  subject: Joi.string()
    .valid(...DISPUTE_SUBJECTS)
    .required()
    .description("What it is about: a sanction, a notice's decision, a complaint's decision, or other."),
  reference: text(200).min(1).description("The dispute's reference at the body."),
  submittedAt: when.required().description('When it was submitted to the body.'),
  closedAt: when.allow(null).description('When the body closed it; null while open (with outcome).'),
  outcome: Joi.string()
    .valid(...DISPUTE_OUTCOMES)
    .allow(null)
    .description(
      'How it ended: for the recipient, for the platform, settled, or withdrawn; null while open (with closedAt).',
    ),
  implemented: Joi.boolean()
    .allow(null)
    .description("Whether the platform implemented the body's decision (Art. 24(1)(a)); null while open."),
});

export const complianceListSchema = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

/** Bounds a schema cannot say: dates in order and not ahead of now, the pairs set together, a known platform. */
async function checked<T extends Record<string, unknown>>(
  db: Queryable,
  v: T,
  rules: { start: keyof T; after: (keyof T)[]; pairs: [keyof T, keyof T][] },
  now: Date,
): Promise<T> {
  const faults: FieldError[] = [];
  const start = v[rules.start] as Date;
  for (const k of [rules.start, ...rules.after]) {
    const d = v[k] as Date | null | undefined;
    if (d && d.getTime() > now.getTime() + 300_000)
      faults.push({ field: String(k), message: 'is in the future' });
    if (d && k !== rules.start && d.getTime() < start.getTime())
      faults.push({ field: String(k), message: `must not be before ${String(rules.start)}` });
  }
  for (const [a, b] of rules.pairs)
    if ((v[a] == null) !== (v[b] == null))
      faults.push({
        field: String(v[a] == null ? a : b),
        message: `is required with ${String(v[a] == null ? b : a)}`,
      });
  const p = v.platform as string;
  if (p !== 'operator' && !(isUuid(p) && (await findStudio(db, p))))
    faults.push({ field: 'platform', message: 'is neither operator nor a studio id' });
  if (faults.length) throw validationError(faults);
  return v;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const presentOrder = (r: OrderRow) => ({
  id: r.id,
  platform: r.platform,
  kind: r.kind,
  authority: r.authority,
  memberState: r.member_state as (typeof TDB.countries)[number],
  category: r.category as TdbCategory,
  reference: r.reference,
  receivedAt: r.received_at.toISOString(),
  acknowledgedAt: iso(r.acknowledged_at),
  actedAt: iso(r.acted_at),
  action: r.action,
  recordedBy: r.recorded_by,
  updatedBy: r.updated_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const presentDispute = (r: DisputeRow) => ({
  id: r.id,
  platform: r.platform,
  body: r.body,
  subject: r.subject,
  reference: r.reference,
  submittedAt: r.submitted_at.toISOString(),
  closedAt: iso(r.closed_at),
  outcome: r.outcome,
  implemented: r.implemented,
  recordedBy: r.recorded_by,
  updatedBy: r.updated_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

type OrderInput = {
  platform: string;
  kind: OrderFields['kind'];
  authority: string;
  memberState: string;
  category: string;
  reference?: string;
  receivedAt: Date;
  acknowledgedAt?: Date | null;
  actedAt?: Date | null;
  action?: string | null;
};

/**
 * Records an order (201), or replaces one (`id`: 200, 404 when there is none): every field as given,
 * so a correction is a PUT of the whole order.
 */
export async function putOrder(pool: Pool, body: unknown, by: string, now: Date, id?: string) {
  if (id !== undefined && !isUuid(id)) throw notFound(`Order ${id}`);
  const v = await checked(
    pool,
    check<OrderInput>(orderSchema, body),
    { start: 'receivedAt', after: ['acknowledgedAt', 'actedAt'], pairs: [['actedAt', 'action']] },
    now,
  );
  const row = await recordOrder(
    pool,
    {
      platform: v.platform,
      kind: v.kind,
      authority: v.authority,
      memberState: v.memberState,
      category: v.category,
      reference: v.reference ?? null,
      receivedAt: v.receivedAt,
      acknowledgedAt: v.acknowledgedAt ?? null,
      actedAt: v.actedAt ?? null,
      action: v.action ?? null,
    },
    by,
    id,
  );
  if (!row) throw notFound(`Order ${id}`);
  return presentOrder(row);
}

type DisputeInput = {
  platform: string;
  body: string;
  subject: DisputeFields['subject'];
  reference?: string;
  submittedAt: Date;
  closedAt?: Date | null;
  outcome?: DisputeFields['outcome'];
  implemented?: boolean | null;
};

/** Records a dispute (201), or replaces one (`id`: 200, 404 when there is none). */
export async function putDispute(pool: Pool, body: unknown, by: string, now: Date, id?: string) {
  if (id !== undefined && !isUuid(id)) throw notFound(`Dispute ${id}`);
  const v = await checked(
    pool,
    check<DisputeInput>(disputeSchema, body),
    { start: 'submittedAt', after: ['closedAt'], pairs: [['closedAt', 'outcome']] },
    now,
  );
  if (v.implemented != null && v.outcome == null)
    throw validationError([{ field: 'implemented', message: 'is said of a closed dispute only' }]);
  const row = await recordDispute(
    pool,
    {
      platform: v.platform,
      body: v.body,
      subject: v.subject,
      reference: v.reference ?? null,
      submittedAt: v.submittedAt,
      closedAt: v.closedAt ?? null,
      outcome: v.outcome ?? null,
      implemented: v.implemented ?? null,
    },
    by,
    id,
  );
  if (!row) throw notFound(`Dispute ${id}`);
  return presentDispute(row);
}

async function listOf<R extends { id: string; created_at: Date }, T>(
  db: Queryable,
  table: 'authority_orders' | 'disputes',
  query: unknown,
  present: (r: R) => T,
) {
  const q = check<{ limit: number; cursor?: string }>(complianceListSchema, query, 'query');
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  if (q.cursor !== undefined && !after) throw invalidCursor();
  const rows = await complianceRecords<R>(db, table, after, q.limit + 1);
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return {
    items: items.map(present),
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.cursor_ts, last.id) : null,
  };
}

/** The orders, newest recorded first, keyset-paginated. */
export const listOrders = (db: Queryable, query: unknown) =>
  listOf<OrderRow, ReturnType<typeof presentOrder>>(db, 'authority_orders', query, presentOrder);

/** The disputes, newest recorded first, keyset-paginated. */
export const listDisputes = (db: Queryable, query: unknown) =>
  listOf<DisputeRow, ReturnType<typeof presentDispute>>(db, 'disputes', query, presentDispute);
