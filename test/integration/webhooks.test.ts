import crypto from 'node:crypto';
import type { Job } from 'bullmq';
import { expect } from 'chai';
import sinon from 'sinon';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createLogger } from '../../common/logger.js';
import { QUEUES, webhookAttempts, webhookRetryOf } from '../../common/queues/index.js';
import { sealWebhookSecret } from '../../common/security/webhook-secrets.js';
import { reviewProcessor } from '../../worker/processors/review.js';
import { webhookProcessor } from '../../worker/processors/webhook.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { EVENT_TYPES } from '../../common/data/repos/webhooks.js';
import { startWorker, type RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  TEST_PEPPER,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually, TestHttpServer, type Received } from '../helpers/http-server.js';

interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  eventId: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  redeliveryOf: string | null;
}

describe('webhooks', function () {
  this.timeout(60_000);
  let api: TestApi;
  let workers: RunningWorker[];
  let receiver: TestHttpServer;
  let forbidden: TestHttpServer;

  before(async () => {
    receiver = await new TestHttpServer().start();
    forbidden = await new TestHttpServer('127.0.0.2').start();
    api = await startTestApi({
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_DELAY_MS: '200',
      WEBHOOK_RETRY_WINDOW_MS: '700',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
      // These tests count every attempt of a retry window; the breaker that parks a failing endpoint
      // has its own suite (webhook-fairness.test.ts).
      WEBHOOK_BREAKER_FAILURES: '1000',
    });
    const log = createLogger('silent', 'w');
    workers = await Promise.all([
      startWorker(api.config, QUEUES.review, reviewProcessor, log),
      startWorker(api.config, QUEUES.webhooks, webhookProcessor, log),
    ]);
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api.close();
    await receiver.close();
    await forbidden.close();
  });

  const register = (tenant: Tenant, json: object) =>
    call<{ id: string; secret: string; events: string[]; code?: string }>(api.url, 'POST', '/v1/webhooks', {
      headers: tenant.headers,
      json,
    });

  const deliveries = (tenant: Tenant, webhookId: string, query = '') =>
    call<{ items: Delivery[]; nextCursor: string | null }>(
      api.url,
      'GET',
      `/v1/webhooks/${webhookId}/deliveries${query}`,
      { spec: '/v1/webhooks/{webhookId}/deliveries', headers: tenant.headers },
    );

  /** The requests that reached `path`, parsed, once `count` have arrived. */
  const received = (path: string, count: number) =>
    eventually(`${count} deliveries at ${path}`, async () => {
      const list = receiver.requestsTo(path);
      return list.length >= count ? list : undefined;
    });

  /** The official Standard Webhooks verifier, as a studio would run it: true, or the reason it refused. */
  const verify = (secret: string, r: Received, body = r.body) => {
    try {
      new Webhook(secret).verify(body, r.headers as Record<string, string>);
      return true;
    } catch (err) {
      if (err instanceof WebhookVerificationError) return err.message;
      throw err;
    }
  };

  describe('registration', () => {
    it('registers a webhook once with its secret, lists it without, and deletes it', async () => {
      const tenant = await createTenant(api.pool);
      const res = await register(tenant, { url: 'https://hooks.example.com/pt', events: ['case.resolved'] });
      expect(res.status).to.equal(201);
      // Standard Webhooks: whsec_ and the base64 of 32 random bytes.
      expect(res.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(res.headers.get('location')).to.equal(`/v1/webhooks/${res.body.id}`);
      expect(res.body.events).to.deep.equal(['case.resolved']);
      const all = await register(tenant, { url: 'https://hooks.example.com/all' });
      // Without events: every event the service sends.
      expect(all.body.events).to.deep.equal([...EVENT_TYPES]);

      const list = await call<{ items: { id: string; secret?: string }[] }>(api.url, 'GET', '/v1/webhooks', {
        headers: tenant.headers,
      });
      expect(list.body.items.map((w) => w.id)).to.deep.equal([res.body.id, all.body.id]);
      expect(list.text).to.not.include(res.body.secret);
      const { rows } = await api.pool.query<{ secret_ciphertext: Buffer }>(
        'SELECT secret_ciphertext FROM webhooks WHERE id = $1',
        [res.body.id],
      );
      expect(rows[0]!.secret_ciphertext.toString('latin1')).to.not.include(res.body.secret);

      const del = await call(api.url, 'DELETE', `/v1/webhooks/${res.body.id}`, {
        spec: '/v1/webhooks/{webhookId}',
        headers: tenant.headers,
      });
      expect(del.status).to.equal(204);
      const after = await call<{ items: { id: string }[] }>(api.url, 'GET', '/v1/webhooks', {
        headers: tenant.headers,
      });
      expect(after.body.items.map((w) => w.id)).to.deep.equal([all.body.id]);
    });

    it('refuses plain http, private and metadata addresses, credentials, unknown events, with nothing stored', async () => {
      const tenant = await createTenant(api.pool);
      for (const json of [
        { url: 'http://hooks.example.com/pt' },
        { url: 'https://10.0.0.5/hook' },
        { url: 'https://169.254.169.254/hook' },
        { url: `http://127.0.0.2:${forbidden.port}/hook` },
        { url: 'https://user:pw@hooks.example.com/' },
        // Names that can only be this machine, refused without resolving them.
        { url: 'https://localhost/hook' },
        { url: 'https://LOCALHOST./hook' },
        { url: 'https://api.localhost/hook' },
        { url: 'https://a.b.localhost:8443/hook' },
        { url: 'ftp://hooks.example.com/' },
        { url: 'https://hooks.example.com/', events: ['player.deleted'] },
        { url: 'https://hooks.example.com/', events: [] },
        {},
      ]) {
        const res = await register(tenant, json);
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.code).to.equal('validation_failed');
      }
      const { rows } = await api.pool.query('SELECT count(*)::int AS n FROM webhooks WHERE studio_id = $1', [
        tenant.studioId,
      ]);
      expect(rows[0].n).to.equal(0);
    });

    it("another studio can neither see, read the log of, nor delete a studio's webhook", async () => {
      const owner = await createTenant(api.pool);
      const stranger = await createTenant(api.pool);
      const hook = await register(owner, { url: 'https://hooks.example.com/x' });
      expect((await deliveries(stranger, hook.body.id)).status).to.equal(404);
      const del = await call(api.url, 'DELETE', `/v1/webhooks/${hook.body.id}`, {
        spec: '/v1/webhooks/{webhookId}',
        headers: stranger.headers,
      });
      expect(del.status).to.equal(404);
      const list = await call<{ items: unknown[] }>(api.url, 'GET', '/v1/webhooks', {
        headers: stranger.headers,
      });
      expect(list.body.items).to.deep.equal([]);
    });

    it('limits a studio to 10 webhooks', async () => {
      const tenant = await createTenant(api.pool);
      for (let i = 0; i < 10; i++)
        expect((await register(tenant, { url: `https://hooks.example.com/${i}` })).status).to.equal(201);
      const res = await register(tenant, { url: 'https://hooks.example.com/11' });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('webhook_limit_reached');
    });

    it('holds the limit when registrations race', async () => {
      const tenant = await createTenant(api.pool);
      const results = await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          register(tenant, { url: `https://hooks.example.com/race-${i}` }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).to.have.length(10);
      expect(results.filter((r) => r.status === 409)).to.have.length(5);
      const { rows } = await api.pool.query(
        'SELECT count(*)::int AS n FROM webhooks WHERE studio_id = $1 AND deleted_at IS NULL',
        [tenant.studioId],
      );
      expect(rows[0].n).to.equal(10);
    });
  });

  describe('delivery', () => {
    it('delivers offense.created and trust.changed, signed, to the filing studio and to linked studios (as a summary)', async () => {
      receiver.handler = (_req, res) => res.writeHead(204).end();
      const filer = await createTenant(api.pool);
      const linked = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const filerHook = await register(filer, { url: receiver.url('/filer') });
      const linkedHook = await register(linked, {
        url: receiver.url('/linked'),
        events: ['offense.created'],
      });
      // The player plays the linked studio's game too (the player approved it; a report never links).
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: linked.game.clientId });
      const report = await call<{ report: { _id: string }; trustScore: number; penaltyApplied: number }>(
        api.url,
        'POST',
        `/v1/anticheat/submitReport/${player.serviceId}`,
        {
          spec: '/v1/anticheat/submitReport/{serviceId}',
          headers: filer.headers,
          json: { report: { isCheatDetected: true, severity: 'high', description: 'secret sauce' } },
        },
      );
      const offenseId = report.body.report._id;

      const filerGot = await received('/filer', 2); // offense.created + trust.changed
      const events = filerGot.map((r) => ({
        r,
        body: JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> },
      }));
      for (const { r, body } of events) {
        expect(verify(filerHook.body.secret, r), 'signature').to.equal(true);
        expect(verify(`whsec_${crypto.randomBytes(32).toString('base64')}`, r)).to.equal(
          'No matching signature found',
        );
        expect(r.headers['webhook-id']).to.equal(body.id);
        expect(r.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
        expect(r.headers['x-playertrust-event']).to.equal(body.type);
        expect(r.headers['content-type']).to.equal('application/json');
      }
      const created = events.find(
        (e) =>
          e.body.type === 'offense.created' && (e.body.data.offense as { _id: string })._id === offenseId,
      )!;
      expect(created.body.data).to.include({ playerId: player.serviceId });
      expect(created.body.data.offense).to.include({ visibility: 'full', description: 'secret sauce' });
      const changed = events.find((e) => e.body.type === 'trust.changed')!;
      expect(changed.body.data).to.deep.equal({
        playerId: player.serviceId,
        trustScoreBefore: report.body.trustScore + report.body.penaltyApplied,
        trustScoreAfter: report.body.trustScore,
        reason: 'offense',
        offenseId,
      });

      // The linked studio hears of the offense, as the summary its profile view would show.
      const linkedGot = await received('/linked', 1);
      const summary = linkedGot
        .map(
          (r) =>
            JSON.parse(r.body) as {
              data: { offense: { _id: string; visibility: string; description?: string } };
            },
        )
        .find((b) => b.data.offense._id === offenseId)!;
      expect(summary.data.offense.visibility).to.equal('summary');
      expect(summary.data.offense).to.not.have.property('description');
      for (const r of linkedGot) expect(verify(linkedHook.body.secret, r)).to.equal(true);

      // The delivery log shows each delivered once.
      const log = await eventually('the delivery log shows two delivered', async () => {
        const res = await deliveries(filer, filerHook.body.id);
        return res.body.items.length === 2 && res.body.items.every((d) => d.status === 'delivered')
          ? res.body
          : undefined;
      });
      for (const d of log.items) expect(d).to.include({ attempts: 1, lastStatusCode: 204, lastError: null });
    });

    it('delivers case.resolved and the refund as trust.changed when a moderator dismisses a case', async () => {
      receiver.handler = (_req, res) => res.writeHead(200).end();
      const filer = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const hook = await register(filer, {
        url: receiver.url('/resolved'),
        events: ['case.resolved', 'trust.changed'],
      });
      const report = await call<{ report: { _id: string }; penaltyApplied: number }>(
        api.url,
        'POST',
        `/v1/griefing/submitReport/${player.serviceId}`,
        {
          spec: '/v1/griefing/submitReport/{serviceId}',
          headers: filer.headers,
          json: { report: { isGriefing: true, severity: 'high' } },
        },
      );
      await received('/resolved', 1); // trust.changed of the report
      const caseId = await eventually('the case', async () => {
        const { rows } = await api.pool.query<{ case_id: string }>(
          'SELECT case_id FROM case_offenses WHERE offense_id = $1',
          [report.body.report._id],
        );
        return rows[0]?.case_id;
      });
      const mod = await createTestModerator(api);
      await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
        spec: '/v1/admin/cases/{caseId}/claim',
        headers: mod.headers,
      });
      const resolved = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: mod.headers,
        json: { outcome: 'dismissed', note: 'internal reasoning' },
      });
      expect(resolved.status).to.equal(200);
      const got = await received('/resolved', 3);
      const bodies = got.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
      const caseEvent = bodies.find((b) => b.type === 'case.resolved')!;
      expect(caseEvent.data).to.deep.include({
        caseId,
        playerId: player.serviceId,
        type: 'griefing',
        outcome: 'dismissed',
        pointsRestored: report.body.penaltyApplied,
        trustScore: 100,
        offenseIds: [report.body.report._id],
      });
      expect(JSON.stringify(caseEvent)).to.not.include('internal reasoning');
      const refund = bodies
        .filter((b) => b.type === 'trust.changed')
        .find((b) => b.data.reason === 'dismissal')!;
      expect(refund.data).to.deep.include({
        trustScoreBefore: 100 - report.body.penaltyApplied,
        trustScoreAfter: 100,
        caseId,
      });
      for (const r of got) expect(verify(hook.body.secret, r)).to.equal(true);
    });

    it('retries a failing endpoint with backoff until it answers 2xx, and logs every attempt', async () => {
      let calls = 0;
      receiver.handler = (req, res) => {
        if (req.path === '/flaky') calls++;
        res.writeHead(req.path === '/flaky' && calls < 3 ? 500 : 200).end();
      };
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const hook = await register(tenant, { url: receiver.url('/flaky'), events: ['trust.changed'] });
      await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });
      const got = await received('/flaky', 3);
      expect(new Set(got.map((r) => JSON.parse(r.body).id)).size, 'the same event each time').to.equal(1);
      const d = await eventually('delivered after retries', async () => {
        const res = await deliveries(tenant, hook.body.id);
        return res.body.items[0]?.status === 'delivered' ? res.body.items[0] : undefined;
      });
      expect(d).to.include({ attempts: 3, lastStatusCode: 200, lastError: null });
    });

    it('gives up after the retry window and marks the delivery failed', async () => {
      receiver.handler = (req, res) => res.writeHead(req.path === '/down' ? 503 : 200).end();
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const hook = await register(tenant, { url: receiver.url('/down'), events: ['trust.changed'] });
      await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });
      const attempts = webhookAttempts(webhookRetryOf(api.config));
      const d = await eventually('failed for good', async () => {
        const res = await deliveries(tenant, hook.body.id);
        return res.body.items[0]?.status === 'failed' ? res.body.items[0] : undefined;
      });
      expect(d).to.include({ attempts, lastStatusCode: 503 });
      expect(receiver.requestsTo('/down')).to.have.length(attempts);
    });

    it('retries an endpoint whose name does not resolve (a DNS outage passes), failing only after the window', async () => {
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const hook = await register(tenant, {
        url: 'https://hooks.does-not-exist.invalid/pt',
        events: ['trust.changed'],
      });
      await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });
      const d = await eventually('failed after every attempt', async () => {
        const res = await deliveries(tenant, hook.body.id);
        return res.body.items[0]?.status === 'failed' ? res.body.items[0] : undefined;
      });
      expect(d.attempts).to.equal(webhookAttempts(webhookRetryOf(api.config)));
      expect(d.lastError).to.match(/does not resolve/);
    });

    it('fails a delivery at once, without connecting, when the address is refused at delivery time', async () => {
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      // As if the name had been re-pointed after registration: the row bypasses the registration check.
      const { rows } = await api.pool.query<{ id: string }>(
        `INSERT INTO webhooks (studio_id, url, events, secret_ciphertext) VALUES ($1, $2, '{trust.changed}', $3) RETURNING id`,
        [tenant.studioId, forbidden.url('/internal'), sealWebhookSecret('whsec_x', TEST_PEPPER)],
      );
      await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });
      const d = await eventually('failed at once', async () => {
        const res = await deliveries(tenant, rows[0]!.id);
        return res.body.items[0]?.status === 'failed' ? res.body.items[0] : undefined;
      });
      expect(d.attempts).to.equal(1);
      expect(d.lastError).to.match(/loopback/);
      expect(forbidden.received).to.have.length(0);
    });

    it('a report is accepted the same while a webhook endpoint hangs', async () => {
      receiver.handler = (req, res) => {
        if (req.path !== '/hang') res.writeHead(200).end();
      };
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      await register(tenant, { url: receiver.url('/hang') });
      const started = Date.now();
      const res = await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });
      expect(res.status).to.equal(201);
      expect(Date.now() - started).to.be.lessThan(1000);
    });

    it('a deleted webhook gets nothing more: its pending delivery is cancelled, not sent', async () => {
      const tenant = await createTenant(api.pool);
      const hook = await register(tenant, { url: receiver.url('/deleted') });
      const { rows } = await api.pool.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload)
         VALUES ($1, gen_random_uuid(), 'trust.changed', '{}') RETURNING id`,
        [hook.body.id],
      );
      await call(api.url, 'DELETE', `/v1/webhooks/${hook.body.id}`, {
        spec: '/v1/webhooks/{webhookId}',
        headers: tenant.headers,
      });
      const process = webhookProcessor({
        pool: api.pool,
        log: createLogger('silent', 't'),
        config: api.config,
        pepper: TEST_PEPPER,
        dispatch: () => undefined,
      });
      const result = await process({
        id: 'x',
        data: { deliveryId: rows[0]!.id },
        attemptsMade: 0,
        opts: { attempts: 3 },
      } as Job);
      expect(result).to.deep.equal({ deliveryId: rows[0]!.id, status: 'cancelled' });
      const after = await api.pool.query('SELECT status FROM webhook_deliveries WHERE id = $1', [
        rows[0]!.id,
      ]);
      expect(after.rows[0].status).to.equal('cancelled');
      expect(receiver.requestsTo('/deleted')).to.have.length(0);
    });

    it('pages the delivery log with a cursor', async () => {
      receiver.handler = (_req, res) => res.writeHead(200).end();
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const hook = await register(tenant, { url: receiver.url('/paged'), events: ['offense.created'] });
      for (let i = 0; i < 3; i++)
        await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
          spec: '/v1/afk/submitReport/{serviceId}',
          headers: tenant.headers,
          json: { report: { isAfk: false } },
        });
      await eventually(
        'three deliveries',
        async () => (await deliveries(tenant, hook.body.id)).body.items.length === 3,
      );
      const first = await deliveries(tenant, hook.body.id, '?limit=2');
      expect(first.body.items).to.have.length(2);
      const second = await deliveries(tenant, hook.body.id, `?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items).to.have.length(1);
      expect(second.body.nextCursor).to.equal(null);
      const ids = [...first.body.items, ...second.body.items].map((d) => d.id);
      expect(new Set(ids).size).to.equal(3);
      expect((await deliveries(tenant, hook.body.id, '?cursor=forged')).status).to.equal(400);
      expect((await deliveries(tenant, crypto.randomUUID())).status).to.equal(404);
    });
  });

  describe('Standard Webhooks and the webhook API', () => {
    interface Hook {
      id: string;
      url: string;
      events: string[];
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      consecutiveFailures: number;
      previousSecretExpiresAt: string | null;
      secret?: string;
      code?: string;
    }
    interface FullDelivery extends Delivery {
      code?: string;
    }
    const one = (tenant: Tenant, id: string) =>
      call<Hook>(api.url, 'GET', `/v1/webhooks/${id}`, {
        spec: '/v1/webhooks/{webhookId}',
        headers: tenant.headers,
      });
    const patch = (tenant: Tenant, id: string, json: unknown) =>
      call<Hook>(api.url, 'PATCH', `/v1/webhooks/${id}`, {
        spec: '/v1/webhooks/{webhookId}',
        headers: tenant.headers,
        json,
      });
    const sendTest = (tenant: Tenant, id: string) =>
      call<FullDelivery>(api.url, 'POST', `/v1/webhooks/${id}/test`, {
        spec: '/v1/webhooks/{webhookId}/test',
        headers: tenant.headers,
      });
    const rotate = (tenant: Tenant, id: string, json?: unknown) =>
      call<Hook>(api.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, {
        spec: '/v1/webhooks/{webhookId}/rotate-secret',
        headers: tenant.headers,
        ...(json === undefined ? {} : { json }),
      });
    const redeliver = (tenant: Tenant, id: string, deliveryId: string) =>
      call<FullDelivery>(api.url, 'POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/redeliver`, {
        spec: '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
        headers: tenant.headers,
      });
    const log = (tenant: Tenant, id: string) => deliveries(tenant, id);
    const report = (tenant: Tenant, serviceId: string) =>
      call(api.url, 'POST', `/v1/afk/submitReport/${serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });

    it('signs so the official verifier accepts it, and refuses a tampered body or an old timestamp', async () => {
      receiver.handler = (_req, res) => res.writeHead(204).end();
      const tenant = await createTenant(api.pool);
      const hook = await register(tenant, { url: receiver.url('/std'), events: ['trust.changed'] });
      const sent = await sendTest(tenant, hook.body.id);
      expect(sent.status).to.equal(202);
      expect(sent.body).to.include({ eventType: 'webhook.test', status: 'pending', redeliveryOf: null });
      const [r] = await received('/std', 1);
      const body = JSON.parse(r!.body) as { id: string; type: string; data: { webhookId: string } };
      expect(body).to.include({ id: sent.body.eventId, type: 'webhook.test' });
      expect(body.data.webhookId).to.equal(hook.body.id);
      expect(r!.headers['webhook-id']).to.equal(sent.body.eventId);
      expect(Math.abs(Number(r!.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.lessThan(30);
      expect(verify(hook.body.secret, r!)).to.equal(true);
      expect(verify(hook.body.secret, r!, r!.body.replace('webhook.test', 'webhook.tesT'))).to.equal(
        'No matching signature found',
      );
      // Ten minutes later the same delivery is a replay: the verifier's 5-minute tolerance refuses it.
      const clock = sinon.useFakeTimers({ now: Date.now() + 10 * 60_000, toFake: ['Date'] });
      try {
        expect(verify(hook.body.secret, r!)).to.equal('Message timestamp too old');
      } finally {
        clock.restore();
      }
      const done = await eventually('the test delivery delivered', async () => {
        const res = await log(tenant, hook.body.id);
        return res.body.items[0]?.status === 'delivered' ? res.body.items[0] : undefined;
      });
      expect(done).to.include({ id: sent.body.id, eventType: 'webhook.test', nextAttemptAt: null });
    });

    it('reads one webhook and changes its URL, events and enabled state; a disabled one is sent nothing', async () => {
      receiver.handler = (_req, res) => res.writeHead(200).end();
      const tenant = await createTenant(api.pool);
      const stranger = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const hook = await register(tenant, { url: receiver.url('/patch-a'), events: ['case.resolved'] });
      const got = await one(tenant, hook.body.id);
      expect(got.status).to.equal(200);
      expect(got.body).to.include({
        id: hook.body.id,
        enabled: true,
        disabledReason: null,
        consecutiveFailures: 0,
        previousSecretExpiresAt: null,
      });
      expect(got.body).to.not.have.property('secret');
      expect((await one(stranger, hook.body.id)).status).to.equal(404);
      expect((await one(tenant, 'not-a-uuid')).status).to.equal(404);
      expect((await patch(stranger, hook.body.id, { enabled: false })).status).to.equal(404);

      for (const json of [
        {},
        { url: 'http://hooks.example.com/x' },
        { events: ['nope'] },
        { enabled: 'no' },
        { id: 'x' },
      ]) {
        const bad = await patch(tenant, hook.body.id, json);
        expect(bad.status, JSON.stringify(json)).to.equal(400);
        expect(bad.body.code).to.equal('validation_failed');
      }
      expect((await one(tenant, hook.body.id)).body).to.deep.include({
        url: receiver.url('/patch-a'),
        events: ['case.resolved'],
      });

      const moved = await patch(tenant, hook.body.id, {
        url: receiver.url('/patch-b'),
        events: ['trust.changed'],
      });
      expect(moved.status).to.equal(200);
      expect(moved.body).to.include({ url: receiver.url('/patch-b'), enabled: true });
      expect(moved.body.events).to.deep.equal(['trust.changed']);
      await report(tenant, player.serviceId);
      await received('/patch-b', 1);

      const off = await patch(tenant, hook.body.id, { enabled: false });
      expect(off.body).to.include({ enabled: false, disabledReason: 'studio' });
      expect(off.body.disabledAt).to.be.a('string');
      expect((await sendTest(tenant, hook.body.id)).body.code).to.equal('webhook_disabled');
      await report(tenant, player.serviceId);
      const { rows } = await api.pool.query(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1',
        [hook.body.id],
      );
      expect(rows[0].n, 'no delivery recorded while disabled').to.equal(1);

      const on = await patch(tenant, hook.body.id, { enabled: true });
      expect(on.body).to.include({ enabled: true, disabledReason: null, disabledAt: null });
      await report(tenant, player.serviceId);
      await received('/patch-b', 2);
      expect(receiver.requestsTo('/patch-a')).to.have.length(0);
    });

    it('rotates the secret with an overlap: both signatures verify during it, only the new one after', async () => {
      receiver.handler = (_req, res) => res.writeHead(200).end();
      const tenant = await createTenant(api.pool);
      const hook = await register(tenant, { url: receiver.url('/rotate'), events: ['trust.changed'] });
      const oldSecret = hook.body.secret;
      for (const json of [
        { overlapSeconds: -1 },
        { overlapSeconds: 7 * 86_400 + 1 },
        { overlapSeconds: 'x' },
      ]) {
        const bad = await rotate(tenant, hook.body.id, json);
        expect(bad.status, JSON.stringify(json)).to.equal(400);
      }
      const rotated = await rotate(tenant, hook.body.id, { overlapSeconds: 3600 });
      expect(rotated.status).to.equal(200);
      const newSecret = rotated.body.secret!;
      expect(newSecret)
        .to.match(/^whsec_/)
        .and.not.equal(oldSecret);
      const expires = Date.parse(rotated.body.previousSecretExpiresAt!);
      expect(expires - Date.now()).to.be.within(3590_000, 3610_000);
      expect((await one(tenant, hook.body.id)).text).to.not.include(newSecret);

      await sendTest(tenant, hook.body.id);
      const [during] = await received('/rotate', 1);
      expect(String(during!.headers['webhook-signature']).split(' ')).to.have.length(2);
      expect(verify(newSecret, during!)).to.equal(true);
      expect(verify(oldSecret, during!)).to.equal(true);

      // A rotation without an overlap ends the old secret at once.
      const now = await rotate(tenant, hook.body.id, { overlapSeconds: 0 });
      expect(now.body.previousSecretExpiresAt).to.equal(null);
      await sendTest(tenant, hook.body.id);
      const after = (await received('/rotate', 2))[1]!;
      expect(String(after.headers['webhook-signature']).split(' ')).to.have.length(1);
      expect(verify(now.body.secret!, after)).to.equal(true);
      expect(verify(newSecret, after)).to.equal('No matching signature found');
      expect(verify(oldSecret, after)).to.equal('No matching signature found');
    });

    it('shows the next attempt of a failing delivery and redelivers a finished one under the same webhook-id', async () => {
      let healthy = false;
      receiver.handler = (req, res) => res.writeHead(req.path === '/redeliver' && !healthy ? 503 : 200).end();
      const tenant = await createTenant(api.pool);
      const hook = await register(tenant, { url: receiver.url('/redeliver'), events: ['trust.changed'] });
      const sent = await sendTest(tenant, hook.body.id);
      const retrying = await eventually('a retry scheduled', async () => {
        const d = (await log(tenant, hook.body.id)).body.items[0];
        return d?.status === 'pending' && d.attempts >= 1 ? d : undefined;
      });
      expect(Date.parse(retrying.nextAttemptAt!)).to.be.greaterThan(Date.parse(retrying.lastAttemptAt!));
      expect((await redeliver(tenant, hook.body.id, sent.body.id)).body.code).to.equal('delivery_pending');
      const failed = await eventually('failed for good', async () => {
        const d = (await log(tenant, hook.body.id)).body.items[0];
        return d?.status === 'failed' ? d : undefined;
      });
      expect(failed.nextAttemptAt).to.equal(null);

      healthy = true;
      const before = receiver.requestsTo('/redeliver').length;
      const again = await redeliver(tenant, hook.body.id, sent.body.id);
      expect(again.status).to.equal(202);
      expect(again.body).to.include({ redeliveryOf: sent.body.id, eventId: sent.body.eventId, attempts: 0 });
      expect(again.body.id).to.not.equal(sent.body.id);
      const got = await received('/redeliver', before + 1);
      const last = got[got.length - 1]!;
      expect(last.headers['webhook-id']).to.equal(sent.body.eventId);
      expect(last.body).to.equal(got[0]!.body);
      expect(verify(hook.body.secret, last)).to.equal(true);
      await eventually('the redelivery delivered', async () => {
        const items = (await log(tenant, hook.body.id)).body.items;
        return items.find((d) => d.id === again.body.id)?.status === 'delivered' || undefined;
      });
      expect((await redeliver(tenant, hook.body.id, crypto.randomUUID())).status).to.equal(404);
      expect((await redeliver(tenant, hook.body.id, 'nope')).status).to.equal(404);
      const stranger = await createTenant(api.pool);
      expect((await redeliver(stranger, hook.body.id, sent.body.id)).status).to.equal(404);
    });

    it('disables a webhook whose deliveries failed for good twice in a row and tells the studio’s other webhooks', async () => {
      receiver.handler = (req, res) => res.writeHead(req.path === '/dead' ? 500 : 200).end();
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const dead = await register(tenant, { url: receiver.url('/dead'), events: ['trust.changed'] });
      const watcher = await register(tenant, { url: receiver.url('/watcher'), events: ['webhook.disabled'] });
      await report(tenant, player.serviceId);
      await eventually(
        'the first failure counted',
        async () => (await one(tenant, dead.body.id)).body.consecutiveFailures === 1 || undefined,
      );
      expect((await one(tenant, dead.body.id)).body.enabled).to.equal(true);
      await report(tenant, player.serviceId);
      const [notice] = await received('/watcher', 1);
      const event = JSON.parse(notice!.body) as { type: string; data: Record<string, unknown> };
      expect(event.type).to.equal('webhook.disabled');
      expect(event.data).to.include({
        webhookId: dead.body.id,
        url: receiver.url('/dead'),
        reason: 'failing',
        consecutiveFailures: 2,
      });
      expect(verify(watcher.body.secret, notice!)).to.equal(true);
      const off = (await one(tenant, dead.body.id)).body;
      expect(off).to.include({
        enabled: false,
        disabledReason: 'failing',
        disabledAt: event.data.disabledAt,
      });

      // Nothing more is recorded for it; enabling it again starts the count afresh.
      const calls = receiver.requestsTo('/dead').length;
      await report(tenant, player.serviceId);
      const on = await patch(tenant, dead.body.id, { enabled: true });
      expect(on.body).to.include({ enabled: true, consecutiveFailures: 0, disabledReason: null });
      expect(receiver.requestsTo('/dead')).to.have.length(calls);
      expect(receiver.requestsTo('/watcher')).to.have.length(1);
    });
  });
});
