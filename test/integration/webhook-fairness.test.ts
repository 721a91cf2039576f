import { expect } from 'chai';
import { createTenant, startTestApi, type Tenant, type TestApi } from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually, TestHttpServer } from '../helpers/http-server.js';
import { startTestWorker } from '../helpers/workers.js';
import type { RunningWorker } from '../../worker/run.js';

interface Delivery {
  id: string;
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}
interface Hook {
  id: string;
  parkedUntil: string | null;
}

/**
 * Issue 34: one studio's dead endpoint stopped everyone's webhooks. Deliveries waited in one
 * first-come line, and each attempt at an endpoint that never answers held a worker's slot for the
 * whole timeout. Three studios here: H answers at once, B accepts connections and never answers,
 * S answers 500 after a moment. B and S have a backlog before H sends anything.
 */
describe('webhook delivery is fair between endpoints', function () {
  this.timeout(90_000);
  let api: TestApi;
  let worker: RunningWorker;
  const healthy = new TestHttpServer();
  const blackHole = new TestHttpServer();
  const failing = new TestHttpServer();
  let failingAnswers = 500;

  before(async () => {
    await Promise.all([healthy.start(), blackHole.start(), failing.start()]);
    healthy.handler = (_req, res) => res.writeHead(204).end();
    blackHole.handler = () => undefined; // holds the connection, never answers
    failing.handler = (_req, res) => {
      setTimeout(() => res.writeHead(failingAnswers).end(), 300);
    };
    api = await startTestApi({
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      WORKER_CONCURRENCY: '4',
      WEBHOOK_ENDPOINT_CONCURRENCY: '1',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_BREAKER_FAILURES: '3',
      WEBHOOK_BREAKER_COOLDOWN_MS: '3000',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '400',
      WEBHOOK_RETRY_WINDOW_MS: '600000',
      WEBHOOK_DISABLE_AFTER_FAILURES: '1000',
      RATE_LIMIT_WEBHOOKS_BURST: '1000',
    });
    worker = await startTestWorker(api.config, 'webhooks');
  });
  after(async () => {
    await worker?.stop();
    await api?.close();
    await Promise.all([healthy.close(), blackHole.close(), failing.close()]);
  });

  const register = async (tenant: Tenant, url: string) => {
    const res = await call<{ id: string }>(api.url, 'POST', '/v1/webhooks', {
      spec: '/v1/webhooks',
      headers: tenant.headers,
      json: { url, events: ['offense.created'] },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };
  const sendTests = async (tenant: Tenant, id: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await call(api.url, 'POST', `/v1/webhooks/${id}/test`, {
        spec: '/v1/webhooks/{webhookId}/test',
        headers: tenant.headers,
      });
      expect(res.status, res.text).to.equal(202);
    }
  };
  const log = async (tenant: Tenant, id: string) =>
    (
      await call<{ items: Delivery[] }>(api.url, 'GET', `/v1/webhooks/${id}/deliveries?limit=100`, {
        spec: '/v1/webhooks/{webhookId}/deliveries',
        headers: tenant.headers,
      })
    ).body.items;
  const hook = async (tenant: Tenant, id: string) =>
    (
      await call<Hook>(api.url, 'GET', `/v1/webhooks/${id}`, {
        spec: '/v1/webhooks/{webhookId}',
        headers: tenant.headers,
      })
    ).body;

  it("a healthy endpoint's events go out while a silent and a failing one hold a backlog; the failing ones are parked, their log says when they are tried again, and a fixed one resumes when turned back on", async () => {
    const [h, b, s] = [
      await createTenant(api.pool, 'H'),
      await createTenant(api.pool, 'B'),
      await createTenant(api.pool, 'S'),
    ];
    const [hId, bId, sId] = [
      await register(h, healthy.url('/h')),
      await register(b, blackHole.url('/b')),
      await register(s, failing.url('/s')),
    ];
    await sendTests(b, bId, 30);
    await sendTests(s, sId, 30);
    await sendTests(h, hId, 10);

    // Every one of H's events arrives while most of B's and S's backlog, queued before them, has not
    // even been tried: in a first-come line all 60 would have gone first (B's at 1.5 s a slot).
    await eventually(
      "H's 10 events delivered",
      async () => (await log(h, hId)).filter((d) => d.status === 'delivered').length === 10,
      30_000,
    );
    expect(healthy.requestsTo('/h')).to.have.length(10);
    const tried = async (t: Tenant, id: string) => (await log(t, id)).filter((d) => d.attempts > 0).length;
    expect(await tried(b, bId), 'B deliveries tried before H was served').to.be.at.most(6);
    expect(await tried(s, sId), 'S deliveries tried before H was served').to.be.below(30);

    // B's attempts keep failing: it is parked, and the log says when each delivery is tried next.
    const parked = await eventually(
      'B parked',
      async () => (await hook(b, bId)).parkedUntil ?? undefined,
      30_000,
    );
    const pending = (await log(b, bId)).filter((d) => d.status === 'pending');
    expect(pending).to.have.length(30);
    for (const d of pending) expect(Date.parse(d.nextAttemptAt!)).to.be.at.least(Date.parse(parked));
    const attemptsWhenParked = (await log(b, bId)).reduce((n, d) => n + d.attempts, 0);
    // While parked, nothing is attempted; once the parking ends, one attempt probes it, fails, and
    // parks it again for twice as long.
    const reparked = await eventually(
      'B probed and parked again',
      async () => {
        const until = (await hook(b, bId)).parkedUntil;
        return until && until !== parked ? until : undefined;
      },
      30_000,
    );
    const probes = (await log(b, bId)).filter((d) => d.lastAttemptAt && d.lastAttemptAt >= parked);
    expect(probes.length, 'attempts after the parking ended').to.be.at.least(1);
    const attemptsNow = (await log(b, bId)).reduce((n, d) => n + d.attempts, 0);
    expect(attemptsNow - attemptsWhenParked).to.be.at.most(2);
    const { rows } = await api.pool.query<{ parks: number }>('SELECT parks FROM webhooks WHERE id = $1', [
      bId,
    ]);
    expect(rows[0]!.parks).to.equal(2);
    expect(Date.parse(reparked) - Date.parse(parked)).to.be.at.least(6000 - 1000);

    // S is mended and turned back on: the parking ends at once and its backlog goes out.
    await eventually('S parked', async () => (await hook(s, sId)).parkedUntil !== null, 30_000);
    failingAnswers = 204;
    const on = await call<Hook>(api.url, 'PATCH', `/v1/webhooks/${sId}`, {
      spec: '/v1/webhooks/{webhookId}',
      headers: s.headers,
      json: { enabled: true },
    });
    expect(on.status, on.text).to.equal(200);
    expect(on.body.parkedUntil).to.equal(null);
    await eventually(
      "S's 30 events delivered",
      async () => (await log(s, sId)).filter((d) => d.status === 'delivered').length === 30,
      30_000,
    );
  });
});
