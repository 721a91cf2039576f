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
import { startTestWorker } from '../helpers/workers.js';
import type { RunningWorker } from '../../worker/run.js';

/** Issue 25: tags on cases and players, for moderators, and the queue filtered by a case tag. */
describe('tags on cases and players', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let game: Tenant;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    game = await createTenant(api.pool, 'Tags');
    mod = await createTestModerator(api);
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  async function openCase() {
    const player = await createTestPlayer(api.pool);
    const offenseId = await fileReport(api.url, game, player.serviceId, 'afk', {
      isAfk: true,
      severity: 'low',
    });
    const caseId = await caseOfOffense(api.pool, offenseId);
    return { player, caseId };
  }
  const tag = (path: string, spec: string, json: object) =>
    call<{ tags: string[] }>(api.url, 'POST', path, { spec: spec as never, headers: mod.headers, json });
  const untag = (path: string, spec: string) =>
    call<{ tags: string[] }>(api.url, 'DELETE', path, { spec: spec as never, headers: mod.headers });

  it('tags a case (any case in, lower case kept; twice changes nothing) and filters the queue by it; untags it', async () => {
    const { caseId } = await openCase();
    const other = await openCase();
    const stamp = `raid-${Date.now().toString(36)}`;
    const path = `/v1/admin/cases/${caseId}/tags`;
    expect(
      (await tag(path, '/v1/admin/cases/{caseId}/tags', { tag: stamp.toUpperCase() })).body.tags,
    ).to.deep.equal([stamp]);
    expect((await tag(path, '/v1/admin/cases/{caseId}/tags', { tag: stamp })).body.tags).to.deep.equal([
      stamp,
    ]);
    expect((await tag(path, '/v1/admin/cases/{caseId}/tags', { tag: 'vip' })).body.tags).to.deep.equal(
      [stamp, 'vip'].sort(),
    );
    const queue = await call<{ items: { id: string; tags: string[] }[] }>(
      api.url,
      'GET',
      `/v1/admin/cases?tag=${stamp}&limit=100`,
      { spec: '/v1/admin/cases', headers: mod.headers },
    );
    expect(queue.body.items.map((c) => c.id)).to.deep.equal([caseId]);
    expect(queue.body.items[0]!.tags).to.include(stamp);
    expect(queue.body.items.map((c) => c.id)).not.to.include(other.caseId);
    expect((await untag(`${path}/${stamp}`, '/v1/admin/cases/{caseId}/tags/{tag}')).body.tags).to.deep.equal([
      'vip',
    ]);
    expect((await untag(`${path}/${stamp}`, '/v1/admin/cases/{caseId}/tags/{tag}')).status).to.equal(404);
  });

  it("tags a player; a bad tag is a 400 and changes nothing; the player's view lists the tags", async () => {
    const { player } = await openCase();
    const path = `/v1/admin/players/${player.serviceId}/tags`;
    for (const bad of ['', 'has space', '-leading', 'x'.repeat(33), '<b>'])
      expect((await tag(path, '/v1/admin/players/{serviceId}/tags', { tag: bad })).status, bad).to.equal(400);
    expect(
      (await tag(path, '/v1/admin/players/{serviceId}/tags', { tag: 'watch-list' })).body.tags,
    ).to.deep.equal(['watch-list']);
    const view = await call<{ tags: string[] }>(api.url, 'GET', `/v1/admin/players/${player.serviceId}`, {
      spec: '/v1/admin/players/{serviceId}',
      headers: mod.headers,
    });
    expect(view.body.tags).to.deep.equal(['watch-list']);
    expect(
      (await tag('/v1/admin/players/nobody-here/tags', '/v1/admin/players/{serviceId}/tags', { tag: 'a' }))
        .status,
    ).to.equal(404);
  });

  it('a protected tag (PROTECTED_TAGS) is set and removed by admins only; a moderator gets 403 and nothing changes', async () => {
    const admin = await createTestModerator(api, 'admin');
    const { player } = await openCase();
    const path = `/v1/admin/players/${player.serviceId}/tags`;
    const spec = '/v1/admin/players/{serviceId}/tags';
    const denied = await tag(path, spec, { tag: 'protected' });
    expect(denied.status).to.equal(403);
    expect(denied.body).to.include({ code: 'protected_tag' });
    const set = await call<{ tags: string[] }>(api.url, 'POST', path, {
      spec,
      headers: admin.headers,
      json: { tag: 'PROTECTED' },
    });
    expect(set.status, set.text).to.equal(200);
    expect(set.body.tags).to.deep.equal(['protected']);
    const removed = await untag(`${path}/protected`, '/v1/admin/players/{serviceId}/tags/{tag}');
    expect(removed.status).to.equal(403);
    const still = await call<{ tags: string[] }>(api.url, 'GET', path, { spec, headers: mod.headers });
    expect(still.body.tags).to.deep.equal(['protected']);
    const gone = await call<{ tags: string[] }>(api.url, 'DELETE', `${path}/Protected`, {
      spec: '/v1/admin/players/{serviceId}/tags/{tag}',
      headers: admin.headers,
    });
    expect(gone.status, gone.text).to.equal(200);
    expect(gone.body.tags).to.deep.equal([]);
  });
});
