import { explainPriority, type PriorityExplained } from '../../domain/priority.js';
import { auditInWords } from '../../domain/audit-words.js';
import type { OffenseType, Severity } from '../../domain/reports.js';
import type { Queryable } from '../db.js';
import type { QueueVisibility } from './review-queues.js';

export const MODERATOR_ROLES = ['moderator', 'admin'] as const;
export type ModeratorRole = (typeof MODERATOR_ROLES)[number];
export const OUTCOMES = ['upheld', 'dismissed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface Moderator {
  id: string;
  username: string;
  displayName: string;
  role: ModeratorRole;
  createdAt: Date;
  disabled: boolean;
}

interface ModeratorRow {
  id: string;
  username: string;
  display_name: string;
  role: ModeratorRole;
  created_at: Date;
  disabled_at: Date | null;
}
// No password hash: only sign-in reads it (findModeratorCredentials).
const MODERATOR_COLUMNS = 'id, username, display_name, role, created_at, disabled_at';
const moderatorFromRow = (r: ModeratorRow): Moderator => ({
  id: r.id,
  username: r.username,
  displayName: r.display_name,
  role: r.role,
  createdAt: r.created_at,
  disabled: r.disabled_at !== null,
});

export async function insertModerator(
  db: Queryable,
  input: { username: string; displayName: string; role: ModeratorRole; passwordHash: string },
): Promise<Moderator> {
  const { rows } = await db.query<ModeratorRow>(
    `INSERT INTO moderators (username, display_name, role, password_hash) VALUES ($1, $2, $3, $4)
     RETURNING ${MODERATOR_COLUMNS}`,
    [input.username, input.displayName, input.role, input.passwordHash],
  );
  return moderatorFromRow(rows[0]!);
}

/** The moderator and the password hash, for sign-in only. */
export async function findModeratorCredentials(db: Queryable, username: string) {
  const { rows } = await db.query<ModeratorRow & { password_hash: string }>(
    `SELECT ${MODERATOR_COLUMNS}, password_hash FROM moderators WHERE username = $1`,
    [username],
  );
  return rows[0] && { moderator: moderatorFromRow(rows[0]), passwordHash: rows[0].password_hash };
}

/** An enabled moderator by id: what every authenticated moderator request checks. */
export async function findActiveModerator(db: Queryable, id: string): Promise<Moderator | undefined> {
  const { rows } = await db.query<ModeratorRow>({
    name: 'find-active-moderator',
    text: `SELECT ${MODERATOR_COLUMNS} FROM moderators WHERE id = $1 AND disabled_at IS NULL`,
    values: [id],
  });
  return rows[0] && moderatorFromRow(rows[0]);
}

export async function listModerators(db: Queryable): Promise<Moderator[]> {
  const { rows } = await db.query<ModeratorRow>(
    `SELECT ${MODERATOR_COLUMNS} FROM moderators ORDER BY username`,
  );
  return rows.map(moderatorFromRow);
}

export async function setModeratorDisabled(db: Queryable, username: string, disabled: boolean) {
  const { rows } = await db.query<ModeratorRow>(
    `UPDATE moderators SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END
      WHERE username = $1 RETURNING ${MODERATOR_COLUMNS}`,
    [username, disabled],
  );
  return rows[0] && moderatorFromRow(rows[0]);
}

export interface CaseRecord {
  id: string;
  player: { serviceId: string; gamerTag: string; trustScore: number };
  type: OffenseType;
  status: 'open' | 'resolved';
  priority: number;
  reportsCount: number;
  highestSeverity: Severity;
  totalPenalty: number;
  distinctGames: number;
  distinctReporters: number;
  /** Points held for a moderator by the case's reports (applied if upheld, dropped if dismissed). */
  heldPoints: number;
  /** Its priority on a 0-100 scale, and the inputs that make it (common/domain/priority.ts). */
  priorityWhy: PriorityExplained;
  /** It holds an urgent notice (docs/moderators.md "Notices": "Urgent notices"). */
  urgent: boolean;
  /** When an open case should have been reviewed by (from its highest severity). */
  dueAt: Date | null;
  overdue: boolean;
  openedAt: Date;
  updatedAt: Date;
  /** The current claim; null when unclaimed or when the lease ran out. */
  claim: { moderatorId: string; username: string; expiresAt: Date } | null;
  /** The moderator an admin assigned it to. */
  assignedTo: { moderatorId: string; username: string } | null;
  /** Escalated to the senior role (admins), with the note that says why. */
  escalation: { at: Date; note: string } | null;
  /** The team's tags on it, in order. */
  tags: string[];
  /** The review queue it is in; pinned when a moderator moved it there (the rules leave it be). */
  queue: { key: string; name: string; visibleTo: QueueVisibility; pinned: boolean };
  resolution: {
    outcome: Outcome;
    note: string;
    moderatorId: string;
    username: string;
    resolvedAt: Date;
    pointsRestored: number;
  } | null;
  /** Internal: the player's row id, and the sort keys of the queue's cursor. */
  playerRowId: string;
  cursorKeys: string[];
}

