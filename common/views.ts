import type { View } from './view-schemas.js';
import type { AuditEntry, CaseRecord } from './data/repos/moderation.js';
import type { DeliveryRecord, WebhookRecord } from './data/repos/webhooks.js';
import type { OffenseRecord } from './data/repos/offenses.js';
import type { TrustChange } from './data/repos/trust.js';
import type { ReporterRecord } from './data/repos/reporters.js';
import type { SanctionRecord } from './data/repos/sanctions.js';
import type { AppealRecord } from './data/repos/appeals.js';

/** The spec's Offense (schema Reportoffense) as this studio may see it. */
export type OffenseView = View<'Reportoffense'>;

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
    penaltyHeld: o.penaltyHeld,
    status: o.status,
    penaltyRestored: o.penaltyRestored,
    restoredBy: o.restoredBy,
    restoredAt: o.restoredAt ? o.restoredAt.toISOString() : null,
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
    statusReason: o.statusReason,
  };
}

export const presentCase = (c: CaseRecord): View<'ReviewCase'> => ({
  id: c.id,
  player: c.player,
  type: c.type,
  status: c.status,
  priority: c.priority,
  priorityScore: c.priorityWhy.score,
  priorityWhy: c.priorityWhy.inputs,
  urgent: c.urgent,
  reportsCount: c.reportsCount,
  highestSeverity: c.highestSeverity,
  totalPenalty: c.totalPenalty,
  distinctGames: c.distinctGames,
  distinctReporters: c.distinctReporters,
  heldPoints: c.heldPoints,
  dueAt: c.dueAt?.toISOString() ?? null,
  overdue: c.overdue,
  openedAt: c.openedAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
  claim: c.claim && {
    moderatorId: c.claim.moderatorId,
    username: c.claim.username,
    expiresAt: c.claim.expiresAt.toISOString(),
  },
  resolution: c.resolution && {
    ...c.resolution,
    resolvedAt: c.resolution.resolvedAt.toISOString(),
  },
  assignedTo: c.assignedTo,
  escalation: c.escalation && { at: c.escalation.at.toISOString(), note: c.escalation.note },
  tags: c.tags,
  queue: c.queue,
});

export const presentAudit = (a: AuditEntry): View<'AuditEntry'> => ({
  ...a,
  createdAt: a.createdAt.toISOString(),
});

export const presentWebhook = (w: WebhookRecord): View<'Webhook'> => ({
  id: w.id,
  url: w.url,
  events: w.events,
  enabled: w.enabled,
  disabledAt: w.disabledAt?.toISOString() ?? null,
  disabledReason: w.disabledReason,
  consecutiveFailures: w.consecutiveFailures,
  parkedUntil: w.parkedUntil?.toISOString() ?? null,
  previousSecretExpiresAt: w.previousSecretExpiresAt?.toISOString() ?? null,
  createdAt: w.createdAt.toISOString(),
  updatedAt: w.updatedAt.toISOString(),
});

export const presentDelivery = (d: DeliveryRecord): View<'WebhookDelivery'> => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  redeliveryOf: d.redeliveryOf,
});

/**
 * One change of a player's score. Every studio sees every change (the score is global); a change
 * about a studio's own reports (the offense, or a dismissal, appeal or release of them) is marked
 * `visibility: "full"` for that studio, as its offenses are.
 */
export const presentTrustChange = (h: TrustChange, viewerStudioId: string | null): View<'TrustChange'> => ({
  id: h.id,
  points: h.points,
  scoreBefore: h.scoreBefore,
  scoreAfter: h.scoreAfter,
  reason: h.reason,
  offenseId: h.offenseId,
  caseId: h.caseId,
  createdAt: h.createdAt.toISOString(),
  visibility: viewerStudioId !== null && h.studioIds.includes(viewerStudioId) ? 'full' : 'summary',
});

export const presentReporter = (r: ReporterRecord): View<'Reporter'> => ({
  studioId: r.studioId,
  reporterId: r.reporterId,
  upheld: r.upheld,
  dismissed: r.dismissed,
  credibility: Math.round(r.credibility * 1000) / 1000,
  muted: r.muted,
  mutedAt: r.mutedAt?.toISOString() ?? null,
  muteNote: r.muteNote,
});

/** A sanction: `scope` is "global" or the studio id it is limited to; `active` at the time of the read. */
export const presentSanction = (s: SanctionRecord): View<'Sanction'> => ({
  id: s.id,
  serviceId: s.serviceId,
  type: s.type,
  scope: s.scopeStudioId ?? 'global',
  reason: s.reason,
  caseId: s.caseId,
  issuedBy: s.issuedBy,
  startsAt: s.startsAt.toISOString(),
  expiresAt: s.expiresAt?.toISOString() ?? null,
  active: s.active,
  revokedAt: s.revokedAt?.toISOString() ?? null,
  revokedBy: s.revokedBy,
  revokeReason: s.revokeReason,
  createdAt: s.createdAt.toISOString(),
  dsaCategory: s.dsaCategory,
  rule: s.rule,
  matches: s.matches,
});

export const presentAppeal = (a: AppealRecord): View<'Appeal'> => ({
  id: a.id,
  playerId: a.serviceId,
  gamerTag: a.gamerTag,
  subject: a.subject,
  reason: a.reason,
  statement: a.statement,
  filedBy: a.filedBy,
  status: a.status,
  claim: a.claim && { moderatorId: a.claim.moderatorId, expiresAt: a.claim.expiresAt.toISOString() },
  decision: a.decision && { ...a.decision, decidedAt: a.decision.decidedAt.toISOString() },
  createdAt: a.createdAt.toISOString(),
});
