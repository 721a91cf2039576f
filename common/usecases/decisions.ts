import { playerRowId } from '../data/repos/trust.js';
import { decisionRows } from '../data/repos/decisions.js';
import { sanctionDecisions } from '../data/repos/transparency.js';
import type { Queryable } from '../data/db.js';
import type { PenaltyCaps } from '../domain/penalty.js';
import {
  offenseStatement,
  sanctionStatement,
  type AppealFiled,
  type StatementOfReasons,
} from '../domain/statement-of-reasons.js';
import { notFound } from '../errors.js';

export interface DecisionsPolicy {
  now: Date;
  appealWindowDays: number;
  caps: PenaltyCaps;
}

/**
 * Every decision that affects a player, newest first, each with its statement of reasons: the
 * offenses that took or held points (a report that took none is no decision about them) and the
 * sanctions. Keyset-paged on (time of filing, id) across both; each kind read by its player index.
 */
export async function playerDecisions(
  db: Queryable,
  serviceId: string,
  policy: DecisionsPolicy,
  limit: number,
  after?: { ts: string; id: string },
): Promise<{ items: StatementOfReasons[]; next: { ts: string; id: string } | null }> {
  const playerId = await playerRowId(db, serviceId);
  if (!playerId) throw notFound(`Player ${serviceId}`);
  const { offenses, sanctions, appeals } = await decisionRows(db, playerId, limit, after);
  const appealOf = new Map<string, AppealFiled>(
    appeals.map((a) => [
      a.subject,
      {
        id: a.id,
        status: a.status,
        reason: a.reason,
        statement: a.statement,
        decidedAt: a.decided_at,
        note: a.decision_note,
        kept: a.kept.map((k) => ({ ...k, expiresAt: k.expiresAt ? new Date(k.expiresAt) : null })),
      },
    ]),
  );
  // Each sanction's decision record: one read for the page's sanctions.
  const decisionOf = await sanctionDecisions(
    db,
    sanctions.map((s) => s.id),
  );
  // A sanction a granted appeal kept in force says so in its own statement, with the ground.
  const keptReason = new Map(appeals.flatMap((a) => a.kept.map((k) => [k.sanctionId, k.reason] as const)));
  const opts = (id: string) => ({
    windowDays: policy.appealWindowDays,
    now: policy.now,
    appeal: appealOf.get(id) ?? null,
  });
  const all = [
    ...offenses.map((o) => ({
      ts: o.ts,
      id: o.id,
      statement: offenseStatement(
        {
          id: o.id,
          type: o.type,
          severity: o.severity,
          source: o.source,
          createdAt: o.created_at,
          status: o.status,
          penaltyPoints: o.penalty_points,
          penaltyHeld: o.penalty_held,
          penaltyRestored: o.penalty_restored,
          restoredBy: o.restored_by,
          caseOutcome: o.outcome,
          resolvedAt: o.resolved_at,
          cap: policy.caps[o.type],
          statusReason: o.status_reason,
        },
        opts(o.id),
      ),
    })),
    ...sanctions.map((s) => ({
      ts: s.ts,
      id: s.id,
      statement: sanctionStatement(
        {
          decision: decisionOf.get(s.id)!,
          reason: s.reason,
          revokedAt: s.revoked_at,
          revokeReason: s.revoke_reason,
          keptOnAppeal: keptReason.get(s.id) ?? null,
        },
        opts(s.id),
      ),
    })),
  ];
  // Newest first by the time of filing, then id; the same order both reads kept.
  // The timestamps are one format (to_json, one session time zone), so text order is time order.
  all.sort((a, b) => (a.ts === b.ts ? (a.id < b.id ? 1 : -1) : a.ts < b.ts ? 1 : -1));
  const items = all.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map((x) => x.statement),
    next: all.length > limit && last ? { ts: last.ts, id: last.id } : null,
  };
}
