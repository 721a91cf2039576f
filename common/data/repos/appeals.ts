import type { OffenseStatus } from '../shapes/offense.js';
import type { Queryable } from '../db.js';

import type { AppealReason } from '../../domain/appeals.js';
import type { AppealStatus } from '../shapes/appeal.js';

export { APPEAL_REASONS, type AppealReason } from '../../domain/appeals.js';

export interface AppealRecord {
  id: string;
  serviceId: string;
  /** The player's gamer tag, for people to read. */
  gamerTag: string;
  /** A sanction or offense the player contests, or a notice whose dismissal its notifier contests. */
  subject: { kind: 'sanction' | 'offense' | 'notice'; id: string };
  reason: AppealReason;
  statement: string;
  filedBy: { kind: 'player' } | { kind: 'studio'; id: string } | { kind: 'notifier' };
  status: AppealStatus;
  claim: { moderatorId: string; expiresAt: Date } | null;
  decision: {
    moderatorId: string;
    decidedAt: Date;
    note: string;
    pointsRefunded: number;
    /** A granted appeal: the sanctions of the contested decision it revoked. */
    sanctionsRevoked: string[];
    /** A granted appeal: the sanctions of that decision the moderator kept, each with its ground. */
    sanctionsKept: KeptSanction[];
    /** A notifier's complaint granted: the case open again with the notice. */
    reopenedCaseId?: string;
  } | null;
  createdAt: Date;
  /** Internal: the player's row id. */
  playerRowId: string;
}

/** A sanction a granted appeal leaves in force, and the ground the player reads for it. */
export interface KeptSanction {
  sanctionId: string;
  reason: string;
}

interface AppealRow {
  id: string;
  player_id: string;
  service_id: string;
  gamer_tag: string;
  sanction_id: string | null;
  offense_id: string | null;
  notice_id: string | null;
  reopened_case_id: string | null;
  reason: AppealReason;
  statement: string;
  filed_by_studio: string | null;
  status: AppealRecord['status'];
  claimed_by: string | null;
  claim_live: boolean;
  claim_expires_at: Date | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  points_refunded: number;
  sanctions_revoked: string[];
  sanctions_kept: KeptSanction[];
  created_at: Date;
}

export const APPEAL_SELECT = `a.id, a.player_id, p.service_id, p.gamer_tag, a.sanction_id, a.offense_id, a.notice_id, a.reason, a.statement,
  a.filed_by_studio, a.status, a.claimed_by, (a.claimed_by IS NOT NULL AND a.claim_expires_at > now()) AS claim_live,
  a.claim_expires_at, a.decided_by, a.decided_at, a.decision_note, a.points_refunded, a.sanctions_revoked,
  a.sanctions_kept, a.reopened_case_id, a.created_at
  FROM appeals a JOIN players p ON p.id = a.player_id`;

export const appealFromRow = (r: AppealRow): AppealRecord => ({
  id: r.id,
  serviceId: r.service_id,
  gamerTag: r.gamer_tag,
  subject: r.sanction_id
    ? { kind: 'sanction', id: r.sanction_id }
    : r.notice_id
      ? { kind: 'notice', id: r.notice_id }
      : { kind: 'offense', id: r.offense_id! },
  reason: r.reason,
  statement: r.statement,
  filedBy: r.filed_by_studio
    ? { kind: 'studio', id: r.filed_by_studio }
    : r.notice_id
      ? { kind: 'notifier' }
      : { kind: 'player' },
  status: r.status,
  claim:
    r.status === 'open' && r.claim_live && r.claimed_by
      ? { moderatorId: r.claimed_by, expiresAt: r.claim_expires_at! }
      : null,
  decision:
    r.decided_by && r.decided_at
      ? {
          moderatorId: r.decided_by,
          decidedAt: r.decided_at,
          note: r.decision_note ?? '',
          pointsRefunded: r.points_refunded,
          sanctionsRevoked: r.sanctions_revoked,
          sanctionsKept: r.sanctions_kept,
          ...(r.reopened_case_id ? { reopenedCaseId: r.reopened_case_id } : {}),
        }
      : null,
  createdAt: r.created_at,
  playerRowId: r.player_id,
});

export async function findAppeal(db: Queryable, id: string, lock = false): Promise<AppealRecord | undefined> {
  const { rows } = await db.query<AppealRow>(
    `SELECT ${APPEAL_SELECT} WHERE a.id = $1${lock ? ' FOR UPDATE OF a' : ''}`,
    [id],
  );
  return rows[0] && appealFromRow(rows[0]);
}

/**
 * A player's appeals, newest first (at most 100: a player has few). Not the complaints of notifiers
 * about notices on them: those are the notifiers', not the player's.
 */
