import type { Queryable } from '../data/db.js';

/**
 * The compliance officer's records (issue 51; docs/compliance.md "Orders and disputes"), the only code that
 * writes authority_orders and disputes (a test holds it to that):
 *
 *   an order:   received --(the authority told of its receipt)--> acknowledged --(effect given: how)--> acted
 *   a dispute:  submitted --(the body's decision, or withdrawn)--> closed (outcome; implemented or not)
 *
 * Each is recorded by an admin when it happens; a later write completes it (or corrects a date), and
 * names who wrote it.
 */

export const ORDER_KINDS = ['act', 'information'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];
export const DISPUTE_SUBJECTS = ['sanction', 'notice', 'complaint', 'other'] as const;
export const DISPUTE_OUTCOMES = ['for_recipient', 'for_platform', 'settled', 'withdrawn'] as const;
export type DisputeOutcome = (typeof DISPUTE_OUTCOMES)[number];

export interface OrderRow {
  id: string;
  platform: string;
  kind: OrderKind;
  authority: string;
  member_state: string;
  category: string;
  reference: string | null;
  received_at: Date;
  acknowledged_at: Date | null;
  acted_at: Date | null;
  action: string | null;
  recorded_by: string;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DisputeRow {
  id: string;
  platform: string;
  body: string;
  subject: (typeof DISPUTE_SUBJECTS)[number];
  reference: string | null;
  submitted_at: Date;
  closed_at: Date | null;
  outcome: DisputeOutcome | null;
  implemented: boolean | null;
  recorded_by: string;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderFields {
  platform: string;
  kind: OrderKind;
  authority: string;
  memberState: string;
  category: string;
  reference: string | null;
  receivedAt: Date;
  acknowledgedAt: Date | null;
  actedAt: Date | null;
  action: string | null;
}

export interface DisputeFields {
  platform: string;
  body: string;
  subject: (typeof DISPUTE_SUBJECTS)[number];
  reference: string | null;
  submittedAt: Date;
  closedAt: Date | null;
  outcome: DisputeOutcome | null;
  implemented: boolean | null;
}

/** Records an order as it stands (`id` given: its fields replaced, by `by`); the row as stored. */
export async function recordOrder(
  db: Queryable,
  o: OrderFields,
  by: string,
  id?: string,
): Promise<OrderRow | undefined> {
  const values = [
    o.platform,
    o.kind,
    o.authority,
    o.memberState,
    o.category,
    o.reference,
    o.receivedAt,
    o.acknowledgedAt,
    o.actedAt,
    o.action,
    by,
  ];
  const { rows } = id
    ? await db.query<OrderRow>(
        `UPDATE authority_orders SET platform = $1, kind = $2, authority = $3, member_state = $4, category = $5,
                reference = $6, received_at = $7, acknowledged_at = $8, acted_at = $9, action = $10,
                updated_by = $11, updated_at = now()
          WHERE id = $12 RETURNING *`,
        [...values, id],
      )
    : await db.query<OrderRow>(
        `INSERT INTO authority_orders (platform, kind, authority, member_state, category, reference, received_at,
                                       acknowledged_at, acted_at, action, recorded_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
        values,
      );
  return rows[0];
}

/** Records a dispute as it stands (`id` given: its fields replaced, by `by`); the row as stored. */
export async function recordDispute(
  db: Queryable,
  d: DisputeFields,
  by: string,
  id?: string,
): Promise<DisputeRow | undefined> {
  const values = [
    d.platform,
    d.body,
    d.subject,
    d.reference,
    d.submittedAt,
    d.closedAt,
    d.outcome,
    d.implemented,
    by,
  ];
  const { rows } = id
    ? await db.query<DisputeRow>(
        `UPDATE disputes SET platform = $1, body = $2, subject = $3, reference = $4, submitted_at = $5,
                closed_at = $6, outcome = $7, implemented = $8, updated_by = $9, updated_at = now()
          WHERE id = $10 RETURNING *`,
        [...values, id],
      )
    : await db.query<DisputeRow>(
        `INSERT INTO disputes (platform, body, subject, reference, submitted_at, closed_at, outcome, implemented,
                               recorded_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        values,
      );
  return rows[0];
}
