import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { provideRedis, type ServiceHandle } from '../../common/services/index.js';
import { freePort } from '../../common/services/ports.js';
import { createTenant, createTestPlayer, startTestApi, type TestApi } from '../helpers/app.js';
import { eventually } from '../helpers/http-server.js';
import { ownDatabase } from '../helpers/services.js';

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';
const RULES = 'ops/prometheus/player-trust.rules.yml';

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
}

/**
 * Issue 39: the shipped alert rules exercised once for real. A Prometheus server from Debian's
 * package scrapes a running API; its Redis is stopped on purpose (SIGSTOP: silent, not refusing),
 * accepted reports' jobs wait in the outbox, and PlayerTrustOutboxBehind fires; Redis back, the relay
 * sends them and it resolves. The rule is the shipped one with its waits shortened (over a minute
 * old, for five minutes, would make a seven-minute test): its expression and metric are the same.
 */
describe('a real Prometheus server: the outbox alert fires while Redis is stalled, and resolves', function () {
  this.timeout(120_000);
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let redis: ServiceHandle;
  let redisPid: number;
  let api: TestApi;
  let prometheus: ChildProcess | undefined;
  let promUrl: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-prom-'));

  before(async function () {
    if (!fs.existsSync(PROMETHEUS)) {
      if (process.env.CI) throw new Error(`prometheus not found at ${PROMETHEUS}`);
      console.warn(`    skipped: no prometheus at ${PROMETHEUS} (apt-get install prometheus)`);
      this.skip();
    }
    db = await ownDatabase('prometheus');
    redis = await provideRedis({ dataDir: path.join(dir, 'redis-data'), ephemeral: true });
    redisPid = (
      JSON.parse(fs.readFileSync(path.join(dir, 'redis-data', 'redis.json'), 'utf8')) as { pid: number }
    ).pid;
    api = await startTestApi({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      OUTBOX_RELAY_INTERVAL_MS: '500',
    });

    const rules = YAML.parse(fs.readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] };
    const outbox = rules.groups.flatMap((g) => g.rules).find((r) => r.alert === 'PlayerTrustOutboxBehind')!;
    expect(outbox.expr).to.equal('max(player_trust_outbox_oldest_unsent_seconds) > 60');
    outbox.expr = outbox.expr.replace('> 60', '> 2');
    outbox.for = '2s';
    fs.writeFileSync(path.join(dir, 'rules.yml'), YAML.stringify(rules));
    fs.writeFileSync(
      path.join(dir, 'prometheus.yml'),
      YAML.stringify({
        global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
        rule_files: ['rules.yml'],
        scrape_configs: [
          {
            job_name: 'player-trust-api',
            static_configs: [{ targets: [new URL(api.url).host] }],
          },
        ],
      }),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    await eventually(
      'Prometheus ready',
      async () => (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.ok,
      30_000,
    );
  });
  after(async () => {
    try {
      process.kill(redisPid, 'SIGCONT');
    } catch {
      // gone already
    }
    prometheus?.kill('SIGTERM');
    await api?.close();
    await redis?.stop();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const outboxAlert = async () => {
    const res = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as {
      data: { alerts: { labels: { alertname: string }; state: string }[] };
    };
    return res.data.alerts.find((a) => a.labels.alertname === 'PlayerTrustOutboxBehind')?.state ?? 'inactive';
  };

  it('PlayerTrustOutboxBehind: firing while Redis is stopped, resolved once it is back', async () => {
    await eventually('the API scraped', async () => {
      const res = (await (await fetch(`${promUrl}/api/v1/targets`)).json()) as {
        data: { activeTargets: { health: string }[] };
      };
      return res.data.activeTargets[0]?.health === 'up';
    });
    expect(await outboxAlert()).to.equal('inactive');

    const tenant = await createTenant(api.pool, 'Prometheus');
    const player = await createTestPlayer(api.pool);
    process.kill(redisPid, 'SIGSTOP');
    const res = await fetch(`${api.url}/v1/toxicity/submitReport/${player.serviceId}`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ report: { isToxic: true, severity: 'low' } }),
    });
    expect(res.status, 'a report is accepted while Redis is stalled').to.equal(201);
    await eventually('the alert fires', async () => (await outboxAlert()) === 'firing', 60_000);

    process.kill(redisPid, 'SIGCONT');
    await eventually(
      'the outbox sent',
      async () => {
        const { rows } = await api.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL',
        );
        return rows[0]!.n === 0;
      },
      60_000,
    );
    await eventually('the alert resolves', async () => (await outboxAlert()) === 'inactive', 60_000);
  });
});
