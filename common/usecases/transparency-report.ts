import Joi from 'joi';
import type { Pool } from '../data/db.js';
import { findStudio } from '../data/repos/accounts.js';
import { sanctionDecisions } from '../data/repos/transparency.js';
import {
  appealsIn,
  automatedReportsIn,
  playersSeenByMonth,
  reportersMutedIn,
  misuseIn,
  sanctionsPlacedIn,
  userReportsIn,
  noticesIn,
  urgentNoticesIn,
  ordersIn,
  disputesIn,
} from '../data/repos/transparency-report.js';
import { isUuid } from '../domain/ids.js';
import { REPORT_KINDS } from '../domain/reports.js';
import { CATEGORY_OF_KIND, isRestriction, transparencyStatement } from '../domain/transparency-statement.js';
import { notFound, validationError } from '../errors.js';
import { check } from '../validation.js';

/**
 * The transparency report (Art. 15 and 24(1) DSA; issue 35), computed from the records for a period
 * and a platform, laid out after the sections of the harmonised templates of Implementing Regulation
 * (EU) 2024/2835 (docs/compliance.md "The transparency report"): one row a figure, `section, field, breakdown,
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

/** The sections of the harmonised templates the report's rows fall in, in the report's order. */
export const REPORT_SECTIONS = [
  'orders',
  'restrictions',
  'notices',
  'complaints',
  'automated_means',
  'misuse',
  'disputes',
  'recipients',
] as const;

export interface ReportRow {
  section: (typeof REPORT_SECTIONS)[number];
  field: string;
  breakdown: string;
  value: number | string;
}

const median = (xs: number[]) => {
  if (xs.length === 0) return '';
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** How many times each value comes, in the values' order. */
const tally = (xs: string[]) =>
  [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())].sort();
const hours = (seconds: number | '') => (seconds === '' ? '' : Math.round((seconds / 3600) * 100) / 100);