interface CaseRow {
  id: string;
  player_id: string;
  service_id: string;
  gamer_tag: string;
  trust_score: number;
  type: OffenseType;
  status: 'open' | 'resolved';
  priority: string;
  reports_count: number;
  highest_severity: Severity;
  total_penalty: number;
  distinct_games: number;
  distinct_reporters: number;
  held_points: number;
  max_confidence: number;
  earlier_offenses: number;
  flagged_by_trusted: boolean;
  urgent: boolean;
  priority_floor: number | null;
  due_at: Date | null;
  overdue: boolean;
  opened_at: Date;
  updated_at: Date;
  claimed_by: string | null;
  claim_active: boolean;
  claim_expires_at: Date | null;
  claimer: string | null;
  outcome: Outcome | null;
  resolution_note: string | null;
  resolved_by: string | null;
  resolver: string | null;
  resolved_at: Date | null;
  points_restored: number;
  opened_ts: string;
  resolved_ts: string | null;
  assigned_to: string | null;
  assignee: string | null;
  escalated_at: Date | null;
  escalation_note: string | null;
  tags: string[];
  queue_key: string;
  queue_name: string;
  queue_visible_to: QueueVisibility;
  queue_pinned: boolean;
}

const CASE_SELECT = `c.id, c.player_id, p.service_id, p.gamer_tag, p.trust_score, c.type, c.status, c.priority::text,
  c.reports_count, c.highest_severity, c.total_penalty, c.distinct_games, c.distinct_reporters, c.held_points, c.due_at,
  c.max_confidence::float8, c.earlier_offenses, c.flagged_by_trusted, c.urgent, c.priority_floor::float8,
  (c.status = 'open' AND c.due_at < now()) AS overdue, c.opened_at, c.updated_at,
  c.claimed_by, (c.claimed_by IS NOT NULL AND c.claim_expires_at > now()) AS claim_active, c.claim_expires_at,
  cm.username AS claimer, c.outcome, c.resolution_note, c.resolved_by, rm.username AS resolver, c.resolved_at,
  c.points_restored, to_json(c.opened_at)#>>'{}' AS opened_ts, to_json(c.resolved_at)#>>'{}' AS resolved_ts,
  c.assigned_to, am.username AS assignee, c.escalated_at, c.escalation_note,
  c.queue_key, q.name AS queue_name, q.visible_to AS queue_visible_to, c.queue_pinned,
  ARRAY(SELECT t.tag FROM tags t WHERE t.subject_kind = 'case' AND t.subject_id = c.id ORDER BY t.tag) AS tags
  FROM review_cases c JOIN players p ON p.id = c.player_id
  LEFT JOIN moderators cm ON cm.id = c.claimed_by LEFT JOIN moderators rm ON rm.id = c.resolved_by
  LEFT JOIN moderators am ON am.id = c.assigned_to JOIN review_queues q ON q.key = c.queue_key`;

