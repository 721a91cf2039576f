import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_PKCE_VERIFIER } from '../../common/usecases/seed.js';
import { approveWithPkce } from '../helpers/oauth.js';
import http from 'node:http';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { openApiDocument } from '../../api/openapi.js';
import { provisionGame, provisionStudio, rotateSecret } from '../../common/usecases/provisioning.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  offenseCount,
  startTestApi,
  TEST_PEPPER,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { testServices } from '../helpers/services.js';
import { CuttableProxy } from '../../scripts/lib/cuttable-proxy.js';

const run = promisify(execFile);

/** Bad input anywhere gets a clear 4xx and changes nothing: what was found trying it as an attacker. */
describe('hardening: hostile and careless input', function () {
  this.timeout(60_000);
  let api: TestApi;
  let tenant: Tenant;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi();
    tenant = await createTenant(api.pool);
    mod = await createTestModerator(api);
  });
  after(() => api.close());

  const raw = (method: string, path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${api.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (await r.json()) as Record<string, unknown>,
    }));

  it('a "__proto__" key anywhere in a JSON body is a 400 on every route, and nothing is stored', async () => {
    const player = await createTestPlayer(api.pool);
    const report = `/v1/anticheat/submitReport/${player.serviceId}`;
    const bodies: [string, string, Record<string, string>][] = [
      [report, '{"__proto__": {"x": 1}, "report": {"isCheatDetected": true}}', tenant.headers],
      [report, '{"report": {"isCheatDetected": true, "__proto__": {"isAdmin": true}}}', tenant.headers],
      [
        report,
        '{"report": {"isCheatDetected": true, "evidence": [{"type": "text", "content": "x", "__proto__": {}}]}}',
        tenant.headers,
      ],
      ['/v1/admin/session', '{"username": "a", "password": "b", "__proto__": {}}', {}],
      ['/v1/webhooks', '{"url": "https://hooks.example/x", "__proto__": {}}', tenant.headers],
      ['/v1/oauth/token', '{"grant_type": "authorization_code", "__proto__": {}}', {}],
      [
        '/v1/admin/cases/00000000-0000-4000-8000-000000000000/resolve',
        '{"outcome": "dismissed", "note": "x", "__proto__": {}}',
        mod.headers,
      ],
    ];
    for (const [path, body, headers] of bodies) {
      const res = await raw('POST', path, body, headers);
      expect(res.status, `${path} ${body}`).to.equal(400);
      expect(res.body.code).to.equal('invalid_json');
      expect(String(res.body.detail)).to.match(/__proto__/);
    }
    expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
  });

  it('a NUL character in any string is a 400 naming the field, never a 500', async () => {
    const player = await createTestPlayer(api.pool);
    const cases: [string, string, object, Record<string, string>, string][] = [
      [
        'POST',
        `/v1/anticheat/submitReport/${player.serviceId}`,
        { report: { isCheatDetected: true, matchId: 'm\u0000' } },
        tenant.headers,
        'report.matchId',
      ],
      [
        'POST',
        `/v1/toxicity/submitReport/${player.serviceId}`,
        { report: { isToxic: true, reporterId: '\u0000r' } },
        tenant.headers,
        'report.reporterId',
      ],
      [
        'POST',
        `/v1/griefing/submitReport/${player.serviceId}`,
        { report: { isGriefing: true, affectedPlayers: ['p1', 'p\u00002'] } },
        tenant.headers,
        'report.affectedPlayers.1',
      ],
      ['POST', '/v1/admin/session', { username: 'mod\u0000', password: 'x' }, {}, 'username'],
    ];
    for (const [method, path, json, headers, field] of cases) {
      const res = await raw(method, path, JSON.stringify(json), headers);
      expect(res.status, path).to.equal(400);
      expect(res.body).to.deep.include({ code: 'validation_failed' });
      expect(res.body.errors).to.deep.equal([{ field, message: 'must not contain a NUL character' }]);
    }
    const queue = await fetch(`${api.url}/v1/admin/cases?serviceId=a%00b`, { headers: mod.headers });
    expect(queue.status).to.equal(400);
    expect(((await queue.json()) as { errors: unknown[] }).errors).to.deep.equal([
      { field: 'serviceId', message: 'must not contain a NUL character' },
    ]);
    expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
  });

  it('a body that is not UTF-8 is 400 invalid_json and stores nothing', async () => {
    const player = await createTestPlayer(api.pool);
    const body = Buffer.concat([
      Buffer.from('{"report": {"isAfk": true, "description": "'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}}'),
    ]);
    const res = await raw('POST', `/v1/afk/submitReport/${player.serviceId}`, body, tenant.headers);
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'invalid_json' });
    expect(String(res.body.detail)).to.match(/UTF-8/);
    expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
    // A real U+FFFD, correctly encoded, is text like any other.
    const ok = await raw(
      'POST',
      `/v1/afk/submitReport/${player.serviceId}`,
      JSON.stringify({ report: { isAfk: true, description: 'odd \uFFFD char' } }),
      tenant.headers,
    );
    expect(ok.status).to.equal(201);
  });

  it('a JSON body that is not an object is validation_failed: "the body must be an object"', async () => {
    const player = await createTestPlayer(api.pool);
    for (const body of ['null', '"str"', '42', '[1, 2]']) {
      const res = await raw('POST', `/v1/afk/submitReport/${player.serviceId}`, body, tenant.headers);
      expect(res.status, body).to.equal(400);
      expect(res.body).to.include({ code: 'validation_failed' });
      expect(res.body.errors).to.deep.equal([{ field: 'body', message: 'the body must be an object' }]);
    }
  });

  it('an empty Idempotency-Key header is a 400, not "no key"', async () => {
    const player = await createTestPlayer(api.pool);
    const res = await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
      spec: '/v1/afk/submitReport/{serviceId}',
      headers: { ...tenant.headers, 'idempotency-key': '' },
      json: { report: { isAfk: true } },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'validation_failed' });
    expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
  });

  it('405 names the allowed methods in Allow; an unknown route says "Not Found"', async () => {
    const res = await fetch(`${api.url}/v1/webhooks`, { method: 'PUT', headers: tenant.headers });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.match(/GET/);
    expect(res.headers.get('allow')).to.match(/POST/);
    expect(await res.json()).to.include({ code: 'method_not_allowed' });
    const missing = await fetch(`${api.url}/v1/nothing-here`);
    expect(await missing.json()).to.include({ code: 'route_not_found', title: 'Not Found' });
  });

  it('every path of the OpenAPI document answers 405 with Allow = its documented methods to any other method', async () => {
    const paths = openApiDocument.paths as Record<string, Record<string, unknown>>;
    const checked: string[] = [];
    for (const [template, item] of Object.entries(paths)) {
      // The board is Bull Board's own app, mounted only when the API runs with queues.
      if (template.startsWith('/admin/queues')) continue;
      const documented = Object.keys(item).map((m) => m.toUpperCase());
      const other = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !documented.includes(m))!;
      const url = template.replace(/\{[^}]+\}/g, (name) =>
        name === '{serviceId}' ? 'PLR-AAAA-BBBB' : crypto.randomUUID(),
      );
      const res = await fetch(`${api.url}${url}`, { method: other, headers: tenant.headers });
      expect(res.status, `${other} ${template}`).to.equal(405);
      const allow = (res.headers.get('allow') ?? '').split(/,\s*/).filter((m) => m !== 'HEAD');
      expect(allow.sort(), `Allow of ${template}`).to.deep.equal(documented.sort());
      expect(await res.json()).to.include({ code: 'method_not_allowed', status: 405 });
      checked.push(template);
    }
    expect(checked.length).to.be.greaterThan(40);
  });

  it('after a secret rotation the new secret works at once, and the old one stops in this process', async () => {
    const rotating = await createTenant(api.pool);
    const player = await createTestPlayer(api.pool);
    const read = (secret: string) =>
      fetch(`${api.url}/v1/player/${player.serviceId}`, {
        headers: { client_id: rotating.game.clientId, client_secret: secret },
      }).then((r) => r.status);
    expect(await read(rotating.game.clientSecret)).to.equal(200); // now cached
    const rotated = await rotateSecret(api.pool, TEST_PEPPER, { clientId: rotating.game.clientId });
    expect(await read(rotated.clientSecret)).to.equal(200);
    expect(await read(rotating.game.clientSecret)).to.equal(401);
  });

  it('a client still sending an oversized body sees the 413, not a reset', async () => {
    const player = await createTestPlayer(api.pool);
    const { port } = new URL(api.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v1/afk/submitReport/${player.serviceId}`,
        headers: { ...tenant.headers, 'content-type': 'application/json', 'content-length': 2_000_000 },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      // Keep writing well past the limit, in pieces, as a slow uploader would.
      let sent = 0;
      const chunk = Buffer.alloc(50_000, 0x20);
      const write = () => {
        while (sent < 2_000_000) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', write);
        }
        req.end();
      };
      write();
    });
    expect(status).to.equal(413);
  });
});

describe('/metrics while Redis does not answer', function () {
  this.timeout(60_000);

  it('answers within seconds with the queue depths marked stale, and the outbox figures of this scrape', async () => {
    const proxy = CuttableProxy.forUrl((await testServices()).redisUrl);
    await proxy.open();
    const api = await startTestApi({ REDIS_URL: proxy.url(), RATE_LIMIT_TIMEOUT_MS: '50' });
    try {
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const fresh = await (await fetch(`${api.url}/metrics`)).text();
      expect(fresh).to.match(/^player_trust_queue_jobs_stale 0$/m);
      proxy.freeze();
      // Rows other tests left unsent share the table: count them once nothing can be sent any more.
      const unsent = async () =>
        (await api.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL'))
          .rows[0]!.n;
      await new Promise((r) => setTimeout(r, 300));
      const before = await unsent();
      const res = await fetch(`${api.url}/v1/afk/submitReport/${player.serviceId}`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ report: { isAfk: true } }),
      });
      expect(res.status).to.equal(201);
      const started = Date.now();
      const scrape = await fetch(`${api.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
      const text = await scrape.text();
      expect(scrape.status).to.equal(200);
      expect(Date.now() - started).to.be.below(5000);
      expect(text).to.match(/^player_trust_queue_jobs_stale 1$/m);
      expect(text).to.match(/^player_trust_queue_jobs_age_seconds \d/m);
      // The report's two outbox rows could not be sent: this scrape already counts them.
      expect(text).to.match(new RegExp(`^player_trust_outbox_unsent ${before + 2}$`, 'm'));
    } finally {
      proxy.thaw();
      await api.close();
      await proxy.cut();
    }
  });
});

