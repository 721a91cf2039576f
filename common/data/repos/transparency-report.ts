import type { Queryable } from '../db.js';
import { AUTOMATED_SOURCES_SQL } from '../render.js';

/**
 * The reads behind the transparency report (common/usecases/transparency-report.ts): each figure's
 * rows for a period and a platform, by the indexes on the tables' times.
 */
/** A report's period and platform (docs/compliance.md "The transparency report"). */
export interface ReportPeriod {
  from: Date;
  to: Date;
  /** `all`, `operator` or a studio id. */
  platform: string;
}

interface Scope {
  /** SQL over a sanction `s`: is it the platform's. */
  sanction: string;
  /** SQL over an offense `o`: is it the platform's. */
  offense: string;
}

function scopeOf(platform: string): Scope {
  if (platform === 'all') return { sanction: 'true', offense: 'true' };
  if (platform === 'operator') return { sanction: 's.scope_studio_id IS NULL', offense: 'true' };
  return { sanction: 's.scope_studio_id = $3::uuid', offense: 'o.studio_id = $3::uuid' };
}

const argsOf = (q: ReportPeriod) => [
  q.from,
  q.to,
  ...(q.platform !== 'all' && q.platform !== 'operator' ? [q.platform] : []),
];
const ofStudio = (q: ReportPeriod) => q.platform !== 'all' && q.platform !== 'operator';

/** One page (2,000) of the sanctions placed in the period on the platform, by id after `after`. */
export async function sanctionsPlacedIn(db: Queryable, q: ReportPeriod, after: string) {
  const args = argsOf(q);
  const { rows } = await db.query<{ id: string; type: string }>(
    `SELECT s.id, s.type FROM sanctions s
      WHERE s.created_at >= $1 AND s.created_at < $2 AND ${scopeOf(q.platform).sanction} AND s.id > $${args.length + 1}::uuid
      ORDER BY s.id LIMIT 2000`,
    [...args, after],
  );
  return rows;
}

/** Players' reports received in the period, by kind, with their cases' outcomes and times to resolution. */
export async function userReportsIn(db: Queryable, q: ReportPeriod) {
  const scope = scopeOf(q.platform);
  const { rows } = await db.query<{
    type: string;
    n: number;
    upheld: number;
    dismissed: number;
    seconds: number[];
  }>(
    `SELECT o.type, count(*)::int AS n,
            count(*) FILTER (WHERE c.outcome = 'upheld')::int AS upheld,
            count(*) FILTER (WHERE c.outcome = 'dismissed')::int AS dismissed,
            coalesce(array_agg(extract(epoch FROM c.resolved_at - o.created_at)::float8)
                       FILTER (WHERE c.resolved_at IS NOT NULL), '{}') AS seconds
       FROM offenses o
       LEFT JOIN case_offenses co ON co.offense_id = o.id
       LEFT JOIN review_cases c ON c.id = co.case_id
      WHERE o.created_at >= $1 AND o.created_at < $2 AND ${scope.offense}
        AND (o.context->>'source' = 'player' OR (o.context->>'source' IS NULL AND o.reporter_id IS NOT NULL))
      GROUP BY o.type ORDER BY o.type`,
    argsOf(q),
  );
  return rows;
}

/**
 * Notices received in the period about the platform's players (Art. 16, 22; docs/moderators.md "Notices"), by
 * source and category, with how their cases were decided and the time to a decision.
 */
export async function noticesIn(db: Queryable, q: ReportPeriod) {
  const scope = scopeOf(q.platform);
  const { rows } = await db.query<{
    source: 'notice' | 'trusted_flagger';
    category: string;
    n: number;
    upheld: number;
    dismissed: number;
    seconds: number[];
  }>(
    `SELECT n.source, n.category, count(*)::int AS n,
            count(*) FILTER (WHERE c.outcome = 'upheld')::int AS upheld,
            count(*) FILTER (WHERE c.outcome = 'dismissed')::int AS dismissed,
            coalesce(array_agg(extract(epoch FROM c.resolved_at - n.created_at)::float8)
                       FILTER (WHERE c.resolved_at IS NOT NULL), '{}') AS seconds
       FROM notices n
       JOIN offenses o ON o.id = n.offense_id
       LEFT JOIN case_offenses co ON co.offense_id = o.id
       LEFT JOIN review_cases c ON c.id = co.case_id
      WHERE n.created_at >= $1 AND n.created_at < $2 AND ${scope.offense}
      GROUP BY n.source, n.category ORDER BY n.source, n.category`,
    argsOf(q),
  );
  return rows;
}