function caseFromRow(r: CaseRow): CaseRecord {
  return {
    id: r.id,
    player: { serviceId: r.service_id, gamerTag: r.gamer_tag, trustScore: r.trust_score },
    type: r.type,
    status: r.status,
    priority: Number(r.priority),
    reportsCount: r.reports_count,
    highestSeverity: r.highest_severity,
    totalPenalty: r.total_penalty,
    distinctGames: r.distinct_games,
    distinctReporters: r.distinct_reporters,
    heldPoints: r.held_points,
    priorityWhy: explainPriority({
      highestSeverity: r.highest_severity,
      maxConfidence: r.max_confidence,
      distinctGames: r.distinct_games,
      distinctReporters: r.distinct_reporters,
      earlierOffenses: r.earlier_offenses,
      heldPoints: r.held_points,
      flaggedByTrusted: r.flagged_by_trusted,
      urgent: r.urgent,
      priorityFloor: r.priority_floor,
    }),
    urgent: r.urgent,
    dueAt: r.due_at,
    overdue: r.overdue,
    openedAt: r.opened_at,
    updatedAt: r.updated_at,
    claim:
      r.status === 'open' && r.claim_active && r.claimed_by
        ? { moderatorId: r.claimed_by, username: r.claimer!, expiresAt: r.claim_expires_at! }
        : null,
    resolution:
      r.outcome && r.resolved_by && r.resolved_at
        ? {
            outcome: r.outcome,
            note: r.resolution_note ?? '',
            moderatorId: r.resolved_by,
            username: r.resolver!,
            resolvedAt: r.resolved_at,
            pointsRestored: r.points_restored,
          }
        : null,
    assignedTo: r.assigned_to ? { moderatorId: r.assigned_to, username: r.assignee! } : null,
    escalation: r.escalated_at ? { at: r.escalated_at, note: r.escalation_note ?? '' } : null,
    tags: r.tags,
    queue: { key: r.queue_key, name: r.queue_name, visibleTo: r.queue_visible_to, pinned: r.queue_pinned },
    playerRowId: r.player_id,
    cursorKeys: r.status === 'open' ? [r.priority, r.opened_ts, r.id] : [r.resolved_ts ?? '', r.id],
  };
}

/** One case; with `lock`, its row is locked for the caller's transaction. */
export async function findCase(db: Queryable, id: string, lock = false): Promise<CaseRecord | undefined> {
  const { rows } = await db.query<CaseRow>(
    `SELECT ${CASE_SELECT} WHERE c.id = $1${lock ? ' FOR UPDATE OF c' : ''}`,
    [id],
  );
  return rows[0] ? caseFromRow(rows[0]) : undefined;
}

export interface CaseFilter {
  status: 'open' | 'resolved';
  type?: OffenseType;
  severity?: Severity;
  /** any, mine (claimed by `moderatorId`; none without one), unclaimed (no live claim) */
  claimed: 'any' | 'mine' | 'unclaimed';
  serviceId?: string;
  /** Cases of players whose serviceId or gamer tag (any case) starts with this. */
  player?: string;
  /** Cases with this tag. */
  tag?: string;
  /** Only open cases past their due time. */
  overdue?: boolean;
  /** Open cases: by priority (the default) or by age, oldest first. */
  sort?: 'priority' | 'age';
  moderatorId?: string;
  /** mine: assigned to `moderatorId`. */
  assigned?: 'any' | 'mine';
  /** Escalated cases: left out (a moderator's queue), only them, or both (an admin's). */
  escalated?: 'exclude' | 'only' | 'include';
  /** Only the cases in this review queue. */
  queue?: string;
  /** Only the cases of queues of these visibilities (a moderator's list: visibilitiesSeenBy). */
  visibilities?: QueueVisibility[];
}

/**
 * The queue: open cases by priority (highest first, then oldest), resolved ones newest first.
 * Keyset-paginated on the sort keys; a case whose priority changes while one pages may move.
 */
