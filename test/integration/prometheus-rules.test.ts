import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { WorkerMetrics } from '../../common/metrics.js';
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

  it('load: promtool check rules', async () => {
    const { stdout } = await run(PROMTOOL, ['check', 'rules', RULES]);
    expect(stdout).to.match(/SUCCESS: \d+ rules found/);
  });

  it('fire on the failures they are for and stay quiet otherwise: promtool test rules', async () => {
    const { stdout } = await run(PROMTOOL, ['test', 'rules', 'rules.test.yml'], { cwd: 'ops/prometheus' });
    expect(stdout).to.include('SUCCESS');
  });

  it('name only metrics the API and the workers export, and every alert has its runbook in the README', async () => {
    const rules = fs.readFileSync(RULES, 'utf8');
    const named = [...new Set([...rules.matchAll(/\b(player_trust_[a-z0-9_]+)/g)].map((m) => m[1]!))].map(
      (name) => name.replace(/_(bucket|sum|count)$/, ''),
    );
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

    const readme = fs.readFileSync('README.md', 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
    expect(alerts.length).to.be.greaterThan(10);
    for (const alert of alerts) {
      expect(rules, alert).to.include(`runbook: README.md#${alert.toLowerCase()}`);
      expect(readme, `README runbook for ${alert}`).to.match(new RegExp(`^#### ${alert}$`, 'm'));
    }
  });
});