/**
 * Urgent notices received in the period on the platform (docs/moderators.md "Notices": "Urgent notices"), by why
 * (`life`: DSA Art. 18), with the time from each to its case's decision.
 */
export async function urgentNoticesIn(db: Queryable, q: ReportPeriod) {
  const scope = scopeOf(q.platform);
  const { rows } = await db.query<{ urgency: 'life' | 'child' | 'category'; n: number; seconds: number[] }>(
    `SELECT n.urgency, count(*)::int AS n,
            coalesce(array_agg(extract(epoch FROM c.resolved_at - n.created_at)::float8)
                       FILTER (WHERE c.resolved_at IS NOT NULL), '{}') AS seconds
       FROM notices n
       JOIN offenses o ON o.id = n.offense_id
       LEFT JOIN case_offenses co ON co.offense_id = o.id
       LEFT JOIN review_cases c ON c.id = co.case_id
      WHERE n.urgency IS NOT NULL AND n.created_at >= $1 AND n.created_at < $2 AND ${scope.offense}
      GROUP BY n.urgency ORDER BY n.urgency`,
    argsOf(q),
  );
  return rows;
}

/** Appeals filed in the period on the platform's decisions and reports, with their time to decision. */
export async function appealsIn(db: Queryable, q: ReportPeriod) {
  const scope = scopeOf(q.platform);
  const { rows } = await db.query<{ status: string; seconds: number | null; by_notifier: boolean }>(
    `SELECT a.status, extract(epoch FROM a.decided_at - a.created_at)::float8 AS seconds,
            a.notice_id IS NOT NULL AS by_notifier
       FROM appeals a
       LEFT JOIN sanctions s ON s.id = a.sanction_id
       LEFT JOIN notices n ON n.id = a.notice_id
       LEFT JOIN offenses o ON o.id = coalesce(a.offense_id, n.offense_id)
      WHERE a.created_at >= $1 AND a.created_at < $2
        AND CASE WHEN a.sanction_id IS NOT NULL THEN ${scope.sanction} ELSE ${scope.offense} END`,
    argsOf(q),
  );
  return rows;
}

/**
 * Reports by automated means in the period (a game's anti-cheat system or server, the service's
 * sign-in check on a suspected evasion), how moderators decided their cases, the penalties on them.
 */
export async function automatedReportsIn(db: Queryable, q: ReportPeriod) {
  const scope = scopeOf(q.platform);
  const { rows } = await db.query<{
    n: number;
    upheld: number;
    dismissed: number;
    points: number;
    restored: number;
  }>(
    `SELECT count(*)::int AS n,
            count(*) FILTER (WHERE c.outcome = 'upheld')::int AS upheld,
            count(*) FILTER (WHERE c.outcome = 'dismissed')::int AS dismissed,
            count(*) FILTER (WHERE o.penalty_points > 0)::int AS points,
            count(*) FILTER (WHERE o.penalty_restored > 0)::int AS restored
       FROM offenses o
       LEFT JOIN case_offenses co ON co.offense_id = o.id
       LEFT JOIN review_cases c ON c.id = co.case_id
      WHERE o.created_at >= $1 AND o.created_at < $2 AND ${scope.offense}
        AND o.context->>'source' IN (${AUTOMATED_SOURCES_SQL})`,
    argsOf(q),
  );
  return rows[0]!;
}

