import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createApp } from '../../api/app.js';
import { ClientAuthenticator } from '../../api/middleware/client-auth.js';
import { createLogger } from '../../common/logger.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createTenant,
  createTestPlayer,
  LogCapture,
  oauthDeps,
  startTestApi,
  TEST_PEPPER,
  testConfig,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { createPool } from '../../common/data/db.js';
import type { OutboxDispatcher } from '../../common/queues/outbox.js';

describe('HTTP surface: errors, health, request ids and logs', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ BODY_LIMIT: '2kb' });
  });
  after(() => api.close());

  const problem = (
    res: { status: number; headers: Headers; body: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.status).to.equal(status);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status, code });
    expect(res.body.type).to.equal(`urn:player-trust:problem:${code}`);
    expect(res.body.title).to.be.a('string');
    expect(res.body.detail).to.be.a('string');
    expect(JSON.stringify(res.body)).to.not.match(/at .*\.ts:\d+/); // no stack trace
  };

  it('GET /healthz says the process is up', async () => {
    const res = await call(api.url, 'GET', '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('GET /readyz checks PostgreSQL and Redis', async () => {
    const res = await call(api.url, 'GET', '/readyz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      status: 'ready',
      checks: { postgres: { ok: true }, redis: { ok: true } },
    });
  });

  it('unknown routes give a problem 404', async () => {
    problem(await call(api.url, 'GET', '/v1/nothing-here', { spec: false }), 404, 'route_not_found');
  });

  it('a wrong method gives 405', async () => {
    problem(await call(api.url, 'DELETE', '/healthz', { spec: false }), 405, 'method_not_allowed');
  });

  describe('on a JSON endpoint', () => {
    let headers: Record<string, string>;
    let path: string;
    before(async () => {
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      headers = tenant.headers;
      path = `/v1/griefing/submitReport/${player.serviceId}`;
    });

    it('a body that is not valid JSON gives 400 invalid_json', async () => {
      const res = await call(api.url, 'POST', path, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{"report": ',
        spec: '/v1/griefing/submitReport/{serviceId}',
      });
      problem(res, 400, 'invalid_json');
    });

    it('a non-JSON content type gives 415', async () => {
      const res = await call(api.url, 'POST', path, {
        headers: { ...headers, 'content-type': 'text/plain' },
        body: 'hello',
        spec: '/v1/griefing/submitReport/{serviceId}',
      });
      problem(res, 415, 'unsupported_media_type');
    });

    it('an oversized body gives 413', async () => {
      const res = await call(api.url, 'POST', path, {
        headers,
        json: { report: { isGriefing: true, description: 'x'.repeat(4000) } },
        spec: '/v1/griefing/submitReport/{serviceId}',
      });
      problem(res, 413, 'payload_too_large');
    });
  });

  it('echoes a valid X-Request-Id and puts it on the request log line', async () => {
    const res = await call(api.url, 'GET', '/v1/openapi.json', {
      headers: { 'x-request-id': 'trace-abc-123' },
    });
    expect(res.headers.get('x-request-id')).to.equal('trace-abc-123');
    const line = api.logs.lines.find((l) => l.reqId === 'trace-abc-123');
    expect(line).to.include({ msg: 'request', path: '/v1/openapi.json', status: 200 });
  });

  it('health probes that succeed log at debug, so a load balancer (or npm start) polling them buries nothing', async () => {
    for (const path of ['/healthz', '/readyz'] as const)
      await call(api.url, 'GET', path, { headers: { 'x-request-id': `probe${path.replace('/', '-')}` } });
    expect(api.logs.lines.filter((l) => String(l.reqId).startsWith('probe-'))).to.deep.equal([]);
  });

  it("a request line names the calling client and the error's code", async () => {
    const tenant = await createTenant(api.pool);
    await call(api.url, 'GET', '/v1/player/nobody-here', {
      headers: { ...tenant.headers, 'x-request-id': 'trace-client-404' },
      spec: '/v1/player/{serviceId}',
    });
    const line = api.logs.lines.find((l) => l.reqId === 'trace-client-404' && l.msg === 'request');
    // The route's template: the service id in the path is a player's, and stays out of the logs.
    expect(line).to.include({ path: '/v1/player/:serviceId' });
    expect(JSON.stringify(line)).to.not.include('nobody-here');
    expect(line).to.include({ status: 404, clientId: tenant.game.clientId, code: 'not_found' });
  });

  it('replaces an unsafe X-Request-Id with its own', async () => {
    const res = await call(api.url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('never writes client secrets or credentials to the logs', async () => {
    const tenant = await createTenant(api.pool);
    await call(api.url, 'GET', '/v1/player/nobody', {
      headers: tenant.headers,
      spec: '/v1/player/{serviceId}',
    });
    await call(api.url, 'GET', '/v1/player/nobody', {
      headers: { ...tenant.headers, authorization: 'Bearer top-secret-token' },
      spec: '/v1/player/{serviceId}',
    });
    expect(api.logs.text).to.not.include(tenant.game.clientSecret);
    expect(api.logs.text).to.not.include('top-secret-token');
    const log = createLogger('info', 'redaction', api.logs);
    log.info(
      {
        req: { headers: { client_secret: 'hdr-secret', authorization: 'Bearer abc' } },
        body: { password: 'pw-secret', code: 'auth-code-xyz' },
      },
      'probe',
    );
    expect(api.logs.text).to.not.match(/hdr-secret|pw-secret|auth-code-xyz|Bearer abc/);
    expect(api.logs.text).to.include('[redacted]');
    log.error({ err: { message: 'duplicate key', code: '23505' } }, 'probe error');
    const errorLine = api.logs.lines.find((l) => l.msg === 'probe error') as { err: { code: string } };
    expect(errorLine.err.code, 'error codes stay readable').to.equal('23505');
  });
});

describe('HTTP surface with a failing dependency', () => {
  it('an unexpected fault gives 500 with a generic message and the request id', async () => {
    const config = await testConfig();
    const logs = new LogCapture();
    const pool = createPool(config.databaseUrl!, 2);
    const redis = new Redis(config.redisUrl!);
    const brokenAuth = {
      middleware: () => async () => {
        throw new TypeError('secret internal detail');
      },
    } as unknown as ClientAuthenticator;
    const app = createApp({
      config,
      log: createLogger('info', 'api', logs),
      pool,
      redis,
      dispatcher: {} as OutboxDispatcher,
      clientAuth: brokenAuth,
      ...(await oauthDeps(config, pool)),
    });
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await call(base, 'GET', '/v1/player/anyone', {
        spec: '/v1/player/{serviceId}',
        headers: { 'x-request-id': 'fault-1' },
      });
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 'internal_error', requestId: 'fault-1' });
      expect(res.text).to.not.include('secret internal detail');
      expect(logs.text).to.include('secret internal detail'); // operators still see the cause
    } finally {
      server.close();
      await pool.end();
      redis.disconnect();
    }
  });

  it('/readyz answers 503 naming Redis when Redis does not answer', async () => {
    const config = await testConfig();
    const pool = createPool(config.databaseUrl!, 2);
    const deadRedis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    deadRedis.on('error', () => undefined);
    const app = createApp({
      config,
      log: createLogger('silent', 'api'),
      pool,
      redis: deadRedis,
      dispatcher: {} as OutboxDispatcher,
      clientAuth: new ClientAuthenticator(pool, TEST_PEPPER, 0),
      ...(await oauthDeps(config, pool)),
    });
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'GET', '/readyz');
      expect(res.status).to.equal(503);
      const checks = (res.body as { checks: Record<string, { ok: boolean }> }).checks;
      expect(checks.postgres!.ok).to.equal(true);
      expect(checks.redis!.ok).to.equal(false);
    } finally {
      server.close();
      await pool.end();
      deadRedis.disconnect();
    }
  });
});
