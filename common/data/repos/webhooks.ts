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
  'webhook.disabled',
  'rule.matched',
  'notice.urgent',
  'player.evasion_suspected',
  'conduct.summary',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Sent only to the webhook a studio tests, whatever it subscribes to. */
export const TEST_EVENT = 'webhook.test';
export const DELIVERY_EVENT_TYPES = [...EVENT_TYPES, TEST_EVENT] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];

export interface WebhookRecord {
  id: string;
  studioId: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: 'studio' | 'failing' | null;
  previousSecretExpiresAt: Date | null;
  consecutiveFailures: number;
  /** While the endpoint is parked (its attempts kept failing): when its deliveries are tried again. */
  parkedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: DeliveryEventType;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  redeliveryOf: string | null;
}

const WEBHOOK_COLUMNS = `id, studio_id, url, events, enabled, disabled_at, disabled_reason, consecutive_failures,
  created_at, updated_at, CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END
  AS previous_secret_expires_at, CASE WHEN parked_until > now() THEN parked_until END AS parked_until`;
interface WebhookRow {
  id: string;
  studio_id: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  disabled_at: Date | null;
  disabled_reason: WebhookRecord['disabledReason'];
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  parked_until: Date | null;
  created_at: Date;
  updated_at: Date;
}
const webhookFromRow = (r: WebhookRow): WebhookRecord => ({
  id: r.id,
  studioId: r.studio_id,
  url: r.url,
  events: r.events,
  enabled: r.enabled,
  disabledAt: r.disabled_at,
  disabledReason: r.disabled_reason,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  consecutiveFailures: r.consecutive_failures,
  parkedUntil: r.parked_until,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function insertWebhook(
  db: Queryable,
  input: { studioId: string; url: string; events: EventType[]; sealedSecret: Buffer },
): Promise<WebhookRecord> {
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (studio_id, url, events, secret_ciphertext) VALUES ($1, $2, $3, $4)
     RETURNING ${WEBHOOK_COLUMNS}`,
    [input.studioId, input.url, input.events, input.sealedSecret],
  );
  return webhookFromRow(rows[0]!);
}

/** The studio's webhooks that are not deleted (enabled or not): what the limit counts. */
export async function countWebhooks(db: Queryable, studioId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhooks WHERE studio_id = $1 AND deleted_at IS NULL',
    [studioId],
  );
  return rows[0]!.n;
}

export async function listWebhooks(db: Queryable, studioId?: string): Promise<WebhookRecord[]> {
  const { rows } = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE deleted_at IS NULL AND ($1::uuid IS NULL OR studio_id = $1)
      ORDER BY created_at, id`,
    [studioId ?? null],
  );
  return rows.map(webhookFromRow);
}

/**
 * Webhook `id` of the studio unless deleted, or undefined (another studio's webhook is not found
 * either). `forUpdate` locks the row for a change.
 */
export async function findWebhook(db: Queryable, studioId: string, id: string, forUpdate = false) {
  const { rows } = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND studio_id = $2 AND deleted_at IS NULL
     ${forUpdate ? 'FOR UPDATE' : ''}`,
    [id, studioId],
  );
  return rows[0] ? webhookFromRow(rows[0]) : undefined;
}

/** A studio's change to a webhook: only the fields given change. */
/** A studio's change of its webhook; enabling it again resets its breaker first (common/lifecycles/webhook-delivery.ts). */
export async function updateWebhook(
  db: Queryable,
  id: string,
  change: { url?: string; events?: EventType[]; enabled?: boolean },
): Promise<WebhookRecord> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET url = coalesce($2, url), events = coalesce($3, events),
            enabled = coalesce($4, enabled),
            disabled_at = CASE WHEN $4 IS NULL THEN disabled_at WHEN $4 THEN NULL
                               ELSE coalesce(disabled_at, now()) END,
            disabled_reason = CASE WHEN $4 IS NULL THEN disabled_reason WHEN $4 THEN NULL
                                   WHEN enabled THEN 'studio' ELSE disabled_reason END,
            updated_at = now()
      WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
    [id, change.url ?? null, change.events ?? null, change.enabled ?? null],
  );
  return webhookFromRow(rows[0]!);
}

/** A new secret; the current one stays valid (signed with too) for `overlapSeconds`. */
export async function rotateWebhookSecret(
  db: Queryable,
  id: string,
  sealedSecret: Buffer,
  overlapSeconds: number,
): Promise<WebhookRecord> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET previous_secret_ciphertext = secret_ciphertext,
            previous_secret_expires_at = now() + make_interval(secs => $3),
            secret_ciphertext = $2, updated_at = now()
      WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
    [id, sealedSecret, overlapSeconds],
  );
  return webhookFromRow(rows[0]!);
}

/**
 * Deletes the webhook: no new deliveries, pending ones are cancelled by the worker. The row and its
 * delivery log stay, for the record.
 */
export async function deleteWebhook(db: Queryable, studioId: string, id: string): Promise<boolean> {
  const res = await db.query(
    'UPDATE webhooks SET deleted_at = now() WHERE id = $1 AND studio_id = $2 AND deleted_at IS NULL',
    [id, studioId],
  );
  return (res.rowCount ?? 0) > 0;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: DeliveryEventType;
  status: DeliveryRecord['status'];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  redelivery_of: string | null;
  cursor_ts: string;
}

export const deliveryFromRow = (r: DeliveryRow): DeliveryRecord => ({
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
  nextAttemptAt: r.next_attempt_at,
  deliveredAt: r.delivered_at,
  redeliveryOf: r.redelivery_of,
});

/**
 * A delivery's columns (`d`, with its webhook `w` joined where the log is read). A pending delivery
 * of a parked endpoint is next tried when the parking ends, whatever its own retry time said: the
 * log shows the later of the two.
 */
export const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event_id, d.event_type, d.status, d.attempts, d.last_status_code,
  d.last_error, d.created_at, d.last_attempt_at,
  CASE WHEN d.status = 'pending' AND w.parked_until > now() THEN greatest(d.next_attempt_at, w.parked_until)
       ELSE d.next_attempt_at END AS next_attempt_at,
  d.delivered_at, d.redelivery_of, to_json(d.created_at)#>>'{}' AS cursor_ts`;

export async function findDelivery(db: Queryable, webhookId: string, id: string) {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.id = $1 AND d.webhook_id = $2`,
    [id, webhookId],
  );
  return rows[0] ? deliveryFromRow(rows[0]) : undefined;
}

/** The delivery log of one webhook, newest first, keyset-paginated on (created_at, id). */
export async function listDeliveries(
  db: Queryable,
  webhookId: string,
  limit: number,
  after?: { ts: string; id: string },
): Promise<{ items: DeliveryRecord[]; next: { ts: string; id: string } | null }> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS}
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.webhook_id = $1 AND ($3::timestamptz IS NULL OR (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
      ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
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