/** Reporters muted in the period (the platform's studio's, or every studio's). */
export async function reportersMutedIn(db: Queryable, q: ReportPeriod): Promise<number> {
  // By hand: an Art. 23 suspension's mute has an end, and is counted with the measures (misuseIn).
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM reporters r
      WHERE r.muted_at >= $1 AND r.muted_at < $2 AND r.muted_until IS NULL
        AND ${!ofStudio(q) ? 'true' : 'r.studio_id = $3::uuid'}`,
    argsOf(q),
  );
  return rows[0]!.n;
}

/**
 * Warnings and suspensions under Art. 23 taken in the period (lifecycles/misuse.ts), by whom they
 * were against. A studio's report counts its own in-game reporters; notifiers and trusted flaggers
 * use the operator's notice channel, so only the operator's (and the whole service's) report counts them.
 */
export async function misuseIn(db: Queryable, q: ReportPeriod) {
  const { rows } = await db.query<{ kind: string; sender: string; n: number }>(
    `SELECT m.kind, CASE WHEN m.sender_key LIKE 'reporter:%' THEN 'reporter'
                         WHEN m.sender_key LIKE 'notice:tf-%' THEN 'trusted_flagger' ELSE 'notifier' END AS sender,
            count(*)::int AS n
       FROM misuse_measures m
      WHERE m.created_at >= $1 AND m.created_at < $2
        AND ${
          !ofStudio(q)
            ? 'true'
            : // A studio's: its in-game reporters, and the notifiers and flaggers marked for notices
              // about its games (a notifier's suspension was counted for no studio: issue 51).
              `(m.sender_key LIKE 'reporter:' || $3::text || ':%'
                OR EXISTS (SELECT 1 FROM misuse_marks mk
                             JOIN notices n ON n.offense_id = mk.offense_id
                                            OR n.id = (SELECT a.notice_id FROM appeals a WHERE a.id = mk.appeal_id)
                             JOIN games g ON g.id = n.game_id
                            WHERE mk.sender_key = m.sender_key AND g.studio_id = $3::uuid))`
        }
      GROUP BY 1, 2`,
    argsOf(q),
  );
  const n = (kind: string, sender: string) =>
    rows.find((r) => r.kind === kind && r.sender === sender)?.n ?? 0;
  return {
    warnings: rows.filter((r) => r.kind === 'warning').reduce((a, r) => a + r.n, 0),
    suspended: {
      notifier: n('suspension', 'notifier'),
      trusted_flagger: n('suspension', 'trusted_flagger'),
      reporter: n('suspension', 'reporter'),
    },
  };
}

/**
 * Distinct players reported each calendar month of the period. Sign-ins cannot count: their records
 * (authorization codes, tokens) are swept by housekeeping within days, so a past month would count
 * fewer than it had.
 */
export async function playersSeenByMonth(db: Queryable, q: ReportPeriod) {
  const { rows } = await db.query<{ month: Date; n: number }>(
    `SELECT date_trunc('month', o.created_at) AS month, count(DISTINCT o.player_id)::int AS n FROM offenses o
      WHERE o.created_at >= $1 AND o.created_at < $2 AND ${scopeOf(q.platform).offense}
      GROUP BY 1 ORDER BY 1`,
    argsOf(q),
  );
  return rows;
}

/** The platform condition on a compliance record's `platform` column ($3 a studio's id). */
const platformOf = (q: ReportPeriod) =>
  q.platform === 'all' ? 'true' : q.platform === 'operator' ? "platform = 'operator'" : 'platform = $3::text';

/** Orders received in the period for the platform (Art. 15(1)(a)), with their times to acknowledge and act. */
export async function ordersIn(db: Queryable, q: ReportPeriod) {
  const { rows } = await db.query<{
    kind: 'act' | 'information';
    member_state: string;
    category: string;
    ack_seconds: number | null;
    act_seconds: number | null;
  }>(
    `SELECT kind, member_state, category,
            extract(epoch FROM acknowledged_at - received_at)::float8 AS ack_seconds,
            extract(epoch FROM acted_at - received_at)::float8 AS act_seconds
       FROM authority_orders WHERE received_at >= $1 AND received_at < $2 AND ${platformOf(q)}`,
    argsOf(q),
  );
  return rows;
}

/** Disputes submitted in the period for the platform (Art. 24(1)(a)), with how and when they closed. */
export async function disputesIn(db: Queryable, q: ReportPeriod) {
  const { rows } = await db.query<{
    outcome: string | null;
    implemented: boolean | null;
    seconds: number | null;
  }>(
    `SELECT outcome, implemented, extract(epoch FROM closed_at - submitted_at)::float8 AS seconds
       FROM disputes WHERE submitted_at >= $1 AND submitted_at < $2 AND ${platformOf(q)}`,
    argsOf(q),
  );
  return rows;
}