export async function listPlayerAppeals(
  db: Queryable,
  serviceId: string,
  /** A studio sees the appeals it filed and those of its decisions and reports; null: all. */
  viewerStudioId: string | null = null,
  limit = 100,
): Promise<AppealRecord[]> {
  const { rows } = await db.query<AppealRow>(
    `SELECT ${APPEAL_SELECT}
      WHERE p.service_id = $1 AND a.notice_id IS NULL
        AND ($3::uuid IS NULL OR a.filed_by_studio = $3
             OR EXISTS (SELECT 1 FROM sanctions s WHERE s.id = a.sanction_id
                         AND (s.scope_studio_id = $3 OR s.issued_by_studio = $3))
             OR EXISTS (SELECT 1 FROM offenses o WHERE o.id = a.offense_id AND o.studio_id = $3))
      ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
    [serviceId, Math.min(limit, 100_000), viewerStudioId],
  );
  return rows.map(appealFromRow);
}

/** The appeals queue: by status, oldest first, keyset-paginated on (created_at, id). */
export async function listAppeals(
  db: Queryable,
  filter: { status: AppealRecord['status']; serviceId?: string },
  limit: number,
  after?: { ts: string; id: string },
): Promise<{ items: AppealRecord[]; next: { ts: string; id: string } | null }> {
  const { rows } = await db.query<AppealRow & { cursor_ts: string }>(
    `SELECT ${APPEAL_SELECT.replace(' FROM', `, to_json(a.created_at)#>>'{}' AS cursor_ts FROM`)}
      WHERE a.status = $1 AND ($2::text IS NULL OR p.service_id = $2)
        AND ($3::timestamptz IS NULL OR (a.created_at, a.id) > ($3::timestamptz, $4::uuid))
      ORDER BY a.created_at, a.id LIMIT $5`,
    [filter.status, filter.serviceId ?? null, after?.ts ?? null, after?.id ?? null, limit + 1],
  );
  const items = rows.slice(0, limit).map(appealFromRow);
  const last = rows[Math.min(rows.length, limit) - 1];
  return { items, next: rows.length > limit && last ? { ts: last.cursor_ts, id: last.id } : null };
}

/** A player's notice, with the offense it was filed as and that offense's held points. */
export async function noticeOfPlayer(db: Queryable, noticeId: string, playerRowId: string) {
  const { rows } = await db.query<{
    offense_id: string;
    penalty_held: number;
    sender_key: string;
    source: string;
  }>(
    `SELECT n.offense_id, o.penalty_held, n.sender_key, n.source
       FROM notices n JOIN offenses o ON o.id = n.offense_id WHERE n.id = $1 AND n.player_id = $2`,
    [noticeId, playerRowId],
  );
  return rows[0];
}

/** A player's sanction under its row lock, with who resolved its case (an appeal's subject). */
export async function lockSanctionOfPlayer(db: Queryable, sanctionId: string, playerRowId: string) {
  const { rows } = await db.query<{
    id: string;
    created_at: Date;
    issued_by_moderator: string | null;
    issued_by_studio: string | null;
    scope_studio_id: string | null;
    case_id: string | null;
    revoked: boolean;
    resolved_by: string | null;
  }>(
    `SELECT s.id, s.created_at, s.issued_by_moderator, s.issued_by_studio, s.scope_studio_id, s.case_id,
            s.revoked_at IS NOT NULL AS revoked, c.resolved_by
       FROM sanctions s LEFT JOIN review_cases c ON c.id = s.case_id
      WHERE s.id = $1 AND s.player_id = $2 FOR UPDATE OF s`,
    [sanctionId, playerRowId],
  );
  return rows[0];
}

/** A player's offense under its row lock, with its case and who resolved it (an appeal's subject). */
export async function lockOffenseOfPlayer(db: Queryable, offenseId: string, playerRowId: string) {
  const { rows } = await db.query<{
    id: string;
    created_at: Date;
    resolved_at: Date | null;
    studio_id: string;
    case_id: string | null;
    resolved_by: string | null;
    status: OffenseStatus;
  }>(
    `SELECT o.id, o.created_at, o.resolved_at, o.studio_id, co.case_id, c.resolved_by, o.status
       FROM offenses o LEFT JOIN case_offenses co ON co.offense_id = o.id
       LEFT JOIN review_cases c ON c.id = co.case_id
      WHERE o.id = $1 AND o.player_id = $2 FOR UPDATE OF o`,
    [offenseId, playerRowId],
  );
  return rows[0];
}

/** Whether an appeal of this subject (a sanction or an offense) was granted. */
export async function grantedAppealOf(db: Queryable, subjectId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM appeals WHERE status = 'granted' AND (sanction_id = $1 OR offense_id = $1)`,
    [subjectId],
  );
  return Boolean(rowCount);
}

/** The open appeal of a subject (a sanction or an offense), if any. */
export async function openAppealOf(db: Queryable, subjectId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM appeals WHERE status = 'open' AND (sanction_id = $1 OR offense_id = $1)`,
    [subjectId],
  );
  return rows[0]?.id ?? null;
}
