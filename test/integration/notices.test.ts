import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import type { RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { startTestWorker } from '../helpers/workers.js';
import { noticeCase } from '../helpers/notices.js';

interface Receipt {
  noticeId: string;
  secret: string;
  status: string;
}
interface Standing {
  status: string;
  words: string;
  decidedAt: string | null;
  automatedMeans: string | null;
  redress: string | null;
  trustedFlagger: boolean;
}

/**
 * Issue 37: notices from anyone (DSA Art. 16) and trusted flaggers (Art. 22). A notice is filed like
 * a report but takes no points by itself; it opens or joins a case; the notifier reads the decision
 * with the receipt's secret and nothing else; a trusted flagger's notice goes ahead in the queue.
 */
describe('notices (DSA Art. 16, 22)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let admin: TestModerator;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi({ NOTICE_QUOTA_PER_ADDRESS: '1000', NOTICE_QUOTA_PER_EMAIL: '1000' });
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Notices');
    [admin, mod] = [await createTestModerator(api, 'admin'), await createTestModerator(api)];
  });
  after(async () => {
    await review?.stop();
    await api?.close();
  });

  async function newPlayer() {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
    return p;
  }
  const notice = (body: object, headers: Record<string, string> = {}) =>
    call<Receipt & { code?: string; errors?: { field: string }[] }>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      headers,
      json: body,
    });
  const standing = (id: string, secret: string) =>
    call<Standing & { code?: string }>(api.url, 'GET', `/v1/notices/${id}`, {
      spec: '/v1/notices/{noticeId}',
      headers: { 'Notice-Secret': secret },
    });
  const caseOf = (noticeId: string) => noticeCase(api.pool, noticeId);
  const body = (player: string, extra: object = {}) => ({
    gameId: studio.game.id,
    player,
    category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
    explanation: 'They posted slurs in the lobby chat, repeatedly.',
    evidence: [{ type: 'text', content: 'the slur they wrote' }],
    name: 'A. Parent',
    email: `parent-${player}@example.org`,
    goodFaith: true,
    ...extra,
  });

  it('anyone files a notice by gamer tag; it takes no points, opens a case, and the notifier reads it with the secret alone', async () => {
    const p = await newPlayer();
    const games = await call<{ items: { id: string; title: string }[] }>(
      api.url,
      'GET',
      '/v1/notices/games',
      {
        spec: '/v1/notices/games',
      },
    );
    expect(games.body.items.map((g) => g.id)).to.include(studio.game.id);
    const before = await trustScore(api.pool, p.serviceId);
    const email = `parent-${p.serviceId}@example.org`;
    const sent = await notice(body(p.gamerTag.toUpperCase(), { matchId: 'm-1', email }));
    expect(sent.status, sent.text).to.equal(201);
    expect(sent.body.status).to.equal('received');
    expect(sent.headers.get('location')).to.equal(`/v1/notices/${sent.body.noticeId}`);
    expect(await trustScore(api.pool, p.serviceId), 'no points by itself').to.equal(before);
    const caseId = await caseOf(sent.body.noticeId);
    const { rows } = await api.pool.query<{
      status: string;
      status_reason: string;
      source: string;
      held: number;
    }>(
      `SELECT o.status, o.status_reason, o.context->>'source' AS source, c.held_points AS held
         FROM notices n JOIN offenses o ON o.id = n.offense_id JOIN review_cases c ON c.id = $2 WHERE n.id = $1`,
      [sent.body.noticeId, caseId],
    );
    expect(rows[0]).to.include({ status: 'held', status_reason: 'notice', source: 'notice' });
    expect(rows[0]!.held).to.be.greaterThan(0);

    const read = await standing(sent.body.noticeId, sent.body.secret);
    expect(read.status, read.text).to.equal(200);
    expect(read.body).to.include({ status: 'received', decidedAt: null, redress: null });
    // A wrong secret, another notice's id, a malformed id: the same 404.
    const other = await notice(body((await newPlayer()).serviceId));
    for (const [id, secret] of [
      [sent.body.noticeId, 'wrong'],
      [other.body.noticeId, sent.body.secret],
      ['not-a-uuid', sent.body.secret],
      [sent.body.noticeId, ''],
    ] as const) {
      const r = await standing(id, secret);
      expect([r.status, r.body.code], `${id} ${secret}`).to.deep.equal([404, 'not_found']);
    }
    // The same sender, player and kind in the same match: refused as a duplicate.
    const again = await notice(body(p.serviceId, { matchId: 'm-1', email }));
    expect([again.status, again.body.code]).to.deep.equal([409, 'duplicate_notice']);

    // The studio listens for what became of the reports it filed: it filed none of this case.
    await insertWebhook(api.pool, {
      studioId: studio.studioId,
      url: 'https://hooks.example/notices',
      events: ['report.outcome', 'case.resolved'],
      sealedSecret: Buffer.from('sealed'),
    });
    // A moderator upholds: the held points are taken by the penalty rule, the notifier is told.
    const claim = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    expect(claim.status, claim.text).to.equal(200);
    expect((await standing(sent.body.noticeId, sent.body.secret)).body.status).to.equal('in_review');
    const resolved = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'upheld', note: 'slurs confirmed' },
    });
    expect(resolved.status, resolved.text).to.equal(200);
    expect(await trustScore(api.pool, p.serviceId)).to.be.below(before);
    // Issue 49: no report.outcome about "its own" report, nor case.resolved naming it, goes to the studio.
    const { rows: told } = await api.pool.query(
      `SELECT d.event_type FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.studio_id = $1 AND d.payload->'data'->>'caseId' = $2`,
      [studio.studioId, caseId],
    );
    expect(told).to.deep.equal([]);
    const decided = await standing(sent.body.noticeId, sent.body.secret);
    expect(decided.body.status).to.equal('action_taken');
    expect(decided.body.decidedAt).to.be.a('string');
    expect(decided.body.automatedMeans).to.match(/^No/);
    expect(decided.body.redress).to.match(/Art\. 21/);
    expect(decided.text, 'never a moderator’s name or note')
      .to.not.include(mod.username)
      .and.not.include('slurs confirmed');

    // The player appeals and an admin grants it: the action is undone, and the notifier reads that.
    const { rows: off } = await api.pool.query<{ offense_id: string }>(
      'SELECT offense_id FROM notices WHERE id = $1',
      [sent.body.noticeId],
    );
    const appeal = await call<{ id: string }>(api.url, 'POST', `/v1/player/${p.serviceId}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: studio.headers,
      json: { offenseId: off[0]!.offense_id, reason: 'incorrect', statement: 'It was not me.' },
    });
    expect(appeal.status, appeal.text).to.equal(201);
    await call(api.url, 'POST', `/v1/admin/appeals/${appeal.body.id}/claim`, {
      spec: '/v1/admin/appeals/{appealId}/claim',
      headers: admin.headers,
    });
    const granted = await call(api.url, 'POST', `/v1/admin/appeals/${appeal.body.id}/decide`, {
      spec: '/v1/admin/appeals/{appealId}/decide',
      headers: admin.headers,
      json: { decision: 'granted', note: 'the account was shared' },
    });
    expect(granted.status, granted.text).to.equal(200);
    const reversed = await standing(sent.body.noticeId, sent.body.secret);
    expect(reversed.body.status).to.equal('no_action');
    expect(reversed.body.words).to.match(/^Action was first taken, then reversed/);
    expect(reversed.body.decidedAt! > decided.body.decidedAt!).to.equal(true);
  });

  it('a dismissed notice says no action; the other notifier of the same case reads the same', async () => {
    const p = await newPlayer();
    const sent = await notice(body(p.serviceId));
    const caseId = await caseOf(sent.body.noticeId);
    const second = await notice(body(p.serviceId, { email: `another-${p.serviceId}@example.org` }));
    expect(await caseOf(second.body.noticeId), 'joins the open case').to.equal(caseId);
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    const before = await trustScore(api.pool, p.serviceId);
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'dismissed', note: 'banter' },
    });
    expect(await trustScore(api.pool, p.serviceId), 'nothing was ever taken').to.equal(before);
    for (const n of [sent.body, second.body])
      expect((await standing(n.noticeId, n.secret)).body.status).to.equal('no_action');
  });

  it('bad input: every field named, nothing stored; unknown game or player: 404; name and e-mail only where Art. 16(2)(c) exempts', async () => {
    const p = await newPlayer();
    const { rows: before } = await api.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM notices');
    const bad = await notice({
      gameId: 'x',
      player: '',
      category: 'NOPE',
      explanation: 'short',
      goodFaith: false,
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors!.map((f) => f.field)).to.include.members([
      'gameId',
      'player',
      'category',
      'explanation',
      'goodFaith',
    ]);
    const unnamed = await notice(body(p.serviceId, { name: undefined, email: undefined }));
    expect(unnamed.status).to.equal(400);
    expect(unnamed.text).to.include('Art. 16(2)(c)');
    expect((await notice(body('nobody-plays-this'))).status).to.equal(404);
    expect(
      (await notice({ ...body(p.serviceId), gameId: '00000000-0000-4000-8000-000000000000' })).status,
    ).to.equal(404);
    const { rows: after } = await api.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM notices');
    expect(after[0]!.n).to.equal(before[0]!.n);
    const anonymous = await notice(
      body(p.serviceId, {
        category: 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
        name: undefined,
        email: undefined,
      }),
    );
    expect(anonymous.status, anonymous.text).to.equal(201);
    const { rows } = await api.pool.query('SELECT notifier_name, notifier_email FROM notices WHERE id = $1', [
      anonymous.body.noticeId,
    ]);
    expect(rows[0]).to.deep.equal({ notifier_name: null, notifier_email: null });
  });

  it('a trusted flagger: registered by an admin (audited), its notice ahead in the queue with a shorter deadline; suspended, refused', async () => {
    const reg = await call<{ id: string; apiKey: string; accuracy: null }>(
      api.url,
      'POST',
      '/v1/admin/trusted-flaggers',
      {
        spec: '/v1/admin/trusted-flaggers',
        headers: admin.headers,
        json: {
          name: 'Safer Play e.V.',
          areas: ['STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH'],
          coordinator: 'Bundesnetzagentur (DE)',
        },
      },
    );
    expect(reg.status, reg.text).to.equal(201);
    expect(reg.body.apiKey).to.match(/^ptf_/);
    const byMod = await call(api.url, 'POST', '/v1/admin/trusted-flaggers', {
      spec: '/v1/admin/trusted-flaggers',
      headers: mod.headers,
      json: { name: 'x', areas: ['STATEMENT_CATEGORY_VIOLENCE'], coordinator: 'y' },
    });
    expect(byMod.status).to.equal(403);

    const [plain, flagged] = [await newPlayer(), await newPlayer()];
    const a = await notice(body(plain.serviceId));
    const b = await notice(
      { ...body(flagged.serviceId), name: undefined, email: undefined },
      { authorization: `Bearer ${reg.body.apiKey}` },
    );
    expect(b.status, b.text).to.equal(201);
    expect((await standing(b.body.noticeId, b.body.secret)).body.trustedFlagger).to.equal(true);
    const [ca, cb] = [await caseOf(a.body.noticeId), await caseOf(b.body.noticeId)];
    const { rows } = await api.pool.query<{ id: string; priority: number; due: number; flagged: boolean }>(
      `SELECT id, priority::float8 AS priority, extract(epoch FROM due_at - opened_at)::float8 / 3600 AS due,
              flagged_by_trusted AS flagged
         FROM review_cases WHERE id = ANY($1::uuid[])`,
      [[ca, cb]],
    );
    const of = (id: string) => rows.find((r) => r.id === id)!;
    expect(of(cb).flagged).to.equal(true);
    expect(of(cb).priority - of(ca).priority).to.equal(50);
    expect(of(cb).due).to.equal(12);
    expect(of(ca).due).to.be.greaterThan(12);

    // Outside its areas, a flagger's notice is taken as a person's notice (it was a 500 before):
    // no priority, the ordinary deadline, and not counted among the flagger's notices.
    const outside = await newPlayer();
    const c = await notice(
      {
        ...body(outside.serviceId),
        category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
        name: undefined,
        email: undefined,
      },
      { authorization: `Bearer ${reg.body.apiKey}` },
    );
    expect(c.status, c.text).to.equal(201);
    expect((await standing(c.body.noticeId, c.body.secret)).body.trustedFlagger).to.equal(false);
    const outsideCase = await caseOf(c.body.noticeId);
    const { rows: cc } = await api.pool.query<{ source: string; flagger: string | null; flagged: boolean }>(
      `SELECT n.source, n.trusted_flagger_id AS flagger, rc.flagged_by_trusted AS flagged
         FROM notices n, review_cases rc WHERE n.id = $1 AND rc.id = $2`,
      [c.body.noticeId, outsideCase],
    );
    expect(cc[0]).to.deep.equal({ source: 'notice', flagger: null, flagged: false });

    const bad = await notice(body(plain.serviceId), { authorization: 'Bearer ptf_nope' });
    expect([bad.status, bad.body.code]).to.deep.equal([401, 'invalid_flagger_key']);
    const suspended = await call(api.url, 'POST', `/v1/admin/trusted-flaggers/${reg.body.id}/suspend`, {
      spec: '/v1/admin/trusted-flaggers/{flaggerId}/suspend',
      headers: admin.headers,
      json: { reason: 'many unfounded notices in March' },
    });
    expect(suspended.status, suspended.text).to.equal(200);
    const refused = await notice(body((await newPlayer()).serviceId), {
      authorization: `Bearer ${reg.body.apiKey}`,
    });
    expect([refused.status, refused.body.code]).to.deep.equal([403, 'flagger_suspended']);
    const twice = await call(api.url, 'POST', `/v1/admin/trusted-flaggers/${reg.body.id}/suspend`, {
      spec: '/v1/admin/trusted-flaggers/{flaggerId}/suspend',
      headers: admin.headers,
      json: { reason: 'again' },
    });
    expect(twice.status).to.equal(409);
    const reinstated = await call(api.url, 'POST', `/v1/admin/trusted-flaggers/${reg.body.id}/reinstate`, {
      spec: '/v1/admin/trusted-flaggers/{flaggerId}/reinstate',
      headers: admin.headers,
    });
    expect(reinstated.status).to.equal(200);
    const list = await call<{ items: { id: string; notices: number; suspended: boolean }[] }>(
      api.url,
      'GET',
      '/v1/admin/trusted-flaggers',
      { spec: '/v1/admin/trusted-flaggers', headers: admin.headers },
    );
    expect(list.body.items.find((f) => f.id === reg.body.id)).to.include({ notices: 1, suspended: false });
    const { rows: audit } = await api.pool.query<{ action: string; note: string | null }>(
      `SELECT action, note FROM moderation_audit WHERE details->>'flaggerId' = $1 ORDER BY id`,
      [reg.body.id],
    );
    expect(audit.map((r) => r.action)).to.deep.equal([
      'register_flagger',
      'suspend_flagger',
      'reinstate_flagger',
    ]);
    expect(audit[1]!.note).to.equal('many unfounded notices in March');
  });

  it('the public channel is bounded per e-mail and per address a day (429 with Retry-After), nothing stored past the bound', async () => {
    // Its own API with small bounds, and this address's windows started afresh.
    const small = await startTestApi({ NOTICE_QUOTA_PER_ADDRESS: '4', NOTICE_QUOTA_PER_EMAIL: '3' });
    try {
      await api.pool.query('DELETE FROM notice_quota');
      const [x, y] = [`flood-x-${Date.now()}@example.org`, `flood-y-${Date.now()}@example.org`];
      const statuses: number[] = [];
      for (const email of [x, x, x, x, y, y]) {
        const r = await call<{ code?: string }>(small.url, 'POST', '/v1/notices', {
          spec: '/v1/notices',
          json: body((await newPlayer()).serviceId, { email }),
        });
        statuses.push(r.status);
        if (r.status === 429) {
          expect(r.body.code).to.equal('notice_quota_exceeded');
          expect(Number(r.headers.get('retry-after'))).to.be.within(1, 86_400);
        }
      }
      // x: three a day; then y takes the address's fourth, and the address is spent.
      expect(statuses).to.deep.equal([201, 201, 201, 429, 201, 429]);
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM notices WHERE notifier_email = ANY($1)',
        [[x, y]],
      );
      expect(rows[0]!.n).to.equal(4);
    } finally {
      await small.close();
    }
  });

  it('a scripted flood (60 notices at once from one address, loopback): exactly the bound is taken, the rest refused, nothing doubled', async () => {
    const small = await startTestApi({ NOTICE_QUOTA_PER_ADDRESS: '10', NOTICE_QUOTA_PER_EMAIL: '1000' });
    try {
      await api.pool.query('DELETE FROM notice_quota');
      // One after another (as in the sanctions test): 60 password hashes at once fill libuv's thread
      // pool, where a new database connection's SCRAM handshake waits past its 5 s timeout.
      const players: Awaited<ReturnType<typeof newPlayer>>[] = [];
      for (let i = 0; i < 60; i++) players.push(await newPlayer());
      const tag = `flood-${Date.now()}`;
      const answers = await Promise.all(
        players.map((p, i) =>
          fetch(`${small.url}/v1/notices`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body(p.serviceId, { email: `${tag}-${i}@example.org` })),
          }).then((r) => r.status),
        ),
      );
      expect(answers.filter((s) => s === 201)).to.have.length(10);
      expect(answers.filter((s) => s === 429)).to.have.length(50);
      const { rows } = await api.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notices WHERE notifier_email LIKE $1`,
        [`${tag}-%`],
      );
      expect(rows[0]!.n).to.equal(10);
    } finally {
      await small.close();
    }
  });

  it('a game reads the outcome of a report it filed with a reporterId, for its in-game reporter', async () => {
    const p = await newPlayer();
    const res = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/toxicity/submitReport/${p.serviceId}`,
      {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: studio.headers,
        json: { report: { isToxic: true, severity: 'low', reporterId: 'reporter-42' } },
      },
    );
    const id = res.body.report._id;
    const outcome = await call<{ status: string; reporterId: string }>(
      api.url,
      'GET',
      `/v1/reports/${id}/outcome`,
      {
        spec: '/v1/reports/{reportId}/outcome',
        headers: studio.headers,
      },
    );
    expect(outcome.status, outcome.text).to.equal(200);
    expect(outcome.body).to.include({ reporterId: 'reporter-42' });
    expect(['received', 'in_review']).to.include(outcome.body.status);
    const other = await createTenant(api.pool, 'Other');
    const foreign = await call(api.url, 'GET', `/v1/reports/${id}/outcome`, {
      spec: '/v1/reports/{reportId}/outcome',
      headers: other.headers,
    });
    expect(foreign.status).to.equal(404);
  });
});
