import { expect } from 'chai';
import { startTestWorker } from '../helpers/workers.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { type RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  offenseCount,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { eventually } from '../helpers/http-server.js';
import { call } from '../helpers/http.js';

interface Offense {
  _id: string;
  status: string;
  penaltyPoints: number;
  penaltyRestored: number;
  restoredBy: string | null;
  restoredAt: string | null;
}

/** Issue 23: decisions that compose, records that say what became of them, limits that agree. */
describe('decisions that compose', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let other: Tenant;
  let modA: TestModerator;
  let modB: TestModerator;

  before(async () => {
    api = await startTestApi({ STRIKE_LADDER: '' });
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Decisions');
    other = await createTenant(api.pool, 'Other');
    [modA, modB] = [await createTestModerator(api), await createTestModerator(api)];
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  async function player() {
    const p = await createTestPlayer(api.pool);
    for (const t of [studio, other])
      await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: t.game.clientId });
    return p.serviceId;
  }
  const report = async (id: string, kind: string, body: object) => {
    const res = await call<{ report: Offense }>(api.url, 'POST', `/v1/${kind}/submitReport/${id}`, {
      spec: `/v1/${kind}/submitReport/{serviceId}` as never,
      headers: studio.headers,
      json: { report: body },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.report;
  };
  const caseOf = (offenseId: string) =>
    eventually('the case', async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        'SELECT case_id AS id FROM case_offenses WHERE offense_id = $1',
        [offenseId],
      );
      return rows[0]?.id;
    });
  async function dismiss(caseId: string) {
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: modA.headers,
    });
    return call<{ resolution: { pointsRestored: number } }>(
      api.url,
      'POST',
      `/v1/admin/cases/${caseId}/resolve`,
      {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: modA.headers,
        json: { outcome: 'dismissed', note: 'false report' },
      },
    );
  }
  const appeal = (id: string, offenseId: string) =>
    call<{ id: string; code?: string; offenseStatus?: string }>(api.url, 'POST', `/v1/player/${id}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: studio.headers,
      json: { offenseId, reason: 'incorrect', statement: 'not them' },
    });
  async function grant(appealId: string) {
    await call(api.url, 'POST', `/v1/admin/appeals/${appealId}/claim`, {
      spec: '/v1/admin/appeals/{appealId}/claim',
      headers: modB.headers,
    });
    return call<{ decision: { pointsRefunded: number } }>(
      api.url,
      'POST',
      `/v1/admin/appeals/${appealId}/decide`,
      {
        spec: '/v1/admin/appeals/{appealId}/decide',
        headers: modB.headers,
        json: { decision: 'granted', note: 'agreed' },
      },
    );
  }
  const offenses = async (id: string, headers = studio.headers) =>
    (
      await call<{ items: Offense[] }>(api.url, 'GET', `/v1/player/${id}/offenses`, {
        spec: '/v1/player/{serviceId}/offenses',
        headers,
      })
    ).body.items;

  it('an appeal granted, then the case dismissed: the points come back once, and the record says so', async () => {
    const id = await player();
    const toxic = await report(id, 'toxicity', { isToxic: true, severity: 'medium' }); // 4
    await report(id, 'anticheat', { isCheatDetected: true, severity: 'medium' }); // 10
    expect(await trustScore(api.pool, id)).to.equal(86);
    const filed = await appeal(id, toxic._id);
    expect((await grant(filed.body.id)).body.decision.pointsRefunded).to.equal(4);
    expect(await trustScore(api.pool, id)).to.equal(90);
    const dismissed = await dismiss(await caseOf(toxic._id));
    expect(dismissed.status, dismissed.text).to.equal(200);
    expect(dismissed.body.resolution.pointsRestored).to.equal(0); // the case held only that offense
    expect(await trustScore(api.pool, id)).to.equal(90);
    const o = (await offenses(id)).find((x) => x._id === toxic._id)!;
    expect(o).to.include({ status: 'restored', penaltyPoints: 4, penaltyRestored: 4, restoredBy: 'appeal' });
    expect(Number.isNaN(Date.parse(o.restoredAt!))).to.equal(false);
  });

  it('the case dismissed, then an appeal: 409 not_appealable; an appeal filed before is granted with nothing to give', async () => {
    const id = await player();
    const toxic = await report(id, 'toxicity', { isToxic: true, severity: 'high' }); // 7
    const early = await appeal(id, toxic._id);
    expect(early.status).to.equal(201);
    const dismissed = await dismiss(await caseOf(toxic._id));
    expect(dismissed.body.resolution.pointsRestored).to.equal(7);
    const late = await appeal(id, toxic._id);
    expect(late.status).to.equal(409);
    expect(late.body).to.include({ code: 'not_appealable', offenseStatus: 'restored' });
    expect((await grant(early.body.id)).body.decision.pointsRefunded).to.equal(0);
    expect(await trustScore(api.pool, id)).to.equal(100);
    expect((await offenses(id))[0]).to.include({
      status: 'restored',
      penaltyRestored: 7,
      restoredBy: 'dismissal',
    });
  });

  it('a dismissal of a case restores only what no appeal gave back; history rows of it are the filer’s in full', async () => {
    const id = await player();
    const a = await report(id, 'toxicity', { isToxic: true, severity: 'low', matchId: 'x1' }); // 2
    const b = await report(id, 'toxicity', { isToxic: true, severity: 'critical', matchId: 'x2' }); // 10
    const caseId = await caseOf(a._id);
    expect(await caseOf(b._id)).to.equal(caseId);
    await grant((await appeal(id, b._id)).body.id);
    const dismissed = await dismiss(caseId);
    expect(dismissed.body.resolution.pointsRestored).to.equal(2);
    expect(await trustScore(api.pool, id)).to.equal(100);
    const history = async (headers: Record<string, string>) =>
      (
        await call<{ items: { reason: string; visibility: string }[] }>(
          api.url,
          'GET',
          `/v1/player/${id}/trust-history`,
          { spec: '/v1/player/{serviceId}/trust-history', headers },
        )
      ).body.items.map((h) => `${h.reason}:${h.visibility}`);
    expect(await history(studio.headers)).to.deep.equal([
      'dismissal:full',
      'appeal:full',
      'offense:full',
      'offense:full',
    ]);
    expect(await history(other.headers)).to.deep.equal([
      'dismissal:summary',
      'appeal:summary',
      'offense:summary',
      'offense:summary',
    ]);
  });

  it('one set of sanction limits, however the timing is given; no start in the past', async () => {
    const id = await player();
    const at = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const place = (json: object) =>
      call<{ code: string; errors?: { field: string }[] }>(api.url, 'POST', `/v1/player/${id}/sanctions`, {
        spec: '/v1/player/{serviceId}/sanctions',
        headers: studio.headers,
        json: { type: 'chat_restriction', reason: 'spam', ...json },
      });
    const refused = [
      { expiresAt: at(20 * 365 * 86_400) }, // past the 10-year cap that durationSeconds has
      { expiresAt: at(5) }, // under the 60 s minimum
      { startsAt: at(-86_400), durationSeconds: 3600 }, // backdated a day
      { startsAt: at(400 * 86_400), durationSeconds: 3600 }, // more than a year ahead
      { durationSeconds: 11 * 365 * 86_400 },
    ];
    for (const json of refused) {
      const res = await place(json);
      expect(res.status, JSON.stringify(json)).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
    }
    expect((await place({ expiresAt: at(120) })).status).to.equal(201);
    expect((await place({ startsAt: at(3600), expiresAt: at(7200) })).status).to.equal(201);
    const { rows } = await api.pool.query(
      'SELECT count(*)::int AS n FROM sanctions s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1',
      [id],
    );
    expect(rows[0].n).to.equal(2);
  });

  it('the lobby check answers what it can: malformed ids listed as invalid, repeats once, sanctions with id and scope', async () => {
    const id = await player();
    const placed = await call<{ id: string }>(api.url, 'POST', `/v1/player/${id}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: studio.headers,
      json: { type: 'matchmaking_restriction', reason: 'leaver', durationSeconds: 3600 },
    });
    const long = 'x'.repeat(65);
    const res = await call<{
      players: {
        serviceId: string;
        activeSanctions: { id: string; scope: string; type: string; expiresAt: string | null }[];
      }[];
      notFound: string[];
      invalid: string[];
    }>(api.url, 'POST', '/v1/players/lookup', {
      spec: '/v1/players/lookup',
      headers: studio.headers,
      json: { serviceIds: [long, id, '', 'ghost-1', id, 'bad id!'] },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.players.map((p) => p.serviceId)).to.deep.equal([id]);
    expect(res.body.players[0]!.activeSanctions).to.deep.equal([
      {
        id: placed.body.id,
        type: 'matchmaking_restriction',
        scope: studio.studioId,
        expiresAt: res.body.players[0]!.activeSanctions[0]!.expiresAt,
        matchesLeft: null,
      },
    ]);
    expect(res.body.notFound).to.deep.equal(['ghost-1']);
    expect(res.body.invalid).to.deep.equal([long, '', 'bad id!']);
    const onlyBad = await call(api.url, 'POST', '/v1/players/lookup', {
      spec: '/v1/players/lookup',
      headers: studio.headers,
      json: { serviceIds: [''] },
    });
    expect(onlyBad.body).to.deep.equal({ players: [], notFound: [], invalid: [''] });
    const notString = await call(api.url, 'POST', '/v1/players/lookup', {
      spec: '/v1/players/lookup',
      headers: studio.headers,
      json: { serviceIds: [id, 7] },
    });
    expect(notString.status).to.equal(400);
  });

  it('a JSON body nested 10,000 deep is a 400 json_too_deep on every JSON route, and stores nothing', async () => {
    const id = await player();
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const routes: [string, Record<string, string>][] = [
      [`/v1/toxicity/submitReport/${id}`, studio.headers],
      ['/v1/players/lookup', studio.headers],
      ['/v1/admin/session', {}],
      [`/v1/player/${id}/appeals`, studio.headers],
    ];
    for (const [path, headers] of routes) {
      const res = await call<{ code: string; detail: string }>(api.url, 'POST', path, {
        spec: false,
        headers: { ...headers, 'content-type': 'application/json' },
        body: `{"report":${deep}}`,
      });
      expect(res.status, `${path}: ${res.text}`).to.equal(400);
      expect(res.body.code).to.equal('json_too_deep');
      expect(res.body.detail).to.include('32');
    }
    expect(await offenseCount(api.pool, id)).to.equal(0);
    // 32 levels are within the limit (a string holding brackets does not count).
    const ok = '{"a":'.repeat(30) + '"[[[[{{{{"' + '}'.repeat(30);
    const res = await call(api.url, 'POST', `/v1/toxicity/submitReport/${id}`, {
      spec: false,
      headers: { ...studio.headers, 'content-type': 'application/json' },
      body: `{"report":{"isToxic":true,"deep":${ok}}}`,
    });
    expect(res.status).to.not.equal(500);
    expect((res.body as { code?: string }).code).to.not.equal('json_too_deep');
  });
});