export async function transparencyReport(
  pool: Pool,
  query: unknown,
  opts: { territorialScope: readonly string[]; now?: Date },
) {
  const now = opts.now ?? new Date();
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
    if (!(await findStudio(pool, q.platform))) throw notFound(`Studio ${q.platform}`);
  }
  const period = { from: q.from, to: q.to, platform: q.platform };
  const rows: ReportRow[] = [];
  const add = (section: ReportRow['section'], field: string, breakdown: string, value: number | string) =>
    rows.push({ section, field, breakdown, value });

  // Section: orders from authorities (Art. 9, 10; Art. 15(1)(a)), by Member State and type of illegal
  // content, with the median times to tell the authority of their receipt and to give them effect.
  const orders = await ordersIn(pool, period);
  for (const [kind, field] of [
    ['act', 'number_of_orders_to_act'],
    ['information', 'number_of_orders_to_provide_information'],
  ] as const) {
    const of = orders.filter((o) => o.kind === kind);
    add('orders', field, 'total', of.length);
    for (const [state, n] of tally(of.map((o) => o.member_state)))
      add('orders', field, `member_state:${state}`, n);
    for (const [category, n] of tally(of.map((o) => o.category))) add('orders', field, category, n);
    add(
      'orders',
      `${field}_median_time_to_inform_of_receipt_hours`,
      'total',
      hours(median(of.flatMap((o) => (o.ack_seconds === null ? [] : [o.ack_seconds])))),
    );
    add(
      'orders',
      `${field}_median_time_to_give_effect_hours`,
      'total',
      hours(median(of.flatMap((o) => (o.act_seconds === null ? [] : [o.act_seconds])))),
    );
  }

  // Section: restrictions (own initiative and on notifications), from their statements, in pages of
  // sanction ids (keyset), so a year of decisions is read in bounded pieces.
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  let after = '00000000-0000-0000-0000-000000000000';
  let total = 0;
  let warnings = 0;
  for (;;) {
    const page = await sanctionsPlacedIn(pool, period, after);
    if (page.length === 0) break;
    after = page[page.length - 1]!.id;
    const restrictions = page.filter((p) => isRestriction(p.type as never));
    warnings += page.length - restrictions.length;
    const facts = await sanctionDecisions(
      pool,
      restrictions.map((p) => p.id),
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

  // Section: notices (Art. 16 and trusted flaggers, docs/moderators.md "Notices"), then players' reports through
  // the games, the other notifications the service receives.
  const notices = await noticesIn(pool, period);
  for (const [source, field] of [
    ['notice', 'number_of_notices_article_16'],
    ['trusted_flagger', 'number_of_notices_trusted_flaggers'],
  ] as const) {
    const of = notices.filter((x) => x.source === source);
    add(
      'notices',
      field,
      'total',
      of.reduce((a, x) => a + x.n, 0),
    );
    for (const x of of) add('notices', field, x.category, x.n);
    add(
      'notices',
      `${field}_actioned`,
      'upheld',
      of.reduce((a, x) => a + x.upheld, 0),
    );
    add(
      'notices',
      `${field}_actioned`,
      'dismissed',
      of.reduce((a, x) => a + x.dismissed, 0),
    );
    add(
      'notices',
      `${field}_median_time_to_action_hours`,
      'total',
      hours(median(of.flatMap((x) => x.seconds))),
    );
  }
  // Urgent notices (ours, beside the template's rows): how many, why (life: DSA Art. 18), how fast.
  const urgent = await urgentNoticesIn(pool, period);
  add(
    'notices',
    'number_of_urgent_notices',
    'total',
    urgent.reduce((a, x) => a + x.n, 0),
  );
  for (const why of ['life', 'child', 'category'] as const)
    add('notices', 'number_of_urgent_notices', why, urgent.find((x) => x.urgency === why)?.n ?? 0);
  add(
    'notices',
    'urgent_notices_median_time_to_action_hours',
    'total',
    hours(median(urgent.flatMap((x) => x.seconds))),
  );
  const reports = await userReportsIn(pool, period);
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
  const appeals = await appealsIn(pool, period);
  add('complaints', 'number_of_complaints', 'total', appeals.length);
  add('complaints', 'number_of_complaints', 'by notifiers', appeals.filter((a) => a.by_notifier).length);
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
  const a = await automatedReportsIn(pool, period);
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

  // Section: measures against misuse (Art. 23): reporters muted by hand, and the warnings and
  // suspensions the manifestly-unfounded marks led to.
  const muted = await reportersMutedIn(pool, period);
  const misuse = await misuseIn(pool, period);
  add('misuse', 'suspensions_of_notices_article_23', 'reporters muted', muted);
  add('misuse', 'suspensions_of_notices_article_23', 'notifiers suspended', misuse.suspended.notifier);
  add(
    'misuse',
    'suspensions_of_notices_article_23',
    'trusted flaggers suspended',
    misuse.suspended.trusted_flagger,
  );
  add(
    'misuse',
    'suspensions_of_notices_article_23',
    'in-game reporters suspended',
    misuse.suspended.reporter,
  );
  add('misuse', 'warnings_article_23', 'total', misuse.warnings);
  add('misuse', 'suspensions_of_recipients_article_23', 'total', 0);

  // Section: out-of-court disputes (Art. 21; Art. 24(1)(a)): submitted, their outcomes, the median time
  // to complete them, and the share of the bodies' decisions the platform implemented.
  const disputes = await disputesIn(pool, period);
  add('disputes', 'number_of_disputes_submitted', 'total', disputes.length);
  for (const outcome of ['for_recipient', 'for_platform', 'settled', 'withdrawn'])
    add('disputes', 'dispute_outcomes', outcome, disputes.filter((d) => d.outcome === outcome).length);
  add('disputes', 'dispute_outcomes', 'open', disputes.filter((d) => d.outcome === null).length);
  add(
    'disputes',
    'median_time_to_complete_days',
    'total',
    (() => {
      const m = median(disputes.flatMap((d) => (d.seconds === null ? [] : [d.seconds])));
      return m === '' ? '' : Math.round((m / 86_400) * 100) / 100;
    })(),
  );
  const decided = disputes.filter((d) => d.outcome === 'for_recipient' || d.outcome === 'for_platform');
  add(
    'disputes',
    'share_of_decisions_implemented',
    'implemented / decided',
    decided.length
      ? Math.round((decided.filter((d) => d.implemented === true).length / decided.length) * 10_000) / 10_000
      : '',
  );

  // Section: recipients: the average monthly active recipients.
  if (q.activeRecipients !== undefined) {
    add('recipients', 'average_monthly_active_recipients', 'total', q.activeRecipients);
    add('recipients', 'average_monthly_active_recipients', 'source', 'supplied by the studio');
  } else {
    const months = await playersSeenByMonth(pool, period);
    // Averaged over the months the service saw: from the period's first month with any report to
    // its last month that has begun. Months before the service ran, or still to come (a year asked
    // for in November), are no months of zero recipients (issue 51: 2026 read 0 while November read 1).
    const monthIndex = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
    const lastBegun = Math.min(monthIndex(new Date(q.to.getTime() - 1)), monthIndex(now));
    const counted = months.length ? Math.max(1, lastBegun - monthIndex(months[0]!.month) + 1) : 1;
    const sum = months.reduce((s, m) => s + m.n, 0);
    add('recipients', 'average_monthly_active_recipients', 'total', Math.round((sum / counted) * 10) / 10);
    add(
      'recipients',
      'average_monthly_active_recipients',
      'source',
      `distinct players reported each month, averaged over the ${counted} month(s) from the period's first month with a report to its last month begun (a floor: players never reported are not seen)`,
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
