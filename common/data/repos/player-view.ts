import type { Queryable } from '../db.js';
import { AUDIT_NAMES_SQL } from './moderation.js';

/** The moderators' screens of one player (common/usecases/player-view.ts): what they read. */

export type TimelineKind = 'report' | 'score' | 'decision' | 'appeal' | 'note';
export type TimelineWho = 'studio' | 'moderator' | 'player' | 'service';

/** The player with their strikes in force at `now`; undefined when there is no such player. */
export async function playerForModerator(db: Queryable, serviceId: string, now: Date) {
  const { rows } = await db.query<{
    service_id: string;
    gamer_tag: string;
    full_name: string;
    trust_score: number;
    is_kyc_verified: boolean;
    created_at: Date;
    active_strikes: number;
  }>(
    `SELECT p.service_id, p.gamer_tag, p.full_name, p.trust_score, p.is_kyc_verified, p.created_at,
            (SELECT count(*)::int FROM strikes s
              WHERE s.player_id = p.id AND s.removed_at IS NULL AND s.expires_at > $2) AS active_strikes
       FROM players p WHERE p.service_id = $1`,
    [serviceId, now],
  );
  return rows[0];
}

/** A player's tags, in order. */
export async function tagsOfPlayer(db: Queryable, serviceId: string): Promise<string[]> {
  const { rows } = await db.query<{ tag: string }>(
    `SELECT t.tag FROM tags t JOIN players p ON p.id = t.subject_id
          WHERE t.subject_kind = 'player' AND p.service_id = $1 ORDER BY t.tag`,
    [serviceId],
  );
  return rows.map((r) => r.tag);
}

/**
 * The work waiting, as counts: open cases of the queues `visibleTo` may see (and how many are
 * overdue), open appeals, cases resolved in the last 24 hours.
 */
export async function openWorkCounts(db: Queryable, visibleTo: string[]) {
  const { rows } = await db.query<{ open: number; overdue: number; appeals: number; resolved24h: number }>(
    `WITH listed AS (
       SELECT c.due_at FROM review_cases c JOIN review_queues q ON q.key = c.queue_key
        WHERE c.status = 'open' AND c.escalated_at IS NULL AND q.visible_to = ANY ($1::text[]))
     SELECT (SELECT count(*)::int FROM listed) AS open,
            (SELECT count(*)::int FROM listed WHERE due_at < now()) AS overdue,
            (SELECT count(*)::int FROM appeals WHERE status = 'open') AS appeals,
            (SELECT count(*)::int FROM review_cases
              WHERE status = 'resolved' AND resolved_at > now() - interval '24 hours') AS "resolved24h"`,
    [visibleTo],
  );
  return rows[0]!;
  return rows[0]!;
}

/** The rows of a player's timeline (by row id), newest first, at most `limit` of each kind. */
export async function timelineRows(db: Queryable, playerRowId: string, limit: number) {
  const { rows } = await db.query<{
    at: Date;
    kind: TimelineKind;
    who_kind: TimelineWho;
    who_name: string | null;
    what: string | null;
    why: string | null;
    case_id: string | null;
    action: string | null;
    outcome: string | null;
    details: Record<string, unknown> | null;
    queue_name: string | null;
    scope_name: string | null;
    score_before: number | null;
    score_after: number | null;
  }>(
    // At the same instant (one transaction), the consequence is listed above its cause: newest first.
    // A decision's words come from its audit entry (auditInWords), as the audit log says them.
    `(SELECT o.created_at AS at, 1 AS rank, 'report' AS kind, 'studio' AS who_kind, st.name AS who_name,
             o.type || ' report, ' || o.severity || ': ' || o.penalty_points || ' points taken, ' || o.penalty_held
               || ' held (' || o.status || ')' AS what,
             o.status_reason AS why, (SELECT co.case_id FROM case_offenses co WHERE co.offense_id = o.id LIMIT 1) AS case_id,
             NULL AS action, NULL AS outcome, NULL::jsonb AS details, NULL AS queue_name, NULL AS scope_name,
             NULL::int AS score_before, NULL::int AS score_after
        FROM offenses o JOIN studios st ON st.id = o.studio_id
       WHERE o.player_id = $1 ORDER BY o.created_at DESC LIMIT $2)
     UNION ALL
     (SELECT h.created_at, 3, 'score', 'service', NULL,
             'score ' || h.score_before || ' → ' || h.score_after, h.reason, h.case_id,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL
        FROM trust_history h WHERE h.player_id = $1 ORDER BY h.id DESC LIMIT $2)
     UNION ALL
     (SELECT a.created_at, 2, CASE WHEN a.action = 'add_note' THEN 'note' ELSE 'decision' END,
             CASE WHEN a.moderator_id IS NOT NULL THEN 'moderator' ELSE 'studio' END,
             coalesce(m.username, st.name), NULL, a.note, a.case_id,
             a.action, a.outcome, a.details, ${AUDIT_NAMES_SQL}, a.trust_score_before, a.trust_score_after
        FROM moderation_audit a LEFT JOIN moderators m ON m.id = a.moderator_id
        LEFT JOIN studios st ON st.id = a.studio_id
       WHERE a.player_id = $1 AND a.action NOT IN ('claim', 'release', 'claim_appeal', 'release_appeal')
       ORDER BY a.id DESC LIMIT $2)
     UNION ALL
     (SELECT ap.created_at, 4, 'appeal', CASE WHEN ap.filed_by_studio IS NULL THEN 'player' ELSE 'studio' END,
             st.name,
             'appeal of ' || CASE WHEN ap.sanction_id IS NULL THEN 'an offense' ELSE 'a sanction' END
               || ': ' || ap.reason || ' (' || ap.status || ')',
             ap.statement, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
        FROM appeals ap LEFT JOIN studios st ON st.id = ap.filed_by_studio
       WHERE ap.player_id = $1 AND ap.notice_id IS NULL ORDER BY ap.created_at DESC LIMIT $2)
     ORDER BY at DESC, rank DESC LIMIT $2`,
    [playerRowId, limit],
  );
  return rows;
}
