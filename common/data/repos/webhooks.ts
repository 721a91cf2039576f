import crypto from 'node:crypto';
import { JOB_NAMES, QUEUES } from '../../queues/index.js';
import type { OutboxRow } from '../../queues/outbox.js';
import type { Queryable } from '../db.js';

export const EVENT_TYPES = [
  'offense.created',
  'case.resolved',
  'trust.changed',
  'sanction.applied',
  'sanction.revoked',
  'sanction.expired',
  'report.outcome',
  'appeal.filed',
  'appeal.decided',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface WebhookRecord {
  id: string;
  studioId: string;
  url: string;
  events: EventType[];
  createdAt: Date;
}

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
}

const WEBHOOK_COLUMNS = 'id, studio_id, url, events, created_at';
const webhookFromRow = (r: {
  id: string;
  studio_id: string;
  url: string;
  events: EventType[];
  created_at: Date;
}): WebhookRecord => ({
  id: r.id,
  studioId: r.studio_id,
  url: r.url,
  events: r.events,
  createdAt: r.created_at,
});

export async function insertWebhook(
  db: Queryable,
  input: { studioId: string; url: string; events: EventType[]; sealedSecret: Buffer },
): Promise<WebhookRecord> {
  const { rows } = await db.query(
    `INSERT INTO webhooks (studio_id, url, events, secret_ciphertext) VALUES ($1, $2, $3, $4)
     RETURNING ${WEBHOOK_COLUMNS}`,
    [input.studioId, input.url, input.events, input.sealedSecret],
  );
  return webhookFromRow(rows[0]);
}

export async function countActiveWebhooks(db: Queryable, studioId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhooks WHERE studio_id = $1 AND disabled_at IS NULL',
    [studioId],
  );
  return rows[0]!.n;
}

export async function listWebhooks(db: Queryable, studioId?: string): Promise<WebhookRecord[]> {
  const { rows } = await db.query(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE disabled_at IS NULL AND ($1::uuid IS NULL OR studio_id = $1)
      ORDER BY created_at, id`,
    [studioId ?? null],
  );
  return rows.map(webhookFromRow);
}

/** Active webhook `id` of the studio, or undefined (another studio's webhook is not found either). */
export async function findWebhook(db: Queryable, studioId: string, id: string) {
  const { rows } = await db.query(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND studio_id = $2 AND disabled_at IS NULL`,
    [id, studioId],
  );
  return rows[0] ? webhookFromRow(rows[0]) : undefined;
}

/**
 * Disables the webhook: no new deliveries, pending ones are cancelled by the worker. The row and its
 * delivery log stay, for the record.
 */
export async function disableWebhook(db: Queryable, studioId: string, id: string): Promise<boolean> {
  const res = await db.query(
    'UPDATE webhooks SET disabled_at = now() WHERE id = $1 AND studio_id = $2 AND disabled_at IS NULL',
    [id, studioId],
  );
  return (res.rowCount ?? 0) > 0;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryRecord['status'];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  cursor_ts: string;
}

const deliveryFromRow = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  webhookId: r.webhook_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: r.created_at,
  lastAttemptAt: r.last_attempt_at,
  deliveredAt: r.delivered_at,
});

/** The delivery log of one webhook, newest first, keyset-paginated on (created_at, id). */
export async function listDeliveries(
  db: Queryable,
  webhookId: string,
  limit: number,
  after?: { ts: string; id: string },
): Promise<{ items: DeliveryRecord[]; next: { ts: string; id: string } | null }> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT id, webhook_id, event_id, event_type, status, attempts, last_status_code, last_error,
            created_at, last_attempt_at, delivered_at, to_json(created_at)#>>'{}' AS cursor_ts
       FROM webhook_deliveries
      WHERE webhook_id = $1 AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [webhookId, limit + 1, after?.ts ?? null, after?.id ?? null],
  );
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(deliveryFromRow),
    next: rows.length > limit && last ? { ts: last.cursor_ts, id: last.id } : null,
  };
}

/** The studios whose games the player is linked to: who hears of changes to the player. */
export async function studiosOfPlayer(db: Queryable, serviceId: string): Promise<string[]> {
  const { rows } = await db.query<{ studio_id: string }>(
    `SELECT DISTINCT g.studio_id FROM players p JOIN player_games pg ON pg.player_id = p.id
       JOIN games g ON g.id = pg.game_id WHERE p.service_id = $1`,
    [serviceId],
  );
  return rows.map((r) => r.studio_id);
}

/**
 * Records events, each for the studios in its `dataByStudio` (each may see different data) and each
 * with its own id: a delivery per active webhook of theirs that subscribes to the event, and an
 * outbox row per delivery, all in one statement inside the caller's transaction, so an event exists
 * exactly when what caused it committed. Returns the outbox rows for the caller to dispatch after
 * the commit.
 */
export async function emitEvents(
  db: Queryable,
  events: { type: EventType; dataByStudio: Map<string, unknown> }[],
  now: Date = new Date(),
): Promise<OutboxRow[]> {
  const input = events.flatMap(({ type, dataByStudio }) => {
    const event_id = crypto.randomUUID();
    return [...dataByStudio].map(([studio_id, data]) => ({ event_id, type, studio_id, data }));
  });
  if (input.length === 0) return [];
  const { rows } = await db.query<OutboxRow>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, type text, studio_id uuid, data jsonb)),
     d AS (
       INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload)
       SELECT w.id, i.event_id, i.type,
              jsonb_build_object('id', i.event_id, 'type', i.type, 'createdAt', $2::text, 'data', i.data)
         FROM webhooks w JOIN input i ON i.studio_id = w.studio_id
        WHERE w.disabled_at IS NULL AND i.type = ANY (w.events)
       RETURNING id
     )
     INSERT INTO outbox (queue, job_name, job_id, payload)
     SELECT $3, $4, $3 || '-' || d.id, jsonb_build_object('deliveryId', d.id) FROM d
     RETURNING id::text, queue, job_name, job_id, payload`,
    [JSON.stringify(input), now.toISOString(), QUEUES.webhooks, JOB_NAMES.deliverWebhook],
  );
  return rows;
}
