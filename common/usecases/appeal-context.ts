import type { Queryable } from '../data/db.js';
import { findAppeal } from '../data/repos/appeals.js';
import { findCase, type CaseRecord } from '../data/repos/moderation.js';
import { findOffenseForModerator, listOffenses } from '../data/repos/offenses.js';
import { findSanctionForModerator, hasActiveStrike, sanctionsOfDecision } from '../data/repos/sanctions.js';
import { notFound } from '../errors.js';
import { presentAppeal, presentOffense, presentSanction } from '../views.js';
import { offenseOfNotice } from '../data/repos/notices.js';
import { playerStanding } from '../data/repos/trust.js';

/** How many of the player's latest offenses the appeal screen shows beside the appeal. */
export const APPEAL_RECENT_OFFENSES = 5;

/** The decision behind an offense or a sanction: its case, resolved or not, and by whom. */
const caseSummary = (c: CaseRecord | undefined) =>
  c
    ? {
        id: c.id,
        status: c.status,
        outcome: c.resolution?.outcome ?? null,
        note: c.resolution?.note ?? null,
        decidedBy: c.resolution?.username ?? null,
        resolvedAt: c.resolution?.resolvedAt.toISOString() ?? null,
      }
    : null;

/**
 * One appeal as a moderator decides it: the appeal, and in `context` everything the decision needs
 * without leaving the screen: the player (score, strikes), what is appealed in full (the offense
 * with its evidence and the studio that filed it, or the sanction with who placed it and its scope
 * by name), the decision behind it (the case's outcome, note, moderator and time), and the player's
 * latest offenses.
 */
export async function appealForModerator(db: Queryable, appealId: string, now: Date) {
  const appeal = await findAppeal(db, appealId);
  if (!appeal) throw notFound(`Appeal ${appealId}`);
  const { kind, id } = appeal.subject;
  // A notifier's complaint: what is contested is the dismissal of the notice, filed as an offense.
  const noticeOffense = kind === 'notice' ? await offenseOfNotice(db, id) : undefined;
  const [player, offense, sanction, recent] = await Promise.all([
    playerStanding(db, appeal.playerRowId, now),
    kind === 'offense' || noticeOffense ? findOffenseForModerator(db, noticeOffense ?? id) : undefined,
    kind === 'sanction' ? findSanctionForModerator(db, id, now) : undefined,
    listOffenses(db, appeal.serviceId, APPEAL_RECENT_OFFENSES),
  ]);
  const caseId = offense?.caseId ?? sanction?.sanction.caseId ?? null;
  const [found, undone, strike] = await Promise.all([
    caseId ? findCase(db, caseId) : undefined,
    appeal.status === 'open' && kind !== 'notice'
      ? sanctionsOfDecision(
          db,
          { playerRowId: appeal.playerRowId, caseId, ...(kind === 'sanction' ? { sanctionId: id } : {}) },
          now,
        )
      : [],
    appeal.status === 'open' && caseId ? hasActiveStrike(db, caseId, now) : false,
  ]);
  const decision = caseSummary(found);
  const p = player!;
  return {
    ...presentAppeal(appeal),
    context: {
      player: {
        serviceId: appeal.serviceId,
        gamerTag: p.gamerTag,
        trustScore: p.trustScore,
        activeStrikes: p.activeStrikes,
      },
      offense: offense
        ? { record: presentOffense(offense.offense, null), studioName: offense.studioName, case: decision }
        : null,
      sanction: sanction
        ? {
            record: presentSanction(sanction.sanction),
            issuedByName: sanction.issuedByName,
            scopeName: sanction.scopeName,
            case: decision,
          }
        : null,
      recentOffenses: (recent?.items ?? []).map((o) => presentOffense(o, null)),
      // What granting would undo (decideAppeal): shown before the decision, so the moderator can keep
      // a part of it with a ground. Null once the appeal is decided.
      // A notifier's complaint undoes nothing: granted, its case reopens.
      ifGranted:
        appeal.status === 'open' && kind !== 'notice'
          ? {
              strikeRemoved: strike,
              sanctionsRevoked: undone.map((s) => ({
                record: presentSanction(s),
                issuedByName: s.issuedByName,
                scopeName: s.scopeName,
                appealed: s.id === id,
              })),
            }
          : null,
    },
  };
}
