import { linkPlayer } from '../../common/usecases/provisioning.js';
import { expect } from 'chai';
import {
  caseOfOffense,
  fileReport,
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';
import { ownDatabase } from '../helpers/services.js';
import { startTestWorker } from '../helpers/workers.js';
import type { RunningWorker } from '../../worker/run.js';
import { noticeCase } from '../helpers/notices.js';

interface CaseView {
  id: string;
  queue: { key: string; name: string; visibleTo: string; pinned: boolean };
  claim: unknown;
  assignedTo: unknown;
  highestSeverity: string;
}
interface Figures {
  key: string;
  pending: number;
  overdue: number;
  inbound: number;
  resolved: number;
  medianHandlingSeconds: number | null;
  moderators: { username: string; resolved: number; medianHandlingSeconds: number | null }[];
}

/**
 * Issue 25, queues and routing: named queues, rules an admin edits that put each case in one queue,
 * queues only admins see, escalation to a queue, and each queue's figures. The suite has a database
 * of its own, so its rules route nobody else's cases and its figures count only its own.
 */
describe('review queues and routing rules', function () {
  this.timeout(90_000);
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let api: TestApi;
  let review: RunningWorker;
  let studioA: Tenant;
  let studioB: Tenant;
  let admin: TestModerator;
  let mod: TestModerator;

  before(async () => {
    db = await ownDatabase('queues');
    api = await startTestApi({ DATABASE_URL: db.url });
    review = await startTestWorker(api.config, 'review');
    [studioA, studioB] = [await createTenant(api.pool, 'Alpha'), await createTenant(api.pool, 'Beta')];
    admin = await createTestModerator(api, 'admin');
    mod = await createTestModerator(api);
  });
  after(async () => {
    await review?.stop();
    await api?.close();
    await db?.drop();
  });

  const as = (who: TestModerator) => ({ headers: who.headers });
  const get = <T>(who: TestModerator, path: string, spec: string) =>
    call<T>(api.url, 'GET', path, { spec: spec as never, ...as(who) });
  const send = <T = Record<string, unknown>>(
    who: TestModerator,
    method: string,
    path: string,
    spec: string,
    json?: object,
  ) =>
    call<T & { code?: string; errors?: { field: string }[] }>(api.url, method, path, {
      spec: spec as never,
      ...as(who),
      json,
    });
  const caseOf = async (id: string, who = admin) =>
    (await get<CaseView>(who, `/v1/admin/cases/${id}`, '/v1/admin/cases/{caseId}')).body;
  const setRules = (rules: object[], who = admin) =>
    send<{ items: object[]; rerouted: number }>(
      who,
      'PUT',
      '/v1/admin/queue-rules',
      '/v1/admin/queue-rules',
      {
        rules,
      },
    );
  const createQueue = (json: object, who = admin) =>
    send(who, 'POST', '/v1/admin/queues', '/v1/admin/queues', json);

  /** A report of `kind` by `tenant` against `serviceId`; the case it was filed into. */
  async function report(tenant: Tenant, serviceId: string, kind: 'anticheat' | 'toxicity', severity: string) {
    const flag = kind === 'anticheat' ? 'isCheatDetected' : 'isToxic';
    return caseOfOffense(
      api.pool,
      await fileReport(api.url, tenant, serviceId, kind, { [flag]: true, severity }),
    );
  }
  const player = async () => (await createTestPlayer(api.pool)).serviceId;

  it("the tab counts are each role's Open list: a case escalated out of a moderator's sight is not in her count", async () => {
    type Counts = { open: number; overdue: number };
    const counts = async (who: TestModerator) =>
      (await get<Counts>(who, '/v1/admin/queue-counts', '/v1/admin/queue-counts')).body.open;
    const listed = async (who: TestModerator) =>
      (await get<{ items: unknown[] }>(who, '/v1/admin/cases?status=open&limit=100', '/v1/admin/cases')).body
        .items.length;
    const [mod0, admin0] = [await counts(mod), await counts(admin)];
    const caseId = await report(studioA, await player(), 'toxicity', 'low');
    expect([await counts(mod), await counts(admin)]).to.deep.equal([mod0 + 1, admin0 + 1]);
    const escalated = await send(
      mod,
      'POST',
      `/v1/admin/cases/${caseId}/escalate`,
      '/v1/admin/cases/{caseId}/escalate',
      {
        note: 'Needs an admin.',
      },
    );
    expect(escalated.status, escalated.text).to.equal(200);
    // Neither Open list shows it now (admins find it under Escalated): the counts say the same.
    expect([await counts(mod), await counts(admin)]).to.deep.equal([mod0, admin0]);
    expect(await counts(mod)).to.equal(await listed(mod));
  });

  it('routes each case by the first rule its kind, highest severity, game and studio match, else to general', async () => {
    for (const [key, name] of [
      ['cheats-high', 'Cheating: high and critical'],
      ['alpha', 'Alpha studio'],
      ['beta-game', "Beta's game"],
    ])
      expect((await createQueue({ key, name })).status).to.equal(201);
    const saved = await setRules([
      { queue: 'cheats-high', types: ['cheating'], minSeverity: 'high' },
      { queue: 'alpha', studios: [studioA.studioId] },
      { queue: 'beta-game', games: [studioB.game.id], types: ['toxicity'] },
    ]);
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.items).to.have.length(3);

    const routed = async (tenant: Tenant, kind: 'anticheat' | 'toxicity', severity: string) =>
      (await caseOf(await report(tenant, await player(), kind, severity))).queue;
    expect((await routed(studioA, 'anticheat', 'critical')).key, 'the first rule wins').to.equal(
      'cheats-high',
    );
    expect((await routed(studioA, 'anticheat', 'low')).key).to.equal('alpha');
    expect((await routed(studioB, 'toxicity', 'low')).key).to.equal('beta-game');
    expect((await routed(studioB, 'anticheat', 'medium')).key, 'no rule matches').to.equal('general');
    const q = await routed(studioB, 'anticheat', 'high');
    expect(q).to.deep.equal({
      key: 'cheats-high',
      name: 'Cheating: high and critical',
      visibleTo: 'moderator',
      pinned: false,
    });

    // A case whose highest severity rises is routed again at the filing that raised it.
    const target = await player();
    const caseId = await report(studioB, target, 'anticheat', 'low');
    expect((await caseOf(caseId)).queue.key).to.equal('general');
    expect(await report(studioB, target, 'anticheat', 'critical')).to.equal(caseId);
    expect((await caseOf(caseId)).queue.key).to.equal('cheats-high');

    // The queue filter lists exactly the queue's cases.
    const listed = await get<{ items: CaseView[] }>(
      mod,
      '/v1/admin/cases?queue=beta-game&limit=100',
      '/v1/admin/cases',
    );
    expect(listed.status).to.equal(200);
    expect(listed.body.items.length).to.be.greaterThan(0);
    expect(listed.body.items.every((c) => c.queue.key === 'beta-game')).to.equal(true);
  });

  it("routes by where a case's reports came from and by its notices' categories; a game's report joining a notice's case keeps it there", async () => {
    // The rules the tests before left: put back at the end, for the tests after.
    const kept = (await get<{ items: object[] }>(mod, '/v1/admin/queue-rules', '/v1/admin/queue-rules')).body
      .items;
    for (const [key, name] of [
      ['flagged', 'Trusted flaggers'],
      ['scams', 'Scams from notices'],
      ['notices', 'Notices'],
    ])
      expect((await createQueue({ key, name })).status).to.equal(201);
    const saved = await setRules([
      { queue: 'flagged', sources: ['trusted_flagger'] },
      { queue: 'scams', categories: ['STATEMENT_CATEGORY_SCAMS_AND_FRAUD'] },
      { queue: 'notices', sources: ['notice'] },
    ]);
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.items).to.deep.equal([
      { queue: 'flagged', sources: ['trusted_flagger'] },
      { queue: 'scams', categories: ['STATEMENT_CATEGORY_SCAMS_AND_FRAUD'] },
      { queue: 'notices', sources: ['notice'] },
    ]);
    const registered = await send<{ apiKey: string }>(
      admin,
      'POST',
      '/v1/admin/trusted-flaggers',
      '/v1/admin/trusted-flaggers',
      { name: 'Routing flagger', areas: ['STATEMENT_CATEGORY_VIOLENCE'], coordinator: 'DSC' },
    );
    const notice = async (category: string, headers: Record<string, string> = {}) => {
      const p = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studioA.game.clientId });
      const sent = await call<{ noticeId: string }>(api.url, 'POST', '/v1/notices', {
        spec: '/v1/notices',
        headers,
        json: {
          gameId: studioA.game.id,
          player: p.serviceId,
          category,
          explanation: 'What they did is described here at length.',
          name: 'N',
          email: `n-${p.serviceId}@example.org`,
          goodFaith: true,
        },
      });
      expect(sent.status, sent.text).to.equal(201);
      const caseId = await noticeCase(api.pool, sent.body.noticeId);
      return { caseId, serviceId: p.serviceId };
    };
    const flagged = await notice('STATEMENT_CATEGORY_VIOLENCE', {
      authorization: `Bearer ${registered.body.apiKey}`,
    });
    expect((await caseOf(flagged.caseId)).queue.key).to.equal('flagged');
    expect((await caseOf((await notice('STATEMENT_CATEGORY_SCAMS_AND_FRAUD')).caseId)).queue.key).to.equal(
      'scams',
    );
    const speech = await notice('STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH');
    expect((await caseOf(speech.caseId)).queue.key).to.equal('notices');
    // A game's report of the same kind joins the notice's case, which still holds a notice.
    expect(await report(studioA, speech.serviceId, 'toxicity', 'low')).to.equal(speech.caseId);
    expect((await caseOf(speech.caseId)).queue.key).to.equal('notices');
    // A game's report alone matches none of them.
    expect((await caseOf(await report(studioA, await player(), 'toxicity', 'low'))).queue.key).to.equal(
      'general',
    );
    // Unknown sources and categories are refused, naming the field.
    const bad = await setRules([{ queue: 'notices', sources: ['email'], categories: ['NOPE'] }]);
    expect(bad.status).to.equal(400);
    expect(bad.body.errors!.map((e) => e.field)).to.include.members([
      'rules.0.sources.0',
      'rules.0.categories.0',
    ]);
    // Saving other rules routes the open notice cases again, by what they hold.
    const again = await setRules([{ queue: 'scams', sources: ['trusted_flagger'] }]);
    expect(again.status, again.text).to.equal(200);
    expect((await caseOf(flagged.caseId)).queue.key).to.equal('scams');
    expect((await caseOf(speech.caseId)).queue.key).to.equal('general');
    expect((await setRules(kept)).status).to.equal(200);
  });

  it('saving the rules routes open cases again at once, except a case a moderator moved by hand', async () => {
    const moved = await report(studioA, await player(), 'toxicity', 'medium');
    const left = await report(studioA, await player(), 'toxicity', 'medium');
    expect((await caseOf(left)).queue.key).to.equal('alpha');
    const escalated = await send<CaseView>(
      mod,
      'POST',
      `/v1/admin/cases/${moved}/escalate`,
      '/v1/admin/cases/{caseId}/escalate',
      {
        note: 'Beta asked to look at this one',
        queue: 'beta-game',
      },
    );
    expect(escalated.status, escalated.text).to.equal(200);
    expect(escalated.body.queue).to.include({ key: 'beta-game', pinned: true });

    const saved = await setRules([{ queue: 'cheats-high', types: ['cheating'], minSeverity: 'high' }]);
    expect(saved.body.rerouted).to.be.greaterThan(0);
    expect((await caseOf(left)).queue.key, 'no rule for Alpha any more').to.equal('general');
    expect((await caseOf(moved)).queue).to.include({ key: 'beta-game', pinned: true });

    const rules = await get<{ items: object[]; defaultQueue: string }>(
      mod,
      '/v1/admin/queue-rules',
      '/v1/admin/queue-rules',
    );
    expect(rules.body).to.deep.equal({
      items: [{ queue: 'cheats-high', types: ['cheating'], minSeverity: 'high' }],
      defaultQueue: 'general',
    });
    const audit = await get<{ items: { action: string; details: { change?: string; rerouted?: number } }[] }>(
      admin,
      `/v1/admin/audit?moderator=${admin.username}`,
      '/v1/admin/audit',
    );
    expect(audit.body.items.find((a) => a.action === 'edit_routing')?.details).to.include({
      change: 'rules',
      rerouted: saved.body.rerouted,
    });
  });

  it('a queue only admins see: moderators do not list, read, claim or get assigned its cases; they may escalate to it', async () => {
    expect((await createQueue({ key: 'senior', name: 'Senior review', visibleTo: 'admin' })).status).to.equal(
      201,
    );
    const serviceId = await player();
    const caseId = await report(studioB, serviceId, 'toxicity', 'high');
    expect(
      (await send(mod, 'POST', `/v1/admin/cases/${caseId}/claim`, '/v1/admin/cases/{caseId}/claim')).status,
    ).to.equal(200);
    const up = await send<CaseView>(
      mod,
      'POST',
      `/v1/admin/cases/${caseId}/escalate`,
      '/v1/admin/cases/{caseId}/escalate',
      {
        note: 'Threats of violence: <b>senior</b> call',
        queue: 'senior',
      },
    );
    expect(up.status, up.text).to.equal(200);
    expect(up.body.claim, 'the claim goes with the move').to.equal(null);
    expect(up.body.queue).to.deep.equal({
      key: 'senior',
      name: 'Senior review',
      visibleTo: 'admin',
      pinned: true,
    });

    // A moderator knows the queue (to escalate to it), not what is in it.
    const modQueues = await get<{ items: { key: string; pending: number | null }[] }>(
      mod,
      '/v1/admin/queues',
      '/v1/admin/queues',
    );
    expect(modQueues.body.items[0]!.key).to.equal('general');
    expect(modQueues.body.items.find((q) => q.key === 'senior')).to.include({ pending: null });
    expect(modQueues.body.items.find((q) => q.key === 'general')?.pending).to.be.a('number');
    const adminQueues = await get<{ items: { key: string; pending: number }[] }>(
      admin,
      '/v1/admin/queues',
      '/v1/admin/queues',
    );
    expect(adminQueues.body.items.find((q) => q.key === 'senior')?.pending).to.equal(1);

    expect((await get(mod, '/v1/admin/cases?queue=senior', '/v1/admin/cases')).status).to.equal(403);
    expect((await get(mod, '/v1/admin/cases?queue=no-such', '/v1/admin/cases')).status).to.equal(404);
    const all = await get<{ items: CaseView[] }>(mod, '/v1/admin/cases?limit=100', '/v1/admin/cases');
    expect(all.body.items.map((c) => c.id)).not.to.include(caseId);
    const adminAll = await get<{ items: CaseView[] }>(
      admin,
      '/v1/admin/cases?queue=senior',
      '/v1/admin/cases',
    );
    expect(adminAll.body.items.map((c) => c.id)).to.deep.equal([caseId]);

    const read = await get<{ code: string }>(mod, `/v1/admin/cases/${caseId}`, '/v1/admin/cases/{caseId}');
    expect(read.status).to.equal(403);
    expect(read.body.code).to.equal('forbidden');
    for (const [action, json] of [
      ['claim', undefined],
      ['escalate', { note: 'back to general please' }],
      ['resolve', { outcome: 'dismissed', note: 'n' }],
    ] as const) {
      const res = await send(
        mod,
        'POST',
        `/v1/admin/cases/${caseId}/${action}`,
        `/v1/admin/cases/{caseId}/${action}`,
        json,
      );
      expect(res.status, `${action}: ${res.text}`).to.equal(403);
    }

    const assignMod = await send(
      admin,
      'POST',
      `/v1/admin/cases/${caseId}/assign`,
      '/v1/admin/cases/{caseId}/assign',
      {
        username: mod.username,
      },
    );
    expect(assignMod.status).to.equal(400);
    expect(assignMod.body.errors?.map((e) => e.field)).to.deep.equal(['username']);
    const assignAdmin = await send(
      admin,
      'POST',
      `/v1/admin/cases/${caseId}/assign`,
      '/v1/admin/cases/{caseId}/assign',
      {
        username: admin.username,
      },
    );
    expect(assignAdmin.status).to.equal(200);

    // The admin works it there: claim, resolve.
    expect(
      (await send(admin, 'POST', `/v1/admin/cases/${caseId}/claim`, '/v1/admin/cases/{caseId}/claim')).status,
    ).to.equal(200);
    const done = await send(
      admin,
      'POST',
      `/v1/admin/cases/${caseId}/resolve`,
      '/v1/admin/cases/{caseId}/resolve',
      {
        outcome: 'upheld',
        note: 'Confirmed.',
      },
    );
    expect(done.status, done.text).to.equal(200);

    // Who escalated it where, with the note, is in the case's audit trail.
    const trail = await get<{
      audit: { action: string; note: string; summary: string; details: Record<string, unknown> }[];
    }>(admin, `/v1/admin/cases/${caseId}`, '/v1/admin/cases/{caseId}');
    expect(trail.body.audit.find((a) => a.action === 'escalate')).to.deep.include({
      note: 'Threats of violence: <b>senior</b> call',
      details: { to: 'queue', from: 'general', queue: 'senior' },
      // In words, the queue by its name: the same words as the player's timeline below.
      summary: 'Moved the case to the Senior review queue',
    });
    // And in the player's timeline, by name.
    const timeline = await get<{ items: { what: string; why: string | null; who: { name: string } }[] }>(
      admin,
      `/v1/admin/players/${serviceId}/timeline`,
      '/v1/admin/players/{serviceId}/timeline',
    );
    expect(timeline.body.items.find((e) => e.what.startsWith('Moved'))).to.deep.include({
      what: 'Moved the case to the Senior review queue',
      why: 'Threats of violence: <b>senior</b> call',
      who: { kind: 'moderator', name: mod.username },
    });
  });

  it('refuses bad queues and rules with a 4xx naming what is wrong, and changes nothing', async () => {
    const before = await get<{ items: object[] }>(admin, '/v1/admin/queue-rules', '/v1/admin/queue-rules');
    for (const body of [
      { key: 'Bad Key', name: 'x' },
      { key: 'ok-key' },
      { key: 'ok-key', name: ' ' },
      { key: 'x'.repeat(41), name: 'x' },
    ]) {
      const res = await createQueue(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
    }
    expect((await createQueue({ key: 'alpha', name: 'Another' })).body.code).to.equal('queue_exists');
    expect(
      (await createQueue({ key: 'alpha-2', name: 'alpha studio' })).body.code,
      'names differ in more than case',
    ).to.equal('queue_exists');
    expect((await createQueue({ key: 'mine', name: 'Mine' }, mod)).status).to.equal(403);
    expect((await setRules([], mod)).status).to.equal(403);

    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad = await setRules([
      { queue: 'nope' },
      { queue: 'general', studios: [unknown] },
      { queue: 'general', games: [unknown], types: ['cheating'] },
    ]);
    expect(bad.status).to.equal(400);
    expect(bad.body.errors?.map((e) => e.field)).to.deep.equal([
      'rules[0].queue',
      'rules[1].studios[0]',
      'rules[2].games[0]',
    ]);
    const malformed = await setRules([{ queue: 'general', types: ['spam'], minSeverity: 'huge', extra: 1 }]);
    expect(malformed.status).to.equal(400);
    expect((await get(admin, '/v1/admin/queue-rules', '/v1/admin/queue-rules')).body).to.deep.equal(
      before.body,
    );

    const general = await send(admin, 'PATCH', '/v1/admin/queues/general', '/v1/admin/queues/{queueKey}', {
      visibleTo: 'admin',
    });
    expect(general.status).to.equal(400);
    expect(
      (await send(admin, 'PATCH', '/v1/admin/queues/alpha', '/v1/admin/queues/{queueKey}', {})).status,
    ).to.equal(400);
    expect(
      (await send(admin, 'PATCH', '/v1/admin/queues/nope', '/v1/admin/queues/{queueKey}', { name: 'N' }))
        .status,
    ).to.equal(404);
    expect(
      (await send(admin, 'DELETE', '/v1/admin/queues/general', '/v1/admin/queues/{queueKey}')).body.code,
    ).to.equal('queue_in_use');
    // cheats-high has a rule naming it.
    expect(
      (await send(admin, 'DELETE', '/v1/admin/queues/cheats-high', '/v1/admin/queues/{queueKey}')).body.code,
    ).to.equal('queue_in_use');
  });

  it('admins rename, restrict and archive queues; an archived key stays taken', async () => {
    expect(
      (await createQueue({ key: 'spare', name: 'Spare', description: 'for <script>x</script> later' }))
        .status,
    ).to.equal(201);
    const renamed = await send<{ name: string; visibleTo: string; description: string }>(
      admin,
      'PATCH',
      '/v1/admin/queues/spare',
      '/v1/admin/queues/{queueKey}',
      { name: 'Spare room', visibleTo: 'admin' },
    );
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body).to.include({
      name: 'Spare room',
      visibleTo: 'admin',
      description: 'for <script>x</script> later',
    });
    expect(
      (
        await get<{ items: { key: string; pending: number | null }[] }>(
          mod,
          '/v1/admin/queues',
          '/v1/admin/queues',
        )
      ).body.items.find((q) => q.key === 'spare'),
    ).to.include({ pending: null, unclaimed: null });
    expect(
      (await send(mod, 'DELETE', '/v1/admin/queues/spare', '/v1/admin/queues/{queueKey}')).status,
    ).to.equal(403);
    expect(
      (await send(admin, 'DELETE', '/v1/admin/queues/spare', '/v1/admin/queues/{queueKey}')).status,
    ).to.equal(204);
    expect(
      (await send(admin, 'DELETE', '/v1/admin/queues/spare', '/v1/admin/queues/{queueKey}')).status,
    ).to.equal(404);
    expect((await createQueue({ key: 'spare', name: 'Spare again' })).body.code).to.equal('queue_exists');
    const unusable = await setRules([{ queue: 'spare' }]);
    expect(unusable.body.errors?.map((e) => e.field)).to.deep.equal(['rules[0].queue']);
  });

  it("counts each queue's pending, overdue, inbound and resolved cases, the median handling time, per moderator, and the appeals'", async () => {
    const queue = (await createQueue({ key: 'timed', name: 'Timed' })).body as { key: string };
    const studioC = await createTenant(api.pool, 'Gamma');
    await setRules([{ queue: queue.key, studios: [studioC.studioId] }]);
    const cases = [];
    for (let i = 0; i < 4; i++) cases.push(await report(studioC, await player(), 'toxicity', 'low'));
    // Opened 1, 2 and 3 hours ago; the fourth, opened before the window, stays open and is overdue.
    for (const [i, hours] of [1, 2, 3, 200].entries())
      await api.pool.query(
        `UPDATE review_cases SET opened_at = now() - make_interval(hours => $2), due_at = now() - interval '1 minute' WHERE id = $1`,
        [cases[i], hours],
      );
    const resolveAs = async (who: TestModerator, id: string) => {
      expect(
        (await send(who, 'POST', `/v1/admin/cases/${id}/claim`, '/v1/admin/cases/{caseId}/claim')).status,
      ).to.equal(200);
      const res = await send(
        who,
        'POST',
        `/v1/admin/cases/${id}/resolve`,
        '/v1/admin/cases/{caseId}/resolve',
        { outcome: 'dismissed', note: 'ok' },
      );
      expect(res.status, res.text).to.equal(200);
    };
    await resolveAs(mod, cases[0]!);
    await resolveAs(mod, cases[1]!);
    await resolveAs(admin, cases[2]!);

    const stats = await eventually('the figures', async () => {
      const res = await get<{ queues: Figures[]; appeals: { pending: number; moderators: unknown[] } }>(
        mod,
        '/v1/admin/stats?days=7',
        '/v1/admin/stats',
      );
      return res.status === 200 ? res.body : undefined;
    });
    const timed = stats.queues.find((q) => q.key === 'timed')!;
    expect(timed).to.deep.include({ pending: 1, overdue: 1, inbound: 3, resolved: 3 });
    // 1 h, 2 h and 3 h (give or take the seconds the test took): the median is about 2 h.
    expect(timed.medianHandlingSeconds).to.be.within(7_200, 7_300);
    expect(timed.moderators.map((m) => [m.username, m.resolved])).to.deep.equal([
      [mod.username, 2],
      [admin.username, 1],
    ]);
    expect(timed.moderators[0]!.medianHandlingSeconds).to.be.within(5_400, 5_500);
    expect(
      stats.queues.map((q) => q.key),
      'a moderator sees no admins-only queue',
    ).not.to.include('senior');
    expect(stats.appeals).to.deep.include({ pending: 0, moderators: [] });
    const adminStats = await get<{ queues: Figures[] }>(admin, '/v1/admin/stats?days=7', '/v1/admin/stats');
    expect(adminStats.body.queues.find((q) => q.key === 'senior')).to.include({ pending: 0, resolved: 1 });
  });
});
