import type { ReportContext } from './domain/reports.js';
import type { GameLink, OffenseRecord, PlayerProfile } from './data/repos/offenses.js';

/** The spec's Offense (schema Reportoffense) as this studio may see it. */
export interface OffenseView {
  _id: string;
  player: string;
  type: string;
  severity: string;
  penaltyPoints: number;
  reviewedByAdmin: boolean;
  resolved: boolean;
  resolvedAt: string | null;
  createdAt: string;
  updatedAt: string;
  visibility: 'full' | 'summary';
  game?: string;
  studio?: string;
  description?: string;
  evidence?: unknown[];
  details?: Record<string, unknown>;
  context?: ReportContext;
}

/**
 * The trust score is shared by all studios, and so is the fact and weight of every offense; what a
 * studio wrote (description, evidence, details, context) and who reported it (game, studio) is shown
 * only to the studio that reported it.
 */
export function presentOffense(o: OffenseRecord, viewerStudioId: string | null): OffenseView {
  const base: OffenseView = {
    _id: o.id,
    player: o.playerServiceId,
    type: o.type,
    severity: o.severity,
    penaltyPoints: o.penaltyPoints,
    reviewedByAdmin: o.reviewedByAdmin,
    resolved: o.resolved,
    resolvedAt: o.resolvedAt ? o.resolvedAt.toISOString() : null,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    visibility: 'summary',
  };
  if (viewerStudioId !== null && viewerStudioId !== o.studioId) return base;
  return {
    ...base,
    visibility: 'full',
    game: o.gameId,
    studio: o.studioId,
    description: o.description,
    evidence: o.evidence,
    details: o.details,
    context: o.context,
  };
}

export const presentGame = (g: GameLink) => ({ gameTitle: g.gameTitle, linkedAt: g.linkedAt.toISOString() });

export function presentProfile(p: PlayerProfile, viewerStudioId: string | null, nextCursor: string | null) {
  return {
    serviceId: p.serviceId,
    fullName: p.fullName,
    gamerTag: p.gamerTag,
    trustScore: p.trustScore,
    isKycVerified: p.isKycVerified,
    games: p.games.map(presentGame),
    offenses: p.offenses.map((o) => presentOffense(o, viewerStudioId)),
    offenseCount: p.offenseCount,
    offensesNextCursor: nextCursor,
  };
}
