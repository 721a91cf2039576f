import { HONOR_LEVEL_SQL } from './honor.js';
import type { OffenseStatus, RestoredBy } from '../shapes/offense.js';
import { SUSPECTED } from './signals.js';
import type {
  EvidenceItem,
  NormalisedReport,
  OffenseType,
  ReportContext,
  Severity,
} from '../../domain/reports.js';
import { OFFENSE_BATCH_JOBS } from '../../queues/index.js';
import type { OutboxRow } from '../../queues/outbox.js';
import type { Queryable } from '../db.js';
import { encodeCursor } from '../../cursor.js';
import { isoSql, timeCursorSql } from '../render.js';
import { ACTIVE, VISIBLE_TO } from './sanctions.js';
import { DEDUP_SECONDS } from '../../domain/limits.js';

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
  /** Points held for a moderator instead of applied (what they were, once released or dropped). */
  penaltyHeld: number;
  status: OffenseStatus;
  statusReason: StatusReason | null;
  /** Points given back by a dismissal or a granted appeal (status restored; never above 100). */
  penaltyRestored: number;
  /** The decision that gave the points back (restored) or let the held ones go (dropped). */
  restoredBy: RestoredBy | null;
  restoredAt: Date | null;
  /** The full-precision sort key of keyset cursors (a Date keeps only milliseconds). */
  cursorTs: string;
}

/** What became of an offense's points: the life cycle in common/lifecycles/offense.ts. */
export type { OffenseStatus };
import type { StatusReason } from '../../domain/filing-rules.js';
export type { StatusReason };

/** Column list shared by every offense read; `cursor` is the full-precision sort key. */
const OFFENSE_SELECT = `o.id, p.service_id, o.game_id, o.studio_id, o.type, o.description, o.severity, o.penalty_points,
  o.evidence, o.details, o.context, o.reviewed_by_admin, o.resolved, o.resolved_at, o.created_at, o.updated_at,
  o.trust_score_after, o.penalty_held, o.status, o.status_reason, o.penalty_restored, o.restored_by, o.restored_at,
  to_json(o.created_at)#>>'{}' AS cursor_ts`;

/**
 * SQL: the offense `o` (joined with its player `p`) as a studio sees it, in the shape and key order
 * of presentOffense (common/views.ts): in full to the studio that filed it (or to a moderator, a
 * null `viewer`), a summary to any other. Rows of the named types of migration 029, whose field
 * names are the keys, which PostgreSQL renders faster than json_build_object. A test holds the two
 * equal on every kind of offense.
 */
