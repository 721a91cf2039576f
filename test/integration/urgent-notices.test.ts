import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import type { RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { noticeCase } from '../helpers/notices.js';
import { startTestWorker } from '../helpers/workers.js';

interface CaseView {
  id: string;
  urgent: boolean;
  priority: number;
  priorityScore: number;
  priorityWhy: { input: string; points: number }[];
  highestSeverity: string;
  dueAt: string;
  openedAt: string;
}

/**
 * Issue 51: an urgent notice is urgent. A threat to life or safety (DSA Art. 18), a child involved, a
 * child's protection or self-harm by category: the case is first in its queue, due within
 * URGENT_NOTICE_DUE_HOURS and marked; the studio hears notice.urgent at once; the transparency report
 * counts them.
 */
describe('urgent notices (issue 51)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let admin: TestModerator;
  let hookId: string;
  const started = new Date(Date.now() - 60_000);

  before(async () => {
    api = await startTestApi({
      NOTICE_QUOTA_PER_ADDRESS: '1000',
      NOTICE_QUOTA_PER_EMAIL: '1000',
      URGENT_NOTICE_DUE_HOURS: '2',
    });
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Urgent');
    admin = await createTestModerator(api, 'admin');
    const hook = await call<{ id: string }>(api.url, 'POST', '/v1/webhooks', {
      spec: '/v1/webhooks',
      headers: studio.headers,
      json: { url: 'https://hooks.example.test/urgent', events: ['notice.urgent'] },
    });
    expect(hook.status, hook.text).to.equal(201);
    hookId = hook.body.id;
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
  const notice = (player: string, extra: Record<string, unknown> = {}) =>
    call<{ noticeId: string; code?: string; errors?: { field: string }[] }>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      json: {
        gameId: studio.game.id,
        player,
        category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
        explanation: 'He wrote that he will hurt her at school tomorrow.',
        name: 'A. Parent',
        email: `parent-${player}@example.org`,
        goodFaith: true,
        ...extra,
      },
    });
  const caseView = async (noticeId: string) => {
    const caseId = await noticeCase(api.pool, noticeId);
    const res = await call<CaseView>(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
      spec: '/v1/admin/cases/{caseId}',
      headers: admin.headers,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const alerts = async (noticeId: string) =>
    (
      await api.pool.query<{ payload: { type: string; data: Record<string, unknown> } }>(
        `SELECT payload FROM webhook_deliveries WHERE webhook_id = $1 AND payload->'data'->>'noticeId' = $2`,
        [hookId, noticeId],
      )
    ).rows.map((r) => r.payload);

  it('a threat to life or safety: the studio is alerted at once, the case is first, critical, marked and due within the hours', async () => {
    const plain = await newPlayer();
    const ordinary = await notice(plain.serviceId);
    expect(ordinary.status, ordinary.text).to.equal(201);
    const p = await newPlayer();
    const sent = await notice(p.serviceId, { lifeAtRisk: true });
    expect(sent.status, sent.text).to.equal(201);

    // Written with the notice, before any worker or moderator: nothing of the notifier in it.
    const [alert, ...more] = await alerts(sent.body.noticeId);
    expect(more).to.deep.equal([]);
    expect(alert!.type).to.equal('notice.urgent');
    expect(alert!.data).to.deep.include({
      noticeId: sent.body.noticeId,
      gameId: studio.game.id,
      playerId: p.serviceId,
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      urgency: 'life',
      art18: true,
      explanation: 'He wrote that he will hurt her at school tomorrow.',
    });
    expect(JSON.stringify(alert)).not.to.include('A. Parent').and.not.to.include('parent-');
    expect(await alerts(ordinary.body.noticeId), 'an ordinary notice alerts nobody').to.deep.equal([]);

    const urgent = await caseView(sent.body.noticeId);
    const usual = await caseView(ordinary.body.noticeId);
    expect(urgent.urgent).to.equal(true);
    expect(usual.urgent).to.equal(false);
    expect(urgent.highestSeverity).to.equal('critical');
    expect(urgent.priority).to.be.greaterThan(usual.priority + 900);
    expect(urgent.priorityScore).to.equal(100);
    expect(urgent.priorityWhy[0]).to.include({ input: 'urgent', points: 100 });
    const dueIn = Date.parse(urgent.dueAt) - Date.now();
    expect(dueIn).to.be.within(60 * 60_000, 2 * 60 * 60_000 + 1000);

    // First in the queue, ahead of every case opened before it.
    const queue = await call<{ items: { id: string }[] }>(
      api.url,
      'GET',
      '/v1/admin/cases?status=open&limit=5',
      {
        spec: '/v1/admin/cases',
        headers: admin.headers,
      },
    );
    expect(queue.status, queue.text).to.equal(200);
    expect(queue.body.items[0]!.id).to.equal(urgent.id);
  });

  it('a child involved, a child protection or self-harm notice is urgent too; the kind of urgency is kept', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ childInvolved: true }, 'child'],
      [{ category: 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS' }, 'child'],
      [{ category: 'STATEMENT_CATEGORY_SELF_HARM' }, 'category'],
    ];
    for (const [extra, urgency] of cases) {
      const p = await newPlayer();
      const sent = await notice(p.serviceId, extra);
      expect(sent.status, sent.text).to.equal(201);
      const [alert] = await alerts(sent.body.noticeId);
      expect(alert!.data).to.include({ urgency, art18: false });
      const view = await caseView(sent.body.noticeId);
      expect([view.urgent, view.highestSeverity]).to.deep.equal([true, 'high']);
    }
  });

  it('refuses a box that is not a boolean, and stores nothing', async () => {
    const p = await newPlayer();
    const bad = await notice(p.serviceId, { lifeAtRisk: 'maybe' });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors!.map((e) => e.field)).to.deep.equal(['lifeAtRisk']);
    const { rows } = await api.pool.query(
      'SELECT 1 FROM notices n JOIN players p ON p.id = n.player_id WHERE p.service_id = $1',
      [p.serviceId],
    );
    expect(rows).to.deep.equal([]);
  });

  it("the transparency report counts the studio's urgent notices, by why", async () => {
    const res = await call<{ rows: { section: string; field: string; breakdown: string; value: unknown }[] }>(
      api.url,
      'GET',
      `/v1/admin/transparency-report?from=${started.toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}&platform=${studio.studioId}`,
      { spec: '/v1/admin/transparency-report', headers: admin.headers },
    );
    expect(res.status, res.text).to.equal(200);
    const value = (breakdown: string) =>
      res.body.rows.find((r) => r.field === 'number_of_urgent_notices' && r.breakdown === breakdown)?.value;
    expect([value('total'), value('life'), value('child'), value('category')]).to.deep.equal([4, 1, 2, 1]);
  });
});
