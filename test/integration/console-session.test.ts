import crypto from 'node:crypto';
import { expect } from 'chai';
import { startTestWorker } from '../helpers/workers.js';
import { type RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  startTestApi,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';

/** The console's cookie session through the API, on a controlled clock. */
describe('console sessions (cookie, CSRF, idle expiry, lockout)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let now: number;
  let review: RunningWorker;
  let moderator: TestModerator;
  let admin: TestModerator;
  before(async () => {
    now = Date.now();
    api = await startTestApi({}, { clock: () => new Date(now) });
    review = await startTestWorker(api.config, 'review');
    moderator = await createTestModerator(api);
    admin = await createTestModerator(api, 'admin');
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  async function signIn(who: { username: string; password: string }) {
    const res = await call<{
      csrfToken: string;
      moderator: { username: string; role: string };
      code?: string;
    }>(api.url, 'POST', '/v1/admin/console-session', {
      json: { username: who.username, password: who.password },
    });
    const cookie = /pt_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    return { res, cookie, headers: { cookie: `pt_console=${cookie}` }, csrf: res.body.csrfToken };
  }
  async function openCase() {
    const tenant = await createTenant(api.pool);
    const made = await call<{ serviceId: string }>(api.url, 'POST', '/v1/players', {
      headers: tenant.headers,
      json: { gamerTag: `cs-${crypto.randomBytes(4).toString('hex')}`, fullName: 'Session Player' },
    });
    const report = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/anticheat/submitReport/${made.body.serviceId}`,
      {
        spec: '/v1/anticheat/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isCheatDetected: true, severity: 'high' } },
      },
    );
    return eventually('the case', async () => {
      const { rows } = await api.pool.query<{ case_id: string }>(
        'SELECT case_id FROM case_offenses WHERE offense_id = $1',
        [report.body.report._id],
      );
      return rows[0]?.case_id;
    });
  }

  it('sets an HttpOnly SameSite=Strict cookie, answers who is signed in, and stores only a hash', async () => {
    const s = await signIn(moderator);
    expect(s.res.status).to.equal(201);
    const setCookie = s.res.headers.get('set-cookie')!;
    expect(setCookie)
      .to.match(/httponly/i)
      .and.match(/samesite=strict/i)
      .and.match(/path=\//i);
    expect(setCookie).to.not.match(/secure/i); // plain http here; Secure over https
    expect(s.res.body.moderator).to.include({ username: moderator.username, role: 'moderator' });
    const me = await call<{ csrfToken: string; moderator: { username: string } }>(
      api.url,
      'GET',
      '/v1/admin/console-session',
      { headers: s.headers },
    );
    expect(me.status).to.equal(200);
    expect(me.body.csrfToken).to.equal(s.csrf);
    const { rows } = await api.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM console_sessions WHERE id_hash = sha256(convert_to($1, 'UTF8'))`,
      [s.cookie],
    );
    expect(rows[0]!.n).to.equal(1);
    const raw = await api.pool.query('SELECT 1 FROM console_sessions WHERE encode(id_hash, $2) = $1', [
      s.cookie,
      'escape',
    ]);
    expect(raw.rowCount).to.equal(0);
    // Without a cookie (a first visit) there is nothing to describe and nothing failed: 204, no 401.
    const first = await call(api.url, 'GET', '/v1/admin/console-session');
    expect(first.status).to.equal(204);
    expect(first.text).to.equal('');
  });

  it('a write with the cookie needs the CSRF token; reads do not; the bearer token needs none', async () => {
    const caseId = await openCase();
    const s = await signIn(moderator);
    const claim = (headers: Record<string, string>) =>
      call<{ code?: string }>(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
        spec: '/v1/admin/cases/{caseId}/claim',
        headers,
      });
    const refused = await claim(s.headers);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('csrf_failed');
    expect((await claim({ ...s.headers, 'x-csrf-token': 'forged' })).status).to.equal(403);
    const { rows } = await api.pool.query('SELECT claimed_by FROM review_cases WHERE id = $1', [caseId]);
    expect(rows[0].claimed_by).to.equal(null);
    expect((await claim({ ...s.headers, 'x-csrf-token': s.csrf })).status).to.equal(200);
    const read = await call(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
      spec: '/v1/admin/cases/{caseId}',
      headers: s.headers,
    });
    expect(read.status).to.equal(200);
    const viaBearer = await call(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
      spec: '/v1/admin/cases/{caseId}',
      headers: admin.headers,
    });
    expect(viaBearer.status).to.equal(200);
    // A moderator's cookie does not open the admins' audit log.
    const audit = await call(api.url, 'GET', '/v1/admin/audit', { headers: s.headers });
    expect(audit.status).to.equal(403);
  });

  it('ends after 30 idle minutes, while use keeps it alive; sign-out ends it at once', async () => {
    const s = await signIn(moderator);
    const who = () => call(api.url, 'GET', '/v1/admin/console-session', { headers: s.headers });
    now += 20 * 60_000;
    expect((await who()).status).to.equal(200); // used: the idle clock starts again
    now += 20 * 60_000;
    expect((await who()).status).to.equal(200);
    now += 31 * 60_000;
    expect((await who()).status).to.equal(401);

    const t = await signIn(moderator);
    const out = await call(api.url, 'DELETE', '/v1/admin/console-session', {
      headers: { ...t.headers, 'x-csrf-token': t.csrf },
    });
    expect(out.status).to.equal(204);
    expect(out.headers.get('set-cookie')).to.match(/pt_console=;/);
    expect((await call(api.url, 'GET', '/v1/admin/console-session', { headers: t.headers })).status).to.equal(
      401,
    );
  });

  it('a console polling every few seconds reads its session: last_seen_at is written at most once a minute', async () => {
    const s = await signIn(moderator);
    const seen = async () =>
      (
        await api.pool.query<{ t: Date }>(
          `SELECT last_seen_at AS t FROM console_sessions WHERE id_hash = sha256(convert_to($1, 'UTF8'))`,
          [s.cookie],
        )
      ).rows[0]!.t.getTime();
    const who = () => call(api.url, 'GET', '/v1/admin/console-session', { headers: s.headers });
    const signedInAt = await seen();
    for (let i = 0; i < 5; i++) {
      now += 10_000;
      expect((await who()).status).to.equal(200);
    }
    expect(await seen(), 'not rewritten within the minute').to.equal(signedInAt);
    now += 20_000;
    expect((await who()).status).to.equal(200);
    expect(await seen()).to.equal(now);
  });

  it('ends 12 hours after sign-in however busy', async () => {
    const s = await signIn(moderator);
    for (let i = 0; i < 25; i++) {
      now += 29 * 60_000;
      await call(api.url, 'GET', '/v1/admin/console-session', { headers: s.headers });
    }
    expect((await call(api.url, 'GET', '/v1/admin/console-session', { headers: s.headers })).status).to.equal(
      401,
    );
  });

  it('is behind the same lockout as the API sign-in', async () => {
    const victim = await createTestModerator(api);
    for (let i = 0; i < 5; i++)
      expect((await signIn({ username: victim.username, password: 'wrong password!' })).res.status).to.equal(
        401,
      );
    const locked = await signIn({ username: victim.username, password: 'wrong password!' });
    expect(locked.res.status).to.equal(401);
    const refused = await signIn(victim);
    expect(refused.res.status).to.equal(429);
    expect(refused.res.body.code).to.equal('too_many_attempts');
    expect(Number(refused.res.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(refused.cookie).to.equal(undefined);
  });
});
