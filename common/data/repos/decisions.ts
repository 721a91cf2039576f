import type { Queryable } from '../db.js';
import type { AppealStatus } from '../shapes/appeal.js';
import type { AppealReason } from '../../domain/appeals.js';
import type { OffenseStatus } from '../shapes/offense.js';
import type { OffenseType, Severity } from '../../domain/reports.js';
import type { SanctionType } from '../../domain/sanctions.js';

/**
 * What a player's decisions are made of (common/usecases/decisions.ts): one page of their offenses
 * that took or held points and of their sanctions, newest first (keyset on time of filing and id,
 * each read by its player index), and the newest appeal of each subject.
 */
export async function decisionRows(
  db: Queryable,
  playerId: string,
  limit: number,
  after?: { ts: string; id: string },
) {
  const keyset = (t: string) =>
    `($3::timestamptz IS NULL OR (${t}.created_at, ${t}.id) < ($3::timestamptz, $4::uuid))`;
  const page = [playerId, limit + 1, after?.ts ?? null, after?.id ?? null];
  const [offenses, sanctions, appeals] = await Promise.all([
    db.query<{
      id: string;
      type: OffenseType;
      severity: Severity;
      source: string | null;
      created_at: Date;
      status: OffenseStatus;
      penalty_points: number;
      penalty_held: number;
      penalty_restored: number;
      restored_by: 'dismissal' | 'appeal' | null;
      status_reason: string | null;
      outcome: 'upheld' | 'dismissed' | null;
      resolved_at: Date | null;
      ts: string;
    }>(
      // A report without a source but with a reporter is a player's (common/domain/reports.ts).
      `SELECT o.id, o.type, o.severity,
              coalesce(o.context->>'source', CASE WHEN o.context ? 'reporterId' THEN 'player' END) AS source,
              o.created_at, o.status, o.penalty_points, o.penalty_held, o.penalty_restored, o.restored_by,
              o.status_reason, c.outcome, c.resolved_at, to_json(o.created_at)#>>'{}' AS ts
         FROM offenses o
         LEFT JOIN case_offenses co ON co.offense_id = o.id LEFT JOIN review_cases c ON c.id = co.case_id
        WHERE o.player_id = $1 AND o.status <> 'recorded' AND ${keyset('o')}
        ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
      page,
    ),
    // What came of each sanction since (its reason, a revocation); its decision record is read apart.
    db.query<{
      id: string;
      reason: string;
      revoked_at: Date | null;
      revoke_reason: string | null;
      ts: string;
    }>(
      `SELECT s.id, s.reason, s.revoked_at, s.revoke_reason, to_json(s.created_at)#>>'{}' AS ts
         FROM sanctions s
        WHERE s.player_id = $1 AND ${keyset('s')}
        ORDER BY s.created_at DESC, s.id DESC LIMIT $2`,
      page,
    ),
    db.query<{
      id: string;
      subject: string;
      status: AppealStatus;
      reason: AppealReason;
      statement: string;
      decided_at: Date | null;
      decision_note: string | null;
      kept: {
        sanctionId: string;
        type: SanctionType;
        scopeName: string | null;
        expiresAt: string | null;
        reason: string;
      }[];
    }>(
      // The newest appeal of each subject, with the sanctions its grant kept in force (few).
      `SELECT DISTINCT ON (coalesce(a.sanction_id, a.offense_id)) a.id,
              coalesce(a.sanction_id, a.offense_id) AS subject, a.status, a.reason, a.statement, a.decided_at,
              a.decision_note,
              (SELECT coalesce(json_agg(json_build_object('sanctionId', s.id, 'type', s.type, 'scopeName', sc.name,
                                                          'expiresAt', s.expires_at, 'reason', k->>'reason')
                                        ORDER BY s.created_at), '[]')
                 FROM jsonb_array_elements(a.sanctions_kept) k
                 JOIN sanctions s ON s.id = (k->>'sanctionId')::uuid
                 LEFT JOIN studios sc ON sc.id = s.scope_studio_id) AS kept
         FROM appeals a WHERE a.player_id = $1 AND a.notice_id IS NULL
        ORDER BY coalesce(a.sanction_id, a.offense_id), a.created_at DESC`,
      [playerId],
    ),
  ]);
  return { offenses: offenses.rows, sanctions: sanctions.rows, appeals: appeals.rows };
}
