import { playerRowId } from '../data/repos/trust.js';
import { studioNames } from '../data/repos/accounts.js';
import type { Queryable } from '../data/db.js';
import { listPlayerAppeals } from '../data/repos/appeals.js';
import { AUDIT_NAMES_SQL, listCases, type ModeratorRole } from '../data/repos/moderation.js';
import { visibilitiesSeenBy } from '../data/repos/review-queues.js';
import { listOffenses } from '../data/repos/offenses.js';
import { listSanctions } from '../data/repos/sanctions.js';
import { listTrustHistory } from '../data/repos/trust.js';
import { SERVICE_ID } from '../domain/players.js';
import { auditInWords } from '../domain/audit-words.js';
import { notFound } from '../errors.js';
import { statementsOfSanctions } from './transparency.js';
import { presentAppeal, presentCase, presentOffense, presentSanction, presentTrustChange } from '../views.js';

/** How much of each list the moderator's player view carries (the newest). */
export const PLAYER_VIEW_LIMIT = 50;
export const PLAYER_VIEW_HISTORY = 200;

/**
 * Everything a moderator looks at on one player, in one answer: the player, active strikes, the
 * newest trust changes (for the chart), offenses, cases, sanctions and appeals. Moderators see every
 * studio's reports in full. Each list is bounded and read by an index on the player.
 */
export async function moderatorPlayerView(db: Queryable, serviceId: string, now: Date) {
  if (!SERVICE_ID.test(serviceId)) throw notFound(`Player ${serviceId}`);
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
  const p = rows[0];
  if (!p) throw notFound(`Player ${serviceId}`);
  const [history, offenses, open, resolved, sanctions, appeals] = await Promise.all([
    listTrustHistory(db, serviceId, PLAYER_VIEW_HISTORY),
    listOffenses(db, serviceId, PLAYER_VIEW_LIMIT),
    listCases(db, { status: 'open', claimed: 'any', serviceId }, PLAYER_VIEW_LIMIT),
    listCases(db, { status: 'resolved', claimed: 'any', serviceId }, PLAYER_VIEW_LIMIT),
    listSanctions(db, {
      serviceId,
      viewerStudioId: null,
      activeOnly: false,
      limit: PLAYER_VIEW_LIMIT,
      now,
    }),
    listPlayerAppeals(db, serviceId),
  ]);
  return {
    player: {
      serviceId: p.service_id,
      gamerTag: p.gamer_tag,
      fullName: p.full_name,
      trustScore: p.trust_score,
      isKycVerified: p.is_kyc_verified,
      createdAt: p.created_at.toISOString(),
    },
    activeStrikes: p.active_strikes,
    trustHistory: (history?.items ?? []).map((h) => presentTrustChange(h, null)),
    offenses: (offenses?.items ?? []).map((o) => presentOffense(o, null)),
    cases: [...open.items, ...resolved.items].map(presentCase),
    sanctions: (sanctions?.items ?? []).map(presentSanction),
    appeals: appeals.slice(0, PLAYER_VIEW_LIMIT).map(presentAppeal),
    tags: (
      await db.query<{ tag: string }>(
        `SELECT t.tag FROM tags t JOIN players p ON p.id = t.subject_id
          WHERE t.subject_kind = 'player' AND p.service_id = $1 ORDER BY t.tag`,
        [serviceId],
      )
    ).rows.map((r) => r.tag),
    studioNames: await studioNames(db, [
      ...(offenses?.items ?? []).map((o) => o.studioId),
      ...(sanctions?.items ?? []).map((s) => s.scopeStudioId),
    ]),
    // Each sanction's statement to the DSA Transparency Database, when it owes one (issue 35).
    transparencyStatements: Object.fromEntries(
      [
        ...(await statementsOfSanctions(
          db,
          (sanctions?.items ?? []).map((s) => s.id),
        )),
      ].map(([id, st]) => [
        id,
        {
          id: st.id,
          state: st.state,
          permalink: st.permalink,
          dryRun: st.dryRun,
          refusal: st.refusal,
          lastError: st.lastError,
          sentAt: st.sentAt,
        },
      ]),
    ),
  };
}

/**
 * The queue's tab counts as the caller's lists show them: open and overdue cases the caller sees in
 * the Open list (not escalated, in queues of the visibilities their role sees), open appeals, and the
 * cases resolved in the last 24 hours.
 */
export async function queueCounts(db: Queryable, role: ModeratorRole) {
  const { rows } = await db.query<{ open: number; overdue: number; appeals: number; resolved24h: number }>(
    `WITH listed AS (
       SELECT c.due_at FROM review_cases c JOIN review_queues q ON q.key = c.queue_key
        WHERE c.status = 'open' AND c.escalated_at IS NULL AND q.visible_to = ANY ($1::text[]))
     SELECT (SELECT count(*)::int FROM listed) AS open,
            (SELECT count(*)::int FROM listed WHERE due_at < now()) AS overdue,
            (SELECT count(*)::int FROM appeals WHERE status = 'open') AS appeals,
            (SELECT count(*)::int FROM review_cases
              WHERE status = 'resolved' AND resolved_at > now() - interval '24 hours') AS "resolved24h"`,
    [visibilitiesSeenBy(role)],
  );
  return rows[0]!;
}

/** How many events a player's timeline shows, newest first. */
export const TIMELINE_LIMIT = 200;

export interface TimelineEvent {
  at: string;
  kind: 'report' | 'score' | 'decision' | 'appeal' | 'note';
  who: { kind: 'studio' | 'moderator' | 'player' | 'service'; name: string | null };
  what: string;
  why: string | null;
  caseId: string | null;
}

/**
 * Everything that happened to a player, in one list, newest first: every report filed (by which
 * studio), every score change (and its reason), every moderator's or studio's decision from the
 * audit log (resolutions, sanctions placed and revoked, appeals decided, mutes, notes), and every
 * appeal filed, each with who and why. Each source is read by its player index, the latest
 * TIMELINE_LIMIT of each, then merged.
 */
export async function playerTimeline(db: Queryable, serviceId: string): Promise<TimelineEvent[]> {
  const found = await playerRowId(db, serviceId);
  if (!found) throw notFound(`Player ${serviceId}`);
  const { rows } = await db.query<{
    at: Date;
    kind: TimelineEvent['kind'];
    who_kind: TimelineEvent['who']['kind'];
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
    [found, TIMELINE_LIMIT],
  );
  return rows.map((r) => ({
    at: r.at.toISOString(),
    kind: r.kind,
    who: { kind: r.who_kind, name: r.who_name },
    what:
      r.action !== null
        ? `${auditInWords({
            action: r.action,
            outcome: r.outcome,
            details: r.details ?? {},
            queueName: r.queue_name,
            scopeName: r.scope_name,
          })}${
            r.score_before !== null && r.score_after !== null && r.score_after !== r.score_before
              ? `, score ${r.score_before} → ${r.score_after}`
              : ''
          }`
        : r.what!,
    why: r.why,
    caseId: r.case_id,
  }));
}
