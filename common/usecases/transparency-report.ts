import Joi from 'joi';
import type { Pool } from '../data/db.js';
import { restrictionFacts } from '../data/repos/transparency.js';
import { isUuid } from '../domain/ids.js';
import { REPORT_KINDS } from '../domain/reports.js';
import { CATEGORY_OF_KIND, isRestriction, transparencyStatement } from '../domain/transparency-statement.js';
import { notFound, validationError } from '../errors.js';
import { check } from '../validation.js';
import { STRIKE_LADDER_REASON } from './sanctions.js';

/**
 * The transparency report (Art. 15 and 24(1) DSA; issue 35), computed from the records for a period
 * and a platform, laid out after the sections of the harmonised templates of Implementing Regulation
 * (EU) 2024/2835 (README "The transparency report"): one row a figure, `section, field, breakdown,
 * value`. Restrictions are counted from the very statements the Transparency Database is sent
 * (transparencyStatement), so the two never disagree.
 */
export const reportQuerySchema = Joi.object({
  from: Joi.date().iso().required().description('The first day of the period (inclusive), UTC.'),
  to: Joi.date().iso().required().description('The end of the period (exclusive), UTC.'),
  platform: Joi.string()
    .max(64)
    .default('all')
    .description('`all`, `operator` (global decisions) or a studio id (the decisions on its games).'),
  activeRecipients: Joi.number()
    .integer()
    .min(0)
    .description(
      "The average monthly active recipients as the studio counts them; without it, the distinct players the service saw each month (said so in the report's `source`).",
    ),
  format: Joi.string().valid('json', 'csv').default('json').description('Or Accept: text/csv.'),
});

