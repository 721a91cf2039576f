import { studioNames } from '../data/repos/accounts.js';
import type { Queryable } from '../data/db.js';
import { listPlayerAppeals } from '../data/repos/appeals.js';
import { listCases } from '../data/repos/moderation.js';
import { listOffenses } from '../data/repos/offenses.js';
import { listSanctions } from '../data/repos/sanctions.js';
import { listTrustHistory } from '../data/repos/trust.js';
import { SERVICE_ID } from '../domain/players.js';
import { notFound } from '../errors.js';
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
    studioNames: await studioNames(db, [
      ...(offenses?.items ?? []).map((o) => o.studioId),
      ...(sanctions?.items ?? []).map((s) => s.scopeStudioId),
    ]),
  };
}

/** The counts on the console's queue tabs: each one an index-backed count of what is open now. */
export async function queueCounts(db: Queryable) {
  const { rows } = await db.query<{ open: number; overdue: number; appeals: number; resolved24h: number }>(
    `SELECT (SELECT count(*)::int FROM review_cases WHERE status = 'open') AS open,
            (SELECT count(*)::int FROM review_cases WHERE status = 'open' AND due_at < now()) AS overdue,
            (SELECT count(*)::int FROM appeals WHERE status = 'open') AS appeals,
            (SELECT count(*)::int FROM review_cases
              WHERE status = 'resolved' AND resolved_at > now() - interval '24 hours') AS "resolved24h"`,
  );
  return rows[0]!;
}
