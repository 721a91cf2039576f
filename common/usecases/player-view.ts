import { playerRowId } from '../data/repos/trust.js';
import {
  openWorkCounts,
  playerForModerator,
  tagsOfPlayer,
  timelineRows,
  type TimelineKind,
  type TimelineWho,
} from '../data/repos/player-view.js';
import { studioNames } from '../data/repos/accounts.js';
import type { Queryable } from '../data/db.js';
import { listPlayerAppeals } from '../data/repos/appeals.js';
import { listCases, type ModeratorRole } from '../data/repos/moderation.js';
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
  const p = await playerForModerator(db, serviceId, now);
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
    tags: await tagsOfPlayer(db, serviceId),
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
  return openWorkCounts(db, visibilitiesSeenBy(role));
}

/** How many events a player's timeline shows, newest first. */
export const TIMELINE_LIMIT = 200;

export interface TimelineEvent {
  at: string;
  kind: TimelineKind;
  who: { kind: TimelineWho; name: string | null };
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
  const rows = await timelineRows(db, found, TIMELINE_LIMIT);
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
