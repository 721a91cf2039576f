import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { WorkerMetrics } from '../../common/metrics.js';
import { DASHBOARD_DIR, dashboardFiles } from '../../scripts/gen-dashboards.js';
import { startTestApi, type TestApi } from '../helpers/app.js';

const run = promisify(execFile);
const RULES = 'ops/prometheus/player-trust.rules.yml';
const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';

/**
 * Issue 39: the alert rules that ship, checked by Prometheus's own tool (Debian's `prometheus`
 * package): they load (`promtool check rules`), each alert fires on the figures it is for and not
 * on healthy ones (`promtool test rules`, ops/prometheus/rules.test.yml), and every metric a rule
 * names is one the service really exports.
 */
describe('Prometheus rules that ship with the service', function () {
  this.timeout(60_000);
  let api: TestApi | undefined;

  before(function () {
    if (fs.existsSync(PROMTOOL)) return;
    if (process.env.CI) throw new Error(`promtool not found at ${PROMTOOL}`);
    console.warn(
      `    skipped: no promtool at ${PROMTOOL} (apt-get install prometheus, or set PROMTOOL_PATH)`,
    );
    this.skip();
  });
  after(() => api?.close());

  it("the compose profile's Prometheus configuration is valid: promtool check config", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-promcfg-'));
    try {
      // Its token file is a compose secret (/run/secrets/metrics_token): here a file of our own.
      fs.writeFileSync(path.join(dir, 'token'), 'a-metrics-token-for-the-check');
      fs.copyFileSync(RULES, path.join(dir, 'player-trust.rules.yml'));
      fs.writeFileSync(
        path.join(dir, 'prometheus.yml'),
        fs
          .readFileSync('ops/prometheus/prometheus.compose.yml', 'utf8')
          .replaceAll('/run/secrets/metrics_token', path.join(dir, 'token')),
      );
      const { stdout } = await run(PROMTOOL, ['check', 'config', path.join(dir, 'prometheus.yml')]);
      expect(stdout).to.include('SUCCESS');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('load: promtool check rules', async () => {
    const { stdout } = await run(PROMTOOL, ['check', 'rules', RULES]);
    expect(stdout).to.match(/SUCCESS: \d+ rules found/);
  });

  it('fire on the failures they are for and stay quiet otherwise: promtool test rules', async () => {
    const { stdout } = await run(PROMTOOL, ['test', 'rules', 'rules.test.yml'], { cwd: 'ops/prometheus' });
    expect(stdout).to.include('SUCCESS');
  });

  /** The PromQL of every panel of the shipped dashboards. */
  const panelQueries = () =>
    [...dashboardFiles().values()].flatMap((text) =>
      (JSON.parse(text) as { panels: { targets: { expr: string }[] }[] }).panels.flatMap((p) =>
        p.targets.map((t) => t.expr),
      ),
    );

  it('the dashboards in ops/grafana are what scripts/gen-dashboards.ts writes, and every panel query parses', async () => {
    for (const [name, text] of dashboardFiles())
      expect(
        fs.readFileSync(path.join(DASHBOARD_DIR, name), 'utf8'),
        `${name}: run npx tsx scripts/gen-dashboards.ts`,
      ).to.equal(text);
    expect(fs.readdirSync(DASHBOARD_DIR).sort()).to.deep.equal([...dashboardFiles().keys()].sort());
    // promtool parses PromQL in rules only: each panel's query becomes a rule to check.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-panels-'));
    try {
      const file = path.join(dir, 'panels.yml');
      fs.writeFileSync(
        file,
        JSON.stringify({
          groups: [
            {
              name: 'panels',
              rules: panelQueries().map((expr, i) => ({ record: `panel:query:${i}`, expr })),
            },
          ],
        }),
      );
      const { stdout } = await run(PROMTOOL, ['check', 'rules', file]);
      expect(stdout).to.include(`SUCCESS: ${panelQueries().length} rules found`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('name only metrics the API and the workers export, and every alert has its runbook where its annotation points (the operators guide)', async () => {
    const rules = fs.readFileSync(RULES, 'utf8');
    const everything = [rules, ...panelQueries()].join('\n');
    const named = [
      ...new Set([...everything.matchAll(/\b(player_trust_[a-z0-9_]+)/g)].map((m) => m[1]!)),
    ].map((name) => name.replace(/_(bucket|sum|count)$/, ''));
    // A recording rule a panel uses is one the rules define.
    const recorded = new Set([...rules.matchAll(/record: (\S+)/g)].map((m) => m[1]!));
    const used = [
      ...new Set(
        panelQueries().flatMap((q) => [...q.matchAll(/\b(player_trust:[a-z0-9_:]+)/g)].map((m) => m[1]!)),
      ),
    ];
    expect(
      used.filter((r) => !recorded.has(r)),
      'recording rules the dashboards use that the rules do not define',
    ).to.deep.equal([]);
    // With a standby configured (here the primary's own address: it fails the standby checks, which
    // is all the gauges need to be there), the API exports the standby gauges too.
    const base = await startTestApi();
    const databaseUrl = base.config.databaseUrl!;
    await base.close();
    api = await startTestApi({ DATABASE_REPLICA_URLS: databaseUrl });
    const exported =
      (await (await fetch(`${api.url}/metrics`)).text()) + (await new WorkerMetrics('q').registry.metrics());
    const missing = named.filter((name) => !exported.includes(`# TYPE ${name} `));
    expect(missing, 'metrics the rules name that nothing exports').to.deep.equal([]);

    const guide = fs.readFileSync('docs/operators.md', 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
    expect(alerts.length).to.be.greaterThan(10);
    for (const alert of alerts) {
      expect(rules, alert).to.include(`runbook: docs/operators.md#${alert.toLowerCase()}`);
      expect(guide, `the operators' guide's runbook for ${alert}`).to.match(
        new RegExp(`^#### ${alert}$`, 'm'),
      );
    }
  });
});