export const offenseViewSql = (viewer: string) => {
  const base = `o.id, p.service_id, o.type, o.severity, o.penalty_points, o.penalty_held, o.status,
    o.penalty_restored, o.restored_by, ${isoSql('o.restored_at')}, o.reviewed_by_admin, o.resolved,
    ${isoSql('o.resolved_at')}, ${isoSql('o.created_at')}, ${isoSql('o.updated_at')}`;
  return `CASE WHEN ${viewer} IS NULL OR ${viewer} = o.studio_id
    THEN to_json(ROW(${base}, 'full', o.game_id, o.studio_id, o.description, o.evidence, o.details, o.context,
                     o.status_reason)::pt_offense_full)
    ELSE to_json(ROW(${base}, 'summary')::pt_offense_summary) END`;
};

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
  penalty_held: number;
  status: OffenseStatus;
  status_reason: StatusReason | null;
  penalty_restored: number;
  restored_by: RestoredBy | null;
  restored_at: Date | string | null;
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
    penaltyHeld: r.penalty_held,
    status: r.status,
    statusReason: r.status_reason,
    penaltyRestored: r.penalty_restored,
    restoredBy: r.restored_by,
    restoredAt: r.restored_at === null ? null : toDate(r.restored_at),
    cursorTs: r.cursor_ts,
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
                       WHERE w.deleted_at IS NULL AND w.enabled AND w.events && $2::text[]
                         AND w.studio_id::text = ANY (a.audience))
        ORDER BY o.created_at, o.id`,
    values: [ids, eventTypes],
  });
  return rows.map((r) => ({ offense: offenseFromRow(r), audience: r.audience }));
}

/** One report to file: the normalised report, its capped penalty, and the limits that apply to it. */
export interface ReportToRecord {
  offenseId: string;
  serviceId: string;
  gameId: string;
  studioId: string;
  report: NormalisedReport;
  penalty: number;
  /** A player's report (source player, or a reporterId without a source): credibility applies. */
  playerSourced: boolean;
  /** The W3C trace context of the request that filed it (tracing on), for its jobs to continue. */
  traceparent?: string | undefined;
  /**
   * Held for a moderator, whatever else: a notice (docs/moderators.md "Notices", Rule notice), or the
   * sign-in check's filing on a suspected evasion (docs/linked-accounts.md, Rule evasion_check).
   */
  hold?: 'notice' | 'evasion_check';
  policy: {
    reporterQuota: number;
    studioBudget: number;
    credibilityThreshold: number;
    credibilityMinHistory: number;
  };
}

export type RecordOutcome =
  | {
      status: 'created';
      offense: OffenseRecord;
      trustScore: number;
      quotaRemaining: number | null;
      outbox: OutboxRow[];
    }
  | { status: 'not_found' }
  | { status: 'duplicate'; offenseId: string }
  | { status: 'quota_exceeded'; retryAfterSeconds: number };

type OutcomeRow =
  | {
      status: 'created';
      offense: OffenseRow;
      trustScore: number;
      quotaRemaining: number | null;
      outbox: OutboxRow[];
    }
  | Exclude<RecordOutcome, { status: 'created' }>;

/** How the report statement writes the jobs it owes. */
export interface FilingOptions {
  /** QUEUE_SHARDS: one job a queue and shard. */
  queueShards: number;
}

/**
 * The items pt_file_reports takes: one JSON object a report, with its policy; the first also names
 * the jobs the batch owes and the number of queue shards they are grouped by.
 */
export function filingItems(items: readonly ReportToRecord[], options: FilingOptions = { queueShards: 1 }) {
  return items.map((i, k) => {
    const r = i.report;
    return {
      offenseId: i.offenseId,
      serviceId: i.serviceId,
      gameId: i.gameId,
      studioId: i.studioId,
      type: r.type,
      description: r.description,
      severity: r.severity,
      detected: r.detected,
      evidence: r.evidence,
      details: r.details,
      context: r.context,
      reporterId: r.context.reporterId ?? null,
      matchId: r.context.matchId ?? null,
      penalty: i.penalty,
      playerSourced: i.playerSourced,
      ...i.policy,
      dedupSecondsWithMatch: DEDUP_SECONDS.withMatch,
      dedupSecondsWithoutMatch: DEDUP_SECONDS.withoutMatch,
      ...(i.traceparent ? { traceparent: i.traceparent } : {}),
      ...(i.hold ? { hold: i.hold } : {}),
      ...(k === 0 ? { batchJobs: OFFENSE_BATCH_JOBS, queueShards: options.queueShards } : {}),
    };
  });
}

/**
 * Files reports in order, in one statement (so one round trip, and one implicit transaction unless
 * the caller holds one): pt_file_reports (common/data/functions/pt_file_reports.sql) locks each player's row, refuses a
 * duplicate or a reporter over quota, holds points beyond the studio's budget or from a reporter of
 * low credibility, lowers the score (floored at 0), inserts the offense and its history row, and
 * the batch's outbox rows: one job a queue and queue shard for all its offenses, each row in the
 * outcome of its first offense. One outcome per report, in the same order; nothing is written for a
 * refused one.
 */
export async function recordReports(
  db: Queryable,
  items: readonly ReportToRecord[],
  options?: FilingOptions,
): Promise<RecordOutcome[]> {
  const payload = filingItems(items, options);
  // Named: PostgreSQL parses and plans it once per connection instead of on every call.
  const { rows } = await db.query<{ r: OutcomeRow }>({
    name: 'file-reports',
    text: 'SELECT r FROM pt_file_reports($1::jsonb) AS r',
    values: [JSON.stringify(payload)],
  });
  return rows.map(({ r }) => (r.status === 'created' ? { ...r, offense: offenseFromRow(r.offense) } : r));
}

/** A profile asked for: the player, and the studio whose view it is (null: a moderator's, in full). */
export interface ProfileAsk {
  serviceId: string;
  viewerStudioId: string | null;
}

/**
 * Player profiles as the API answers them (PlayerDetailed: linked games, the newest `limit` offenses
 * as the viewer may see them, the count and the next page's cursor, the sanctions in force at `now`
 * the viewer may see), rendered to JSON text by PostgreSQL in one round trip however many are asked
 * for; undefined for a player that does not exist.
 */
export async function renderProfiles(
  db: Queryable,
  asks: readonly ProfileAsk[],
  limit: number,
  now: Date = new Date(),
): Promise<(string | undefined)[]> {
  const { rows } = await db.query<{ n: string; body: string }>({
    name: 'render-profiles',
    // Rows of the named types of migration 032 (and 029 for the offenses): compact JSON, as every
    // other answer, and cheaper to render than json_build_object and json_agg.
    text: `SELECT k.n, to_json(ROW(
         p.service_id, p.full_name, p.gamer_tag, p.trust_score, p.is_kyc_verified,
         (SELECT coalesce(to_json(array_agg(ROW(g.title, ${isoSql('pg.linked_at')})::pt_game_link
                                            ORDER BY pg.linked_at, g.title)), '[]'::json)
            FROM player_games pg JOIN games g ON g.id = pg.game_id WHERE pg.player_id = p.id),
         coalesce(off.list, '[]'::json),
         p.offense_count,
         CASE WHEN p.offense_count > off.shown THEN ${timeCursorSql('off.last_ts', 'off.last_id')} END,
         (SELECT coalesce(to_json(array_agg(ROW(s.id, s.type, coalesce(s.scope_studio_id::text, 'global'),
                                                ${isoSql('s.starts_at')}, ${isoSql('s.expires_at')}, s.matches_left)::pt_sanction_brief
                                            ORDER BY s.created_at DESC, s.id DESC)), '[]'::json)
            FROM sanctions s
           WHERE s.player_id = p.id AND ${ACTIVE('$4')} AND ${VISIBLE_TO('k.viewer')}),
         ${SUSPECTED('p.id', 'k.viewer', '$4')},
         ${HONOR_LEVEL_SQL('p.id')})::pt_profile)::text AS body
       FROM unnest($1::text[], $2::uuid[]) WITH ORDINALITY AS k(service_id, viewer, n)
       JOIN players p ON p.service_id = k.service_id
       CROSS JOIN LATERAL (
         SELECT to_json(array_agg(${offenseViewSql('k.viewer')} ORDER BY o.created_at DESC, o.id DESC)) AS list,
                count(*) AS shown, min(o.created_at) AS last_ts,
                (array_agg(o.id ORDER BY o.created_at, o.id))[1] AS last_id
           FROM (SELECT * FROM offenses o WHERE o.player_id = p.id
                  ORDER BY o.created_at DESC, o.id DESC LIMIT $3) o) off`,
    values: [asks.map((a) => a.serviceId), asks.map((a) => a.viewerStudioId), limit, now],
  });
  const bodies: (string | undefined)[] = new Array(asks.length).fill(undefined);
  for (const r of rows) bodies[Number(r.n) - 1] = r.body;
  return bodies;
}

export interface OffensePage {
  items: OffenseRecord[];
  nextCursor: string | null;
}

/** Whether the player exists: what tells an empty page of theirs from no player at all. */
async function playerExists(db: Queryable, serviceId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM players WHERE service_id = $1', [serviceId]);
  return Boolean(rowCount);
}

/**
 * A player's newest `limit` offenses as records, for moderators' screens (studios read them
 * rendered: renderOffensePage), with the cursor of the page after; undefined when there is no such
 * player.
 */
export async function listOffenses(
  db: Queryable,
  serviceId: string,
  limit: number,
): Promise<OffensePage | undefined> {
  const { rows } = await db.query<OffenseRow>(
    `SELECT ${OFFENSE_SELECT} FROM players p JOIN offenses o ON o.player_id = p.id
      WHERE p.service_id = $1 ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    [serviceId, limit + 1],
  );
  if (rows.length === 0 && !(await playerExists(db, serviceId))) return undefined;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(offenseFromRow),
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursor_ts, last.id) : null,
  };
}

