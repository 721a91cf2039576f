import type { Queryable } from '../data/db.js';
import { listTrustHistory, signedInPlayer } from '../data/repos/trust.js';
import { strikesInForce } from '../data/repos/sanctions.js';
import { latestConductSummaries } from '../data/repos/conduct.js';
import { conductWords } from '../domain/conduct.js';
import { playerDecisions, type DecisionsPolicy } from './decisions.js';

/** How many of the latest score changes the player's standing page shows. */
export const STANDING_HISTORY_ROWS = 20;
/** How many decisions it shows, newest first. */
export const STANDING_DECISIONS = 100;
/** How many conduct summaries it shows, newest first. */
export const STANDING_CONDUCT = 10;

export type StandingPlayer = {
  id: string;
  service_id: string;
  gamer_tag: string;
  trust_score: number;
  /** Sessions issued before this are over (a stolen account given back). */
  sessions_revoked_at?: Date | null;
};

/** The player a standing session names, if they still exist (not erased). */
export const standingPlayer = (db: Queryable, playerRowId: string): Promise<StandingPlayer | undefined> =>
  signedInPlayer(db, playerRowId);

/**
 * What the player's own standing page shows: their latest score changes, their strikes in force and
 * their decisions, each with its statement of reasons, and their latest conduct summaries.
 */
export async function playerStandingView(db: Queryable, p: StandingPlayer, policy: DecisionsPolicy) {
  const [history, strikes, decisions, conduct] = await Promise.all([
    listTrustHistory(db, p.service_id, STANDING_HISTORY_ROWS),
    strikesInForce(db, p.id, policy.now),
    playerDecisions(db, p.service_id, policy, STANDING_DECISIONS),
    latestConductSummaries(db, p.id, STANDING_CONDUCT),
  ]);
  return {
    history: (history?.items ?? []).map((h) => ({
      at: h.createdAt.toISOString(),
      change: h.scoreAfter - h.scoreBefore,
      after: h.scoreAfter,
      reason: h.reason,
    })),
    strikes: strikes.map((expiresAt) => ({ expiresAt: expiresAt.toISOString() })),
    decisions: decisions.items,
    conduct: conduct.map((c) => ({
      at: c.createdAt.toISOString(),
      studio: c.studioName,
      trigger: c.trigger,
      text: conductWords(c.trigger, c),
      warning: c.warning,
    })),
  };
}
