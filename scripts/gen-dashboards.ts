import fs from 'node:fs';
import path from 'node:path';

/**
 * The Grafana dashboards that ship (issue 39), written as JSON into ops/grafana/ from the panels
 * below: `npm run -s dashboards` after a change here; a test fails when the committed files are not
 * what this writes, or when a panel names a metric the service does not export. Each panel's query
 * is PromQL over the service's metrics and the recording rules of ops/prometheus/player-trust.rules.yml.
 */
export const DASHBOARD_DIR = 'ops/grafana';

interface Panel {
  title: string;
  /** PromQL, one per series; `legend` is Grafana's legend format. */
  queries: { expr: string; legend: string }[];
  unit?: string;
  description?: string;
}

const REPORT_ROUTES = '/v1/[a-z]+/submitReport/:serviceId|/v1/reports/batch';

const DASHBOARDS: Record<string, { title: string; description: string; panels: Panel[] }> = {
  overview: {
    title: 'player-trust: overview',
    description:
      'Is the service meeting its service levels (docs/operators.md "Service levels, alerts and runbooks")?',
    panels: [
      {
        title: 'Requests by status class',
        unit: 'reqps',
        queries: [
          {
            expr: 'sum by (class) (label_replace(rate(player_trust_http_requests_total[5m]), "class", "${1}xx", "status", "(.).."))',
            legend: '{{class}}',
          },
        ],
      },
      {
        title: 'Report requests answered 5xx (objective: under 0.1%)',
        unit: 'percentunit',
        queries: [
          { expr: 'player_trust:report_error_ratio:rate5m', legend: '5 min' },
          { expr: 'player_trust:report_error_ratio:rate1h', legend: '1 h' },
        ],
      },
      {
        title: 'Report latency, 99th percentile (objective: 250 ms)',
        unit: 's',
        queries: [{ expr: 'player_trust:report_latency_seconds:p99_5m', legend: 'p99' }],
      },
      {
        title: 'Oldest accepted job not yet queued',
        unit: 's',
        queries: [{ expr: 'max(player_trust_outbox_oldest_unsent_seconds)', legend: 'outbox' }],
      },
      {
        title: 'Jobs waiting, by queue',
        queries: [
          {
            expr: 'sum by (queue) (max by (queue, state) (player_trust_queue_jobs{state=~"waiting|prioritized"}))',
            legend: '{{queue}}',
          },
        ],
      },
      {
        title: 'Review cases past their due time',
        queries: [{ expr: 'max(player_trust_cases_overdue)', legend: 'overdue' }],
      },
      {
        title: 'From 201 to a filed case, 99th percentile (objective: 60 s)',
        unit: 's',
        queries: [{ expr: 'player_trust:report_to_case_seconds:p99_5m', legend: 'p99' }],
      },
      {
        title: 'Webhook event to delivery, 99th percentile (objective: 60 s)',
        unit: 's',
        queries: [{ expr: 'player_trust:webhook_delivery_seconds:p99_5m', legend: 'p99' }],
      },
    ],
  },
  'write-path': {
    title: 'player-trust: write path',
    description: 'A report from the request to the outbox: rates, latency, errors, the rate limiter.',
    panels: [
      {
        title: 'Reports by route and status',
        unit: 'reqps',
        queries: [
          {
            expr: `sum by (route, status) (rate(player_trust_http_requests_total{route=~"${REPORT_ROUTES}"}[5m]))`,
            legend: '{{route}} {{status}}',
          },
        ],
      },
      {
        title: 'Report latency',
        unit: 's',
        queries: [0.5, 0.99].map((q) => ({
          expr: `histogram_quantile(${q}, sum by (le) (rate(player_trust_http_request_duration_seconds_bucket{route=~"/v1/[a-z]+/submitReport/:serviceId",status="201"}[5m])))`,
          legend: `p${q * 100}`,
        })),
      },
      {
        title: 'Error budget burn (report 5xx ratio against 0.1%)',
        queries: ['5m', '30m', '1h', '6h'].map((w) => ({
          expr: `player_trust:report_error_ratio:rate${w} / 0.001`,
          legend: w,
        })),
      },
      {
        title: 'Outbox: unsent rows and the oldest',
        queries: [
          { expr: 'max(player_trust_outbox_unsent)', legend: 'unsent rows' },
          { expr: 'max(player_trust_outbox_oldest_unsent_seconds)', legend: 'oldest (s)' },
        ],
      },
      {
        title: 'Rate-limit checks let through while Redis did not answer',
        queries: [
          {
            expr: 'sum by (group) (increase(player_trust_rate_limiter_unavailable_total[5m]))',
            legend: '{{group}}',
          },
        ],
      },
    ],
  },
  'queues-workers': {
    title: 'player-trust: queues and workers',
    description: 'Queue depths by state, jobs by outcome and duration, stalled jobs.',
    panels: [
      {
        title: 'Jobs by queue and state',
        queries: [
          {
            expr: 'max by (queue, state) (player_trust_queue_jobs{state=~"waiting|prioritized|active|delayed"})',
            legend: '{{queue}} {{state}}',
          },
        ],
      },
      {
        title: 'Jobs finished, by queue and outcome',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (queue, outcome) (rate(player_trust_jobs_total[5m]))',
            legend: '{{queue}} {{outcome}}',
          },
        ],
      },
      {
        title: 'Job duration, 99th percentile',
        unit: 's',
        queries: [
          {
            expr: 'histogram_quantile(0.99, sum by (queue, le) (rate(player_trust_job_duration_seconds_bucket[5m])))',
            legend: '{{queue}}',
          },
        ],
      },
      {
        title: 'Jobs finished, by queue shard',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (queue, shard) (rate(player_trust_jobs_total[5m]))',
            legend: '{{queue}} shard {{shard}}',
          },
        ],
      },
      {
        title: 'Stalled jobs (a worker died holding them)',
        queries: [
          { expr: 'sum by (queue) (increase(player_trust_jobs_stalled_total[15m]))', legend: '{{queue}}' },
        ],
      },
      {
        title: 'Queue depths unknown (Redis silent)',
        queries: [
          { expr: 'max(player_trust_queue_jobs_stale)', legend: 'stale' },
          { expr: 'max(player_trust_queue_jobs_age_seconds)', legend: 'age (s)' },
        ],
      },
    ],
  },
  'moderation-appeals': {
    title: 'player-trust: moderation and appeals',
    description: "The moderators' work and the studios' webhooks.",
    panels: [
      {
        title: 'Review cases past their due time',
        queries: [{ expr: 'max(player_trust_cases_overdue)', legend: 'overdue' }],
      },
      {
        title: 'Moderator decisions',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (route) (rate(player_trust_http_requests_total{route=~"/v1/admin/cases/:caseId/resolve|/v1/admin/appeals/:appealId/decide|/v1/admin/players/:serviceId/sanctions.*",status=~"2.."}[15m]))',
            legend: '{{route}}',
          },
        ],
      },
      {
        title: 'Webhook endpoints disabled or parked',
        queries: [
          { expr: 'max(player_trust_webhooks_disabled_failing)', legend: 'disabled (failing)' },
          { expr: 'max(player_trust_webhooks_parked)', legend: 'parked' },
        ],
      },
      {
        title: 'Webhook delivery time by outcome, 99th percentile',
        unit: 's',
        queries: [
          {
            expr: 'histogram_quantile(0.99, sum by (outcome, le) (rate(player_trust_webhook_delivery_seconds_bucket[15m])))',
            legend: '{{outcome}}',
          },
        ],
      },
      {
        title: 'Webhook jobs by outcome',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (outcome) (rate(player_trust_jobs_total{queue="webhook-delivery"}[5m]))',
            legend: '{{outcome}}',
          },
        ],
      },
    ],
  },
  topology: {
    title: 'player-trust: topology',
    description: 'Standbys, where reads go, and the processes.',
    panels: [
      {
        title: 'Standby up',
        queries: [{ expr: 'min by (replica) (player_trust_replica_up)', legend: '{{replica}}' }],
      },
      {
        title: 'Standby lag',
        unit: 's',
        queries: [{ expr: 'max by (replica) (player_trust_replica_lag_seconds)', legend: '{{replica}}' }],
      },
      {
        title: 'Reads by where they were served',
        unit: 'ops',
        queries: [{ expr: 'sum by (target) (rate(player_trust_reads_total[5m]))', legend: '{{target}}' }],
      },
      {
        title: 'Reads sent to the primary, by reason',
        unit: 'ops',
        queries: [
          { expr: 'sum by (reason) (rate(player_trust_read_fallbacks_total[5m]))', legend: '{{reason}}' },
        ],
      },
      {
        title: 'Consistency-token waits, 99th percentile',
        unit: 's',
        queries: [
          {
            expr: 'histogram_quantile(0.99, sum by (outcome, le) (rate(player_trust_consistency_token_wait_seconds_bucket[5m])))',
            legend: '{{outcome}}',
          },
        ],
      },
      {
        title: 'CPU of the API and the workers',
        unit: 'percentunit',
        queries: [
          {
            expr: 'sum by (instance) (rate(player_trust_api_process_cpu_seconds_total[5m]))',
            legend: 'api {{instance}}',
          },
          {
            expr: 'sum by (instance) (rate(player_trust_worker_process_cpu_seconds_total[5m]))',
            legend: 'worker {{instance}}',
          },
        ],
      },
    ],
  },
};