/**
 * One page of a player's offenses as `viewerStudioId` may see them (null: in full), newest first:
 * each rendered to JSON text by PostgreSQL (offenseViewSql), and the next page's cursor; undefined
 * when there is no such player.
 */
export async function renderOffenseItems(
  db: Queryable,
  serviceId: string,
  viewerStudioId: string | null,
  limit: number,
  after?: { ts: string; id: string },
): Promise<{ items: string[]; nextCursor: string | null } | undefined> {
  const { rows } = await db.query<{ json: string; cursor: string }>({
    name: 'render-offense-page',
    text: `SELECT (${offenseViewSql('$5::uuid')})::text AS json, ${timeCursorSql('o.created_at', 'o.id')} AS cursor
             FROM players p JOIN offenses o ON o.player_id = p.id
            WHERE p.service_id = $1
              AND ($3::timestamptz IS NULL OR (o.created_at, o.id) < ($3::timestamptz, $4::uuid))
            ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
    values: [serviceId, limit + 1, after?.ts ?? null, after?.id ?? null, viewerStudioId],
  });
  if (rows.length === 0 && !(await playerExists(db, serviceId))) return undefined;
  const page = rows.slice(0, limit);
  return {
    items: page.map((r) => r.json),
    nextCursor: rows.length > limit ? page[page.length - 1]!.cursor : null,
  };
}

/** The same page as the API answers it: `{"items": [...], "nextCursor": ...}`, as text. */
export async function renderOffensePage(
  db: Queryable,
  serviceId: string,
  viewerStudioId: string | null,
  limit: number,
  after?: { ts: string; id: string },
): Promise<string | undefined> {
  const page = await renderOffenseItems(db, serviceId, viewerStudioId, limit, after);
  return page && `{"items":[${page.items.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
}

/** One offense by its id, with the name of the studio that filed it (for a moderator's screens). */
export async function findOffenseForModerator(
  db: Queryable,
  offenseId: string,
): Promise<{ offense: OffenseRecord; studioName: string; caseId: string | null } | undefined> {
  const { rows } = await db.query<OffenseRow & { studio_name: string; case_id: string | null }>(
    `SELECT ${OFFENSE_SELECT}, st.name AS studio_name,
            (SELECT co.case_id FROM case_offenses co WHERE co.offense_id = o.id LIMIT 1) AS case_id
       FROM offenses o JOIN players p ON p.id = o.player_id JOIN studios st ON st.id = o.studio_id
      WHERE o.id = $1`,
    [offenseId],
  );
  const r = rows[0];
  return r && { offense: offenseFromRow(r), studioName: r.studio_name, caseId: r.case_id };
}

/** A player's offenses reported in a window (a stolen account's), with the case each is in. */
export async function offensesFiledBetween(
  db: Queryable,
  playerRowId: string,
  window: { from: Date; to: Date },
): Promise<{ id: string; caseId: string | null }[]> {
  const { rows } = await db.query<{ id: string; case_id: string | null }>(
    `SELECT o.id, co.case_id FROM offenses o LEFT JOIN case_offenses co ON co.offense_id = o.id
      WHERE o.player_id = $1 AND o.created_at >= $2 AND o.created_at <= $3
      ORDER BY o.created_at, o.id`,
    [playerRowId, window.from, window.to],
  );
  return rows.map((r) => ({ id: r.id, caseId: r.case_id }));
}
