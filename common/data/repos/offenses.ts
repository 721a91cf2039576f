import type {
  EvidenceItem,
  NormalisedReport,
  OffenseType,
  ReportContext,
  Severity,
} from '../../domain/reports.js';
import { offenseJobs } from '../../queues/index.js';
import type { OutboxRow } from '../../queues/outbox.js';
import type { Queryable } from '../db.js';
import { encodeCursor } from '../../cursor.js';

export interface OffenseRecord {
  id: string;
  playerServiceId: string;
  gameId: string;
  studioId: string;
  type: OffenseType;
  description: string;
  severity: Severity;
  penaltyPoints: number;
  evidence: EvidenceItem[];
  details: Record<string, unknown>;
  context: ReportContext;
  reviewedByAdmin: boolean;
  resolved: boolean;
  resolvedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The trust score right after this offense's deduction (null for offenses stored before it was kept). */
  trustScoreAfter: number | null;
}

export interface GameLink {
  gameTitle: string;
  linkedAt: Date;
}

export interface PlayerProfile {
  serviceId: string;
  fullName: string;
  gamerTag: string;
  trustScore: number;
  isKycVerified: boolean;
  games: GameLink[];
  offenses: OffenseRecord[];
  offenseCount: number;
}

/** Column list shared by every offense read; `cursor` is the full-precision sort key. */
const OFFENSE_SELECT = `o.id, p.service_id, o.game_id, o.studio_id, o.type, o.description, o.severity, o.penalty_points,
  o.evidence, o.details, o.context, o.reviewed_by_admin, o.resolved, o.resolved_at, o.created_at, o.updated_at,
  o.trust_score_after, to_json(o.created_at)#>>'{}' AS cursor_ts`;