export async function listCases(
  db: Queryable,
  filter: CaseFilter,
  limit: number,
  after?: string[],
): Promise<{ items: CaseRecord[]; next: string[] | null }> {
  const open = filter.status === 'open';
  const byAge = open && filter.sort === 'age';
  const params: unknown[] = [];
  /** The placeholder of one more parameter. */
  const p = (value: unknown) => `$${params.push(value)}`;
  const where = [`c.status = ${p(filter.status)}`];
  if (filter.type) where.push(`c.type = ${p(filter.type)}`);
  if (filter.severity) where.push(`c.highest_severity = ${p(filter.severity)}`);
  if (filter.serviceId) where.push(`p.service_id = ${p(filter.serviceId)}`);
  if (filter.player) {
    // Each side one range of a text_pattern_ops index (migration 022).
    const prefix = p(`${filter.player.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(`c.player_id IN (SELECT id FROM players WHERE service_id LIKE ${prefix}
                 UNION SELECT id FROM players WHERE lower(gamer_tag) LIKE lower(${prefix}))`);
  }
  if (filter.overdue) where.push('c.due_at < now()');
  if (filter.tag)
    where.push(
      `c.id IN (SELECT subject_id FROM tags WHERE subject_kind = 'case' AND tag = ${p(filter.tag)})`,
    );
  if (filter.queue) where.push(`c.queue_key = ${p(filter.queue)}`);
  if (filter.visibilities) where.push(`q.visible_to = ANY (${p(filter.visibilities)}::text[])`);
  if (filter.assigned === 'mine') where.push(`c.assigned_to = ${p(filter.moderatorId ?? null)}`);
  if (filter.escalated === 'only') where.push('c.escalated_at IS NOT NULL');
  else if (filter.escalated !== 'include') where.push("(c.escalated_at IS NULL OR c.status = 'resolved')");
  if (filter.claimed === 'mine')
    where.push(`c.claimed_by = ${p(filter.moderatorId ?? null)} AND c.claim_expires_at > now()`);
  else if (filter.claimed === 'unclaimed')
    where.push('(c.claimed_by IS NULL OR c.claim_expires_at <= now())');
  if (after) {
    const k = after.map(p);
    where.push(
      byAge
        ? `(c.opened_at, c.id) > (${k[0]}::timestamptz, ${k[1]}::uuid)`
        : open
          ? `(c.priority < ${k[0]}::numeric OR (c.priority = ${k[0]}::numeric AND (c.opened_at, c.id) > (${k[1]}::timestamptz, ${k[2]}::uuid)))`
          : `(c.resolved_at, c.id) < (${k[0]}::timestamptz, ${k[1]}::uuid)`,
    );
  }
  const order = byAge
    ? 'c.opened_at, c.id'
    : open
      ? 'c.priority DESC, c.opened_at, c.id'
      : 'c.resolved_at DESC, c.id DESC';
  const { rows } = await db.query<CaseRow>(
    `SELECT ${CASE_SELECT} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${p(limit + 1)}`,
    params,
  );
  const items = rows.slice(0, limit).map(caseFromRow);
  const last = items[items.length - 1];
  const keys = last && (byAge ? last.cursorKeys.slice(1) : last.cursorKeys);
  return { items, next: rows.length > limit && keys ? keys : null };
}

/** Every action the audit log records (the table's check constraint lists the same). */
export const AUDIT_ACTIONS = [
  'claim',
  'release',
  'resolve',
  'mute_reporter',
  'unmute_reporter',
  'place_sanction',
  'revoke_sanction',
  'claim_appeal',
  'decide_appeal',
  'release_appeal',
  'add_note',
  'assign',
  'escalate',
  'edit_routing',
  'register_flagger',
  'suspend_flagger',
  'reinstate_flagger',
  'mark_unfounded',
  'warn_sender',
  'suspend_sender',
  'lift_suspension',
  'run_retention',
  'create_wave',
  'approve_wave',
  'cancel_wave',
  'roll_back_wave',
  'save_rule',
  'rule_action',
  'approve_rule',
  'clear_evasion',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  id: string;
  /** Who acted: a moderator, or (placing and revoking its own sanctions) a studio. */
  moderator: { id: string; username: string } | null;
  studioId: string | null;
  /** The studio that acted, by name (null when a moderator did). */
  studio: { id: string; name: string } | null;
  /** The player the action was about (null for muting a reporter). */
  player: { serviceId: string; gamerTag: string } | null;
  /** The reporter muted or unmuted, with its studio by name. */
  reporter: { studioId: string; studioName: string; reporterId: string } | null;
  /** null for actions outside a case (muting a reporter). */
  caseId: string | null;
  action: AuditAction;
  /** What was done, in words (common/domain/audit-words.ts). */
  summary: string;
  outcome: Outcome | null;
  note: string | null;
  trustScoreBefore: number | null;
  trustScoreAfter: number | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

/**
 * SQL: the names an audit entry `a` speaks of, for auditInWords: the queue it names (an escalation,
 * a routing change) and the studio a sanction it placed or revoked is limited to.
 */
export const AUDIT_NAMES_SQL = `(SELECT q.name FROM review_queues q WHERE q.key = a.details->>'queue') AS queue_name,
  (SELECT sc.name FROM studios sc
    WHERE a.action IN ('place_sanction', 'revoke_sanction') AND a.details->>'scope' <> 'global'
      AND sc.id = (a.details->>'scope')::uuid) AS scope_name`;

export async function insertAudit(
  db: Queryable,
  entry: Omit<
    AuditEntry,
    'id' | 'createdAt' | 'moderator' | 'studioId' | 'summary' | 'studio' | 'player' | 'reporter'
  > &
    ({ moderatorId: string; studioId?: undefined } | { moderatorId: null; studioId: string }),
): Promise<void> {
  await db.query(
    // The player it was about, from what the entry names: its case, its appeal or its sanction's player.
    `INSERT INTO moderation_audit (moderator_id, case_id, action, outcome, note, trust_score_before,
                                   trust_score_after, details, studio_id, player_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce(
       (SELECT c.player_id FROM review_cases c WHERE c.id = $2),
       (SELECT ap.player_id FROM appeals ap WHERE ap.id = ($8::jsonb->>'appealId')::uuid),
       (SELECT p.id FROM players p WHERE p.service_id = $8::jsonb->>'playerId')))`,
    [
      entry.moderatorId,
      entry.caseId,
      entry.action,
      entry.outcome,
      entry.note,
      entry.trustScoreBefore,
      entry.trustScoreAfter,
      JSON.stringify(entry.details),
      entry.studioId ?? null,
    ],
  );
}

/** Audit entries, newest first, keyset-paginated on the id; filters by case and by moderator. */
export async function listAudit(
  db: Queryable,
  filter: { caseId?: string; moderatorId?: string; moderator?: string; player?: string },
  limit: number,
  beforeId?: string,
): Promise<{ items: AuditEntry[]; next: string | null }> {
  const { rows } = await db.query<{
    id: string;
    moderator_id: string | null;
    username: string | null;
    studio_id: string | null;
    case_id: string | null;
    action: AuditEntry['action'];
    outcome: Outcome | null;
    note: string | null;
    trust_score_before: number | null;
    trust_score_after: number | null;
    details: Record<string, unknown>;
    created_at: Date;
    studio_name: string | null;
    player_service_id: string | null;
    player_gamer_tag: string | null;
    reporter_studio_name: string | null;
    queue_name: string | null;
    scope_name: string | null;
  }>(
    // Names for every id a person reads: the acting studio, the player, a muted reporter's studio.
    // A username or serviceId filter becomes the row id it names first, so each filter is one
    // index range (by case, moderator or player, then id), whatever the size of the log.
    `SELECT a.id::text, a.moderator_id, m.username, a.studio_id, a.case_id, a.action, a.outcome, a.note,
            a.trust_score_before, a.trust_score_after, a.details, a.created_at, st.name AS studio_name,
            p.service_id AS player_service_id, p.gamer_tag AS player_gamer_tag, rs.name AS reporter_studio_name,
            ${AUDIT_NAMES_SQL}
       FROM moderation_audit a LEFT JOIN moderators m ON m.id = a.moderator_id
       LEFT JOIN studios st ON st.id = a.studio_id
       LEFT JOIN players p ON p.id = a.player_id
       LEFT JOIN studios rs ON a.action IN ('mute_reporter', 'unmute_reporter') AND rs.id = (a.details->>'studioId')::uuid
      WHERE ($1::uuid IS NULL OR a.case_id = $1) AND ($2::uuid IS NULL OR a.moderator_id = $2)
        AND ($5::text IS NULL OR a.moderator_id = (SELECT id FROM moderators WHERE username = lower($5)))
        AND ($6::text IS NULL OR a.player_id = (SELECT id FROM players WHERE service_id = $6))
        AND ($3::bigint IS NULL OR a.id < $3)
      ORDER BY a.id DESC LIMIT $4`,
    [
      filter.caseId ?? null,
      filter.moderatorId ?? null,
      beforeId ?? null,
      limit + 1,
      filter.moderator ?? null,
      filter.player ?? null,
    ],
  );
  const items = rows.slice(0, limit).map((r) => ({
    id: r.id,
    moderator: r.moderator_id ? { id: r.moderator_id, username: r.username! } : null,
    studioId: r.studio_id,
    studio: r.studio_id ? { id: r.studio_id, name: r.studio_name! } : null,
    player: r.player_service_id ? { serviceId: r.player_service_id, gamerTag: r.player_gamer_tag! } : null,
    reporter:
      r.reporter_studio_name !== null
        ? {
            studioId: String(r.details.studioId),
            studioName: r.reporter_studio_name,
            reporterId: String(r.details.reporterId),
          }
        : null,
    caseId: r.case_id,
    action: r.action,
    summary: auditInWords({
      action: r.action,
      outcome: r.outcome,
      details: r.details,
      queueName: r.queue_name,
      scopeName: r.scope_name,
    }),
    outcome: r.outcome,
    note: r.note,
    trustScoreBefore: r.trust_score_before,
    trustScoreAfter: r.trust_score_after,
    details: r.details,
    createdAt: r.created_at,
  }));
  return { items, next: rows.length > limit ? items[items.length - 1]!.id : null };
}

/** Open cases past their due time: the overdue gauge. */
export async function countOverdue(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM review_cases WHERE status = 'open' AND due_at < now()`,
  );
  return rows[0]!.n;
}

export interface ReviewStats {
  open: number;
  overdue: number;
  days: { date: string; inbound: number; resolved: number; medianHandlingSeconds: number | null }[];
}

/**
 * The review team's figures: open and overdue cases now, and for each of the last `days` days (UTC)
 * the cases opened, the cases resolved and the median time from opening to resolution of those.
 */
export async function reviewStats(db: Queryable, days: number): Promise<ReviewStats> {
  const { rows } = await db.query<{
    open: number;
    overdue: number;
    days: { date: string; inbound: number; resolved: number; median: number | null }[];
  }>(
    `WITH d AS (
       SELECT generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => $1 - 1),
                              date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day') AS day),
     inbound AS (
       SELECT date_trunc('day', opened_at AT TIME ZONE 'UTC') AS day, count(*)::int AS n FROM review_cases
        WHERE opened_at >= (SELECT min(day) FROM d) AT TIME ZONE 'UTC' GROUP BY 1),
     resolved AS (
       SELECT date_trunc('day', resolved_at AT TIME ZONE 'UTC') AS day, count(*)::int AS n,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM resolved_at - opened_at)) AS median
         FROM review_cases
        WHERE status = 'resolved' AND resolved_at >= (SELECT min(day) FROM d) AT TIME ZONE 'UTC' GROUP BY 1)
     SELECT (SELECT count(*)::int FROM review_cases WHERE status = 'open') AS open,
            (SELECT count(*)::int FROM review_cases WHERE status = 'open' AND due_at < now()) AS overdue,
            (SELECT json_agg(json_build_object('date', to_char(d.day, 'YYYY-MM-DD'),
                                               'inbound', coalesce(i.n, 0), 'resolved', coalesce(r.n, 0),
                                               'median', r.median) ORDER BY d.day DESC)
               FROM d LEFT JOIN inbound i ON i.day = d.day LEFT JOIN resolved r ON r.day = d.day) AS days`,
    [days],
  );
  const r = rows[0]!;
  return {
    open: r.open,
    overdue: r.overdue,
    days: r.days.map((d) => ({
      date: d.date,
      inbound: d.inbound,
      resolved: d.resolved,
      medianHandlingSeconds: d.median === null ? null : Math.round(d.median),
    })),
  };
}

/** Sets a moderator's password hash; answers their id, undefined when no such moderator. */
export async function setModeratorPassword(
  db: Queryable,
  username: string,
  passwordHash: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    'UPDATE moderators SET password_hash = $2 WHERE username = $1 RETURNING id',
    [username, passwordHash],
  );
  return rows[0]?.id;
}

/** An enabled moderator by username; undefined when none (or disabled). */
export async function enabledModerator(
  db: Queryable,
  username: string,
): Promise<{ id: string; role: ModeratorRole } | undefined> {
  const { rows } = await db.query<{ id: string; role: ModeratorRole }>(
    'SELECT id, role FROM moderators WHERE username = $1 AND disabled_at IS NULL',
    [username],
  );
  return rows[0];
}
