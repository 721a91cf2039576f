import { Queue } from 'bullmq';
import { expect } from 'chai';
import { createLogger } from '../../common/logger.js';
import { QUEUES } from '../../common/queues/index.js';
import { reviewProcessor } from '../../worker/processors/review.js';
import { startWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

describe('operator views', function () {
  this.timeout(60_000);
  let api: TestApi;
  const token = 'metrics-token-0123456789';

  before(async () => {
    api = await startTestApi({ METRICS_TOKEN: token });
  });
  after(async () => {
    await api.close();
  });

  it('/metrics counts requests by route template and status, and shows queue depths and the outbox backlog', async () => {
    const tenant = await createTenant(api.pool);
    const player = await createTestPlayer(api.pool);
    await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
      spec: '/v1/player/{serviceId}',
      headers: tenant.headers,
    });
    await call(api.url, 'GET', '/v1/player/nobody-at-all', {
      spec: '/v1/player/{serviceId}',
      headers: tenant.headers,
    });
    await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
      spec: '/v1/afk/submitReport/{serviceId}',
      headers: tenant.headers,
      json: { report: { isAfk: true } },
    });
    const res = await call(api.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    const text = res.text;
    expect(text).to.match(
      /player_trust_http_requests_total\{method="GET",route="\/v1\/player\/:serviceId",status="200"\} 1\b/,
    );
    expect(text).to.match(
      /player_trust_http_requests_total\{method="GET",route="\/v1\/player\/:serviceId",status="404"\} 1\b/,
    );
    expect(text).to.match(
      /player_trust_http_requests_total\{method="POST",route="\/v1\/afk\/submitReport\/:serviceId",status="201"\} 1\b/,
    );
    expect(text).to.match(/player_trust_http_request_duration_seconds_bucket\{le="0.1",method="GET"/);
    // No worker consumes in this test: the report's jobs wait in their queues.
    expect(text).to.match(/player_trust_queue_jobs\{queue="evidence-enrichment",state="waiting"\} [1-9]/);
    expect(text).to.match(/player_trust_queue_jobs\{queue="webhook-delivery",state="failed"\} 0/);
    expect(text).to.match(/player_trust_outbox_unsent \d+/);
    expect(text).to.match(/player_trust_outbox_oldest_unsent_seconds \d/);
  });

  it('/metrics refuses a request without the configured token', async () => {
    const none = await call(api.url, 'GET', '/metrics');
    expect(none.status).to.equal(401);
    const wrong = await call(api.url, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong' } });
    expect(wrong.status).to.equal(401);
  });

  it('Bull Board is for admin moderators only (HTTP Basic), and lists every queue', async () => {
    const anonymous = await fetch(`${api.url}/admin/queues`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('www-authenticate')).to.match(/^Basic realm=/);
    const moderator = await createTestModerator(api, 'moderator');
    const admin = await createTestModerator(api, 'admin');
    const wrong = await fetch(`${api.url}/admin/queues`, {
      headers: { authorization: basic(admin.username, 'nope') },
    });
    expect(wrong.status).to.equal(401);
    const notAdmin = await fetch(`${api.url}/admin/queues`, {
      headers: { authorization: basic(moderator.username, moderator.password) },
    });
    expect(notAdmin.status).to.equal(403);
    const auth = { authorization: basic(admin.username, admin.password) };
    const page = await fetch(`${api.url}/admin/queues`, { headers: auth });
    expect(page.status).to.equal(200);
    expect(await page.text()).to.match(/<html/i);
    const queues = await fetch(`${api.url}/admin/queues/api/queues`, { headers: auth });
    expect(queues.status).to.equal(200);
    const names = ((await queues.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
    expect(names).to.deep.equal(Object.values(QUEUES).sort());
  });

  it('the queue board loads nothing from outside and is read-only', async () => {
    const admin = await createTestModerator(api, 'admin');
    const auth = { authorization: basic(admin.username, admin.password) };
    const page = await fetch(`${api.url}/admin/queues`, { headers: auth });
    const html = await page.text();
    expect(html).to.not.match(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).to.match(/^default-src 'self'/);
    const listed = (await (await fetch(`${api.url}/admin/queues/api/queues`, { headers: auth })).json()) as {
      queues: { readOnlyMode: boolean }[];
    };
    expect(listed.queues.every((q) => q.readOnlyMode)).to.equal(true);
    const pause = await fetch(`${api.url}/admin/queues/api/queues/${QUEUES.review}/pause`, {
      method: 'PUT',
      headers: auth,
    });
    expect(pause.status).to.be.within(400, 499);
    const queue = new Queue(QUEUES.review, {
      connection: { url: api.config.redisUrl! },
      prefix: api.config.queuePrefix,
    });
    try {
      expect(await queue.isPaused()).to.equal(false);
    } finally {
      await queue.close();
    }
  });

  it('a worker serves its job metrics on WORKER_METRICS_PORT', async () => {
    const worker = await startWorker(
      { ...api.config, workerMetricsPort: 0 },
      QUEUES.review,
      reviewProcessor,
      createLogger('silent', 'w'),
    );
    try {
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      await call(api.url, 'POST', `/v1/toxicity/submitReport/${player.serviceId}`, {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: tenant.headers,
        // A finding, so the report is filed into a case.
        json: { report: { isToxic: true, severity: 'low' } },
      });
      const headers = { authorization: `Bearer ${token}` };
      const text = await eventually('a completed review job counted', async () => {
        const body = await (await fetch(worker.metricsUrl!, { headers })).text();
        return /player_trust_jobs_total\{queue="admin-review",outcome="completed"[^}]*\} [1-9]/.test(body) &&
          /player_trust_report_to_case_seconds_count [1-9]/.test(body)
          ? body
          : undefined;
      });
      expect(text).to.match(
        /player_trust_job_duration_seconds_count\{queue="admin-review",outcome="completed"\} [1-9]/,
      );
      expect(text).to.match(/player_trust_jobs_stalled_total\{queue="admin-review"\} 0/);
      // Counted by queue shard, and the report's time from its 201 to its case (a service level).
      expect(text).to.match(
        /player_trust_jobs_total\{queue="admin-review",outcome="completed",shard="0"\} [1-9]/,
      );
      expect(text).to.match(/player_trust_report_to_case_seconds_count [1-9]/);
      expect((await fetch(worker.metricsUrl!)).status).to.equal(401);
    } finally {
      await worker.stop();
    }
  });
});