interface OffenseRow {
  id: string;
  service_id: string;
  game_id: string;
  studio_id: string;
  type: OffenseType;
  description: string;
  severity: Severity;
  penalty_points: number;
  evidence: EvidenceItem[];
  details: Record<string, unknown>;
  context: ReportContext;
  reviewed_by_admin: boolean;
  resolved: boolean;
  resolved_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  trust_score_after: number | null;
  cursor_ts: string;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

function offenseFromRow(r: OffenseRow): OffenseRecord {
  return {
    id: r.id,
    playerServiceId: r.service_id,
    gameId: r.game_id,
    studioId: r.studio_id,
    type: r.type,
    description: r.description,
    severity: r.severity,
    penaltyPoints: r.penalty_points,
    evidence: r.evidence,
    details: r.details,
    context: r.context,
    reviewedByAdmin: r.reviewed_by_admin,
    resolved: r.resolved,
    resolvedAt: r.resolved_at === null ? null : toDate(r.resolved_at),
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
    trustScoreAfter: r.trust_score_after,
  };
}

/** The offenses filed into a review case, oldest first. */
export async function findCaseOffenses(db: Queryable, caseId: string): Promise<OffenseRecord[]> {
  const { rows } = await db.query<OffenseRow>(
    `SELECT ${OFFENSE_SELECT} FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
       JOIN players p ON p.id = o.player_id
      WHERE co.case_id = $1 ORDER BY o.created_at, o.id`,
    [caseId],
  );
  return rows.map(offenseFromRow);
}

/**
 * The offenses with these ids that some studio is listening for: each with its audience (the studio
 * that filed it and every studio whose games its player is linked to), returned only when an active
 * webhook of that audience subscribes to one of `eventTypes`. One round trip; none when nobody
 * listens, which is the common case.
 */
export async function findOffensesWithListeners(
  db: Queryable,
  ids: readonly string[],
  eventTypes: readonly string[],
): Promise<{ offense: OffenseRecord; audience: string[] }[]> {
  const { rows } = await db.query<OffenseRow & { audience: string[] }>({
    name: 'offenses-with-listeners',
    text: `SELECT ${OFFENSE_SELECT}, a.audience
         FROM offenses o JOIN players p ON p.id = o.player_id
        CROSS JOIN LATERAL (
          SELECT array_agg(DISTINCT s)::text[] AS audience FROM (
            SELECT o.studio_id AS s
            UNION SELECT g.studio_id FROM player_games pg JOIN games g ON g.id = pg.game_id
                   WHERE pg.player_id = p.id) x) a
        WHERE o.id = ANY($1::uuid[])
          AND EXISTS (SELECT 1 FROM webhooks w
                       WHERE w.disabled_at IS NULL AND w.events && $2::text[]
                         AND w.studio_id::text = ANY (a.audience))
        ORDER BY o.created_at, o.id`,
    values: [ids, eventTypes],
  });
  return rows.map((r) => ({ offense: offenseFromRow(r), audience: r.audience }));
}

export interface RecordedReport {
  offense: OffenseRecord;
  trustScore: number;
  outbox: OutboxRow[];
}

/**
 * The whole report in one statement, so one round trip and one implicit transaction (or part of the
 * caller's): lock the player's row, lower the trust score (floored at 0), insert the offense with the
 * points actually deducted, link the game and write the outbox rows for its jobs (offenseJobs). Concurrent
 * reports on one player serialise on the row lock; the FOR NO KEY UPDATE sub-select re-reads the latest
 * committed score, so no deduction is lost. No row comes back when the player does not exist, and
 * then nothing was written.
 */
export async function recordReport(
  db: Queryable,
  input: {
    offenseId: string;
    serviceId: string;
    gameId: string;
    studioId: string;
    report: NormalisedReport;
    penalty: number;
  },
): Promise<RecordedReport | undefined> {
  const r = input.report;
  // Named: PostgreSQL parses and plans it once per connection instead of on every report.
  const { rows } = await db.query<OffenseRow & { trust_score: number; outbox: OutboxRow[] }>({
    name: 'record-report',
    text: `WITH target AS (
       SELECT id, trust_score FROM players WHERE service_id = $1 FOR NO KEY UPDATE
     ), upd AS (
       UPDATE players p SET trust_score = GREATEST(p.trust_score - $2::int, 0),
                            offense_count = p.offense_count + 1, updated_at = now()
         FROM target t WHERE p.id = t.id
       RETURNING p.id, p.service_id, t.trust_score AS before, p.trust_score AS after
     ), o AS (
       INSERT INTO offenses (id, player_id, game_id, studio_id, type, description, severity, detected,
                             penalty_points, evidence, details, context, trust_score_after)
       SELECT $3::uuid, upd.id, $4, $5, $6, $7, $8, $9, upd.before - upd.after, $10, $11, $12, upd.after FROM upd
       RETURNING *
     ), link AS (
       INSERT INTO player_games (player_id, game_id) SELECT id, $4 FROM upd ON CONFLICT DO NOTHING
     ), ob AS (
       INSERT INTO outbox (queue, job_name, job_id, payload)
       SELECT j.queue, j.job_name, j.job_id, jsonb_build_object('offenseId', o.id)
         FROM o CROSS JOIN jsonb_to_recordset($13::jsonb) AS j(queue text, job_name text, job_id text)
       RETURNING id, queue, job_name, job_id, payload
     )
     SELECT ${OFFENSE_SELECT.replace('p.service_id', 'upd.service_id')}, upd.after AS trust_score,
            (SELECT json_agg(ob) FROM ob) AS outbox
       FROM o, upd`,
    values: [
      input.serviceId,
      input.penalty,
      input.offenseId,
      input.gameId,
      input.studioId,
      r.type,
      r.description,
      r.severity,
      r.detected,
      JSON.stringify(r.evidence),
      JSON.stringify(r.details),
      JSON.stringify(r.context),
      JSON.stringify(
        offenseJobs(input.offenseId).map((j) => ({ queue: j.queue, job_name: j.jobName, job_id: j.jobId })),
      ),
    ],
  });
  const row = rows[0];
  if (!row) return undefined;
  return {
    offense: offenseFromRow(row),
    trustScore: row.trust_score,
    outbox: row.outbox.map((o) => ({ ...o, id: String(o.id) })),
  };
}

interface ProfileRow {
  service_id: string;
  full_name: string;
  gamer_tag: string;
  trust_score: number;
  is_kyc_verified: boolean;
  games: { gameTitle: string; linkedAt: string }[];
  offenses: OffenseRow[];
  offense_count: number;
}

/**
 * Players with linked games, the newest `limit` offenses and the total count, by service id, in one
 * round trip however many are asked for. Unknown ids are absent from the map.
 */
export async function findProfiles(
  db: Queryable,
  serviceIds: readonly string[],
  limit: number,
): Promise<Map<string, PlayerProfile>> {
  const { rows } = await db.query<ProfileRow>({
    name: 'find-profiles',
    text: `SELECT p.service_id, p.full_name, p.gamer_tag, p.trust_score, p.is_kyc_verified,
       (SELECT coalesce(json_agg(json_build_object('gameTitle', g.title, 'linkedAt', pg.linked_at)
                                 ORDER BY pg.linked_at, g.title), '[]')
          FROM player_games pg JOIN games g ON g.id = pg.game_id WHERE pg.player_id = p.id) AS games,
       (SELECT coalesce(json_agg(x ORDER BY x.created_at DESC, x.id DESC), '[]') FROM (
          SELECT ${OFFENSE_SELECT} FROM offenses o WHERE o.player_id = p.id
           ORDER BY o.created_at DESC, o.id DESC LIMIT $2) x) AS offenses,
       p.offense_count
     FROM players p WHERE p.service_id = ANY($1::text[])`,
    values: [[...new Set(serviceIds)], limit],
  });
  return new Map(
    rows.map((row) => [
      row.service_id,
      {
        serviceId: row.service_id,
        fullName: row.full_name,
        gamerTag: row.gamer_tag,
        trustScore: row.trust_score,
        isKycVerified: row.is_kyc_verified,
        games: row.games.map((g) => ({ gameTitle: g.gameTitle, linkedAt: new Date(g.linkedAt) })),
        offenses: row.offenses.map(offenseFromRow),
        offenseCount: row.offense_count,
      },
    ]),
  );
}

export interface OffensePage {
  items: OffenseRecord[];
  nextCursor: string | null;
}

/** Newest first, keyset-paginated on (created_at, id): stable while new offenses arrive. */
export async function listOffenses(
  db: Queryable,
  serviceId: string,
  limit: number,
  after?: { ts: string; id: string },
): Promise<OffensePage | undefined> {
  const { rows } = await db.query<OffenseRow & { player_exists: boolean }>(
    `SELECT ${OFFENSE_SELECT} FROM players p JOIN offenses o ON o.player_id = p.id
      WHERE p.service_id = $1 AND ($3::timestamptz IS NULL OR (o.created_at, o.id) < ($3::timestamptz, $4::uuid))
      ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    [serviceId, limit + 1, after?.ts ?? null, after?.id ?? null],
  );
  if (rows.length === 0) {
    const exists = await db.query('SELECT 1 FROM players WHERE service_id = $1', [serviceId]);
    if (!exists.rowCount) return undefined;
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(offenseFromRow),
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursor_ts, last.id) : null,
  };
}