export interface ReportRow {
  section: string;
  field: string;
  breakdown: string;
  value: number | string;
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

const median = (xs: number[]) => {
  if (xs.length === 0) return '';
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const hours = (seconds: number | '') => (seconds === '' ? '' : Math.round((seconds / 3600) * 100) / 100);

export async function transparencyReport(
  pool: Pool,
  query: unknown,
  opts: { territorialScope: readonly string[] },
) {
  const q = check<{
    from: Date;
    to: Date;
    platform: string;
    activeRecipients?: number;
    format: 'json' | 'csv';
  }>(reportQuerySchema, query, 'query');
  if (q.to.getTime() <= q.from.getTime())
    throw validationError([{ field: 'to', message: 'must be after from' }], 'The period is empty.');
  if (q.to.getTime() - q.from.getTime() > 2 * 366 * 86_400_000)
    throw validationError([{ field: 'to', message: 'a period is at most two years' }]);
  if (q.platform !== 'all' && q.platform !== 'operator') {
    if (!isUuid(q.platform)) throw notFound(`Platform ${q.platform}`);
    const { rowCount } = await pool.query('SELECT 1 FROM studios WHERE id = $1', [q.platform]);
    if (!rowCount) throw notFound(`Studio ${q.platform}`);
  }
  const scope = scopeOf(q.platform);
  const args = [q.from, q.to, ...(q.platform !== 'all' && q.platform !== 'operator' ? [q.platform] : [])];
  const rows: ReportRow[] = [];
  const add = (section: string, field: string, breakdown: string, value: number | string) =>
    rows.push({ section, field, breakdown, value });

  // Section: restrictions (own initiative and on notifications), from their statements, in pages of
  // sanction ids (keyset), so a year of decisions is read in bounded pieces.
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  let after = '00000000-0000-0000-0000-000000000000';
  let total = 0;
  let warnings = 0;
  for (;;) {
    const { rows: page } = await pool.query<{ id: string; type: string }>(
      `SELECT s.id, s.type FROM sanctions s
        WHERE s.created_at >= $1 AND s.created_at < $2 AND ${scope.sanction} AND s.id > $${args.length + 1}::uuid
        ORDER BY s.id LIMIT 2000`,
      [...args, after],
    );
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    const restrictions = page.filter((p) => isRestriction(p.type as never));
    warnings += page.length - restrictions.length;
    const facts = await restrictionFacts(
      pool,
      restrictions.map((p) => p.id),
      STRIKE_LADDER_REASON,
    );
    for (const f of facts.values()) {
      const st = transparencyStatement(f, { territorialScope: opts.territorialScope });
      total++;
      bump(
        `type_of_restriction|${String(st.decision_account ?? st.decision_provision ?? st.decision_visibility)}`,
      );
      bump(`category|${String(st.category)}`);
      bump(`decision_ground|${String(st.decision_ground)}`);
      bump(`source_type|${String(st.source_type)}`);
      bump(`automated_detection|${String(st.automated_detection)}`);
      bump(`automated_decision|${String(st.automated_decision)}`);
    }
  }
  add('restrictions', 'number_of_decisions', 'total', total);
  for (const [key, n] of [...counts].sort()) {
    const [field, breakdown] = key.split('|') as [string, string];
    add('restrictions', field, breakdown, n);
  }
  add('restrictions', 'warnings_without_restriction', 'total', warnings);

  // Section: notices. No notice channel yet (Art. 16, trusted flaggers: issue 37); players' reports
  // through the games are the notifications the service receives.
  add('notices', 'number_of_notices_article_16', 'total', 0);
  add('notices', 'number_of_notices_trusted_flaggers', 'total', 0);
  const { rows: reports } = await pool.query<{
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
    args,
  );
  const allSeconds = reports.flatMap((r) => r.seconds);
  add(
    'notices',
    'number_of_user_reports',
    'total',
    reports.reduce((a, r) => a + r.n, 0),
  );
  for (const kind of Object.values(REPORT_KINDS)) {
    const r = reports.find((x) => x.type === kind);
    add('notices', 'number_of_user_reports', `${kind} (${CATEGORY_OF_KIND[kind].category})`, r?.n ?? 0);
  }
  add(
    'notices',
    'user_reports_actioned',
    'upheld',
    reports.reduce((a, r) => a + r.upheld, 0),
  );
  add(
    'notices',
    'user_reports_actioned',
    'dismissed',
    reports.reduce((a, r) => a + r.dismissed, 0),
  );
  add('notices', 'median_time_to_action_hours', 'total', hours(median(allSeconds)));

  // Section: complaints through the internal complaint-handling system (Art. 20): appeals.
  const { rows: appeals } = await pool.query<{ status: string; seconds: number | null }>(
    `SELECT a.status, extract(epoch FROM a.decided_at - a.created_at)::float8 AS seconds
       FROM appeals a
       LEFT JOIN sanctions s ON s.id = a.sanction_id
       LEFT JOIN offenses o ON o.id = a.offense_id
      WHERE a.created_at >= $1 AND a.created_at < $2
        AND CASE WHEN a.sanction_id IS NOT NULL THEN ${scope.sanction} ELSE ${scope.offense} END`,
    args,
  );
  add('complaints', 'number_of_complaints', 'total', appeals.length);
  for (const status of ['granted', 'denied', 'open'])
    add('complaints', 'complaints_outcome', status, appeals.filter((a) => a.status === status).length);
  add('complaints', 'decisions_reversed', 'total', appeals.filter((a) => a.status === 'granted').length);
  add(
    'complaints',
    'median_time_to_decision_hours',
    'total',
    hours(median(appeals.filter((a) => a.seconds !== null).map((a) => a.seconds!))),
  );

  // Section: automated means: reports detected by them, and how moderators decided their cases.
  const { rows: auto } = await pool.query<{
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
        AND o.context->>'source' IN ('anticheat_system', 'game_server')`,
    args,
  );
  const a = auto[0]!;
  add('automated_means', 'reports_detected_automatically', 'total', a.n);
  add('automated_means', 'cases_decided_by_moderators', 'upheld', a.upheld);
  add('automated_means', 'cases_decided_by_moderators', 'dismissed', a.dismissed);
  add(
    'automated_means',
    'accuracy_indicator',
    'upheld / (upheld + dismissed)',
    a.upheld + a.dismissed ? Math.round((a.upheld / (a.upheld + a.dismissed)) * 10_000) / 10_000 : '',
  );
  add('automated_means', 'automatic_score_penalties', 'total', a.points);
  add('automated_means', 'automatic_score_penalties', 'given back by a person', a.restored);

  // Section: measures against misuse (Art. 23): reporters whose reports are no longer weighed.
  const { rows: muted } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM reporters r
      WHERE r.muted_at >= $1 AND r.muted_at < $2
        AND ${q.platform === 'all' || q.platform === 'operator' ? 'true' : 'r.studio_id = $3::uuid'}`,
    args,
  );
  add('misuse', 'suspensions_of_notices_article_23', 'reporters muted', muted[0]!.n);
  add('misuse', 'suspensions_of_recipients_article_23', 'total', 0);

  // Section: recipients: the average monthly active recipients.
  if (q.activeRecipients !== undefined) {
    add('recipients', 'average_monthly_active_recipients', 'total', q.activeRecipients);
    add('recipients', 'average_monthly_active_recipients', 'source', 'supplied by the studio');
  } else {
    const { rows: months } = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT x.player_id)::int AS n FROM (
         SELECT o.player_id, date_trunc('month', o.created_at) AS m FROM offenses o
          WHERE o.created_at >= $1 AND o.created_at < $2 AND ${scope.offense}
         UNION ALL
         SELECT c.player_id, date_trunc('month', c.created_at) FROM authorization_codes c
           JOIN games g ON g.id = c.game_id
          WHERE c.created_at >= $1 AND c.created_at < $2
            AND ${q.platform === 'all' || q.platform === 'operator' ? 'true' : 'g.studio_id = $3::uuid'}) x
       GROUP BY x.m`,
      args,
    );
    const monthsInPeriod = Math.max(
      1,
      (q.to.getUTCFullYear() - q.from.getUTCFullYear()) * 12 +
        q.to.getUTCMonth() -
        q.from.getUTCMonth() +
        (q.to.getUTCDate() > 1 || q.to.getUTCHours() > 0 ? 1 : 0),
    );
    const sum = months.reduce((s, m) => s + m.n, 0);
    add('recipients', 'average_monthly_active_recipients', 'total', Math.round(sum / monthsInPeriod));
    add(
      'recipients',
      'average_monthly_active_recipients',
      'source',
      'distinct players the service saw each month (reported, or signed in through a game)',
    );
  }

  return {
    format: q.format,
    report: {
      period: { from: q.from.toISOString(), to: q.to.toISOString() },
      platform: q.platform,
      generatedAt: new Date().toISOString(),
      rows,
    },
  };
}

/** The report as CSV (RFC 4180): a header, then one line a figure; every field quoted. */
export function reportCsv(rows: readonly ReportRow[]): string {
  const quote = (v: string | number) => `"${String(v).replaceAll('"', '""')}"`;
  return [
    ['section', 'field', 'breakdown', 'value'].map(quote).join(','),
    ...rows.map((r) => [r.section, r.field, r.breakdown, r.value].map(quote).join(',')),
  ].join('\r\n');
}