/** One dashboard in Grafana's JSON model: two panels a row, a Prometheus data source to choose. */
function dashboard(uid: string, d: (typeof DASHBOARDS)[string]) {
  return {
    uid: `player-trust-${uid}`,
    title: d.title,
    description: d.description,
    tags: ['player-trust'],
    schemaVersion: 39,
    version: 1,
    editable: true,
    time: { from: 'now-6h', to: 'now' },
    refresh: '30s',
    templating: {
      list: [{ name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus' }],
    },
    panels: d.panels.map((p, i) => ({
      id: i + 1,
      type: 'timeseries',
      title: p.title,
      ...(p.description ? { description: p.description } : {}),
      datasource: { type: 'prometheus', uid: '${datasource}' },
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      fieldConfig: { defaults: { unit: p.unit ?? 'short' }, overrides: [] },
      targets: p.queries.map((q, j) => ({
        refId: String.fromCharCode(65 + j),
        datasource: { type: 'prometheus', uid: '${datasource}' },
        expr: q.expr,
        legendFormat: q.legend,
      })),
    })),
  };
}

/** Every dashboard file, by name, as this writes it. */
export const dashboardFiles = (): Map<string, string> =>
  new Map(
    Object.entries(DASHBOARDS).map(([uid, d]) => [
      `${uid}.json`,
      `${JSON.stringify(dashboard(uid, d), null, 2)}\n`,
    ]),
  );

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.mkdirSync(DASHBOARD_DIR, { recursive: true });
  for (const [name, text] of dashboardFiles()) fs.writeFileSync(path.join(DASHBOARD_DIR, name), text);
  process.stdout.write(`wrote ${dashboardFiles().size} dashboards to ${DASHBOARD_DIR}\n`);
}