describe('the demo callback of npm start', function () {
  this.timeout(60_000);

  it('prints an exchange command that works as is, once', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-demo-'));
    const api = await startTestApi({ DATA_DIR: dataDir });
    try {
      const studio = await provisionStudio(api.pool, { name: 'Demo Studio' });
      const game = await provisionGame(api.pool, TEST_PEPPER, {
        studioId: studio.id,
        title: 'Demo',
        redirectUris: [`${api.url}/demo/callback`],
      });
      fs.writeFileSync(path.join(dataDir, 'demo-credentials.json'), JSON.stringify({ game }));
      const player = await createTestPlayer(api.pool);
      const consent = await approveWithPkce(api.url, game.clientId, player, DEMO_PKCE_VERIFIER);
      expect(consent.status, consent.html).to.equal(303);
      const page = await (await fetch(consent.location!)).text();
      const command = /<pre>(curl [\s\S]*?)<\/pre>/
        .exec(page)![1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
      const first = JSON.parse((await run('sh', ['-c', command])).stdout) as { access_token?: string };
      expect(first.access_token).to.be.a('string');
      const again = JSON.parse((await run('sh', ['-c', command])).stdout) as { error?: string };
      expect(again.error).to.equal('invalid_grant');
    } finally {
      await api.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('configuration errors', function () {
  this.timeout(30_000);
  for (const [name, value] of [
    ['JWT_SIGNING_KEY', 'not-a-key'],
    ['JWT_SIGNING_KEY', '{"kty":"EC","crv":"P-256","x":"a","y":"b","d":"c"}'],
  ] as const)
    it(`a bad ${name} (${value.slice(0, 12)}...) stops the API with a message naming it, exit 1, no stack`, async () => {
      const err = await run(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
        env: {
          ...process.env,
          [name]: value,
          DATABASE_URL: 'postgres://127.0.0.1:1/none',
          REDIS_URL: 'redis://127.0.0.1:1',
          LOG_LEVEL: 'silent',
        },
      }).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(err, 'the API should not have started').to.not.equal(undefined);
      expect(err!.code).to.equal(1);
      expect(err!.stderr).to.match(new RegExp(`^invalid configuration: ${name}: `, 'm'));
      expect(err!.stderr).to.not.match(/\n\s+at /);
    });
});

describe('start-up faults, named in one line', function () {
  this.timeout(60_000);
  /** Runs a process that must fail to start: its exit code and what it wrote to stderr. */
  async function failing(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
    const err = await run(args[0]!, args.slice(1), {
      env: { ...process.env, LOG_LEVEL: 'warn', STARTUP_WAIT_SECONDS: '1', ...env },
      timeout: 40_000,
    }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err, `${args.join(' ')} should not have started`).to.not.equal(undefined);
    return err!;
  }
  const closed = 'postgres://pt:secret-pw@127.0.0.1:1/none';
  const services = () => testServices();

  it('an unreachable DATABASE_URL: the API exits 1 after STARTUP_WAIT_SECONDS naming PostgreSQL, no stack, no password', async () => {
    const { code, stderr } = await failing([process.execPath, '--import', 'tsx', 'api/server.ts'], {
      DATABASE_URL: closed,
      REDIS_URL: (await services()).redisUrl,
    });
    expect(code).to.equal(1);
    expect(stderr).to.match(
      /^cannot reach PostgreSQL at postgres:\/\/pt:\*\*\*@127\.0\.0\.1:1\/none .*ECONNREFUSED/m,
    );
    expect(stderr).to.not.include('secret-pw');
    expect(stderr).to.not.match(/\n\s+at /);
  });

  it('an unreachable REDIS_URL: a worker exits 1 naming Redis, without ioredis stack traces', async () => {
    const { code, stderr } = await failing([process.execPath, '--import', 'tsx', 'worker/review.ts'], {
      DATABASE_URL: (await services()).databaseUrl,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(code).to.equal(1);
    expect(stderr).to.match(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*ECONNREFUSED/m);
    expect(stderr).to.not.include('Unhandled error event');
    expect(stderr).to.not.match(/\n\s+at /);
  });

  it('npm start with an unreachable REDIS_URL exits 1 with that one line, leaving nothing running', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-fault-'));
    try {
      const { code, stderr } = await failing(['npm', 'start'], {
        DATA_DIR: dataDir,
        PORT: '0',
        DATABASE_URL: (await services()).databaseUrl,
        REDIS_URL: 'redis://127.0.0.1:1',
      });
      expect(code).to.equal(1);
      expect(stderr).to.match(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1 /m);
      expect(stderr).to.not.include('Unhandled error event');
      expect(fs.existsSync(path.join(dataDir, 'npm-start.lock'))).to.equal(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a DATA_DIR that cannot be written is named with its cause, not as a missing lock file', async () => {
    const file = path.join(os.tmpdir(), `pt-not-a-dir-${crypto.randomBytes(4).toString('hex')}`);
    fs.writeFileSync(file, 'a file, not a folder');
    try {
      const { code, stderr } = await failing(['npm', 'start'], {
        DATA_DIR: path.join(file, 'data'),
        PORT: '0',
      });
      expect(code).to.equal(1);
      expect(stderr).to.match(/^DATA_DIR .*pt-not-a-dir-\w+\/data is not writable \(ENOTDIR: /m);
      expect(stderr).to.not.include('npm-start.lock');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

describe('many API processes as one service', function () {
  this.timeout(30_000);
  it('a token from a process with another PUBLIC_URL is refused saying so, in the 401 and in the log', async () => {
    const a = await startTestApi({ PUBLIC_URL: 'https://trust-a.example' });
    const b = await startTestApi({ PUBLIC_URL: 'https://trust-b.example' });
    try {
      const moderator = await createTestModerator(a);
      const res = await fetch(`${b.url}/v1/admin/cases`, { headers: moderator.headers });
      expect(res.status).to.equal(401);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).to.equal('invalid_token');
      expect(body.detail).to.equal(
        'the session token was issued by https://trust-a.example, not by this service (https://trust-b.example): every API process must use the same PUBLIC_URL',
      );
      expect(res.headers.get('www-authenticate')).to.include(
        'every API process must use the same PUBLIC_URL',
      );
      await fetch(`${b.url}/v1/admin/cases`, { headers: moderator.headers }); // told once, not per request
      const told = b.logs.lines.filter((l) =>
        String(l.msg).includes('every API process must use the same PUBLIC_URL'),
      );
      expect(told.map((l) => [l.tokenIssuer, l.issuer])).to.deep.equal([
        ['https://trust-a.example', 'https://trust-b.example'],
      ]);
      // The same PUBLIC_URL (and key): one service.
      expect((await fetch(`${a.url}/v1/admin/cases`, { headers: moderator.headers })).status).to.equal(200);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
