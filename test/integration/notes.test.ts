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

interface Note {
  id: string;
  caseId: string | null;
  author: { username: string };
  body: string;
}

/** Issue 25: internal notes on cases and players, for moderators only, audited. */
describe('internal notes on cases and players', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let game: Tenant;
  let modA: TestModerator;
  let modB: TestModerator;

  before(async () => {
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    game = await createTenant(api.pool, 'Notes');
    modA = await createTestModerator(api);
    modB = await createTestModerator(api);
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  const add = (by: TestModerator, path: string, spec: string, body: unknown) =>
    call<Note & { code?: string }>(api.url, 'POST', path, {
      spec: spec as never,
      headers: by.headers,
      json: body,
    });
  const list = async (by: TestModerator, path: string, spec: string) => {
    const res = await call<{ items: Note[] }>(api.url, 'GET', path, {
      spec: spec as never,
      headers: by.headers,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.items;
  };

  it("one moderator's notes on a case and on the player reach the others, oldest first; audited; never in a studio's answers", async () => {
    const player = await createTestPlayer(api.pool);
    const offenseId = await fileReport(api.url, game, player.serviceId, 'toxicity', {
      isToxic: true,
      severity: 'low',
    });
    const caseId = await caseOfOffense(api.pool, offenseId);
    const casePath = `/v1/admin/cases/${caseId}/notes`;
    const playerPath = `/v1/admin/players/${player.serviceId}/notes`;
    const onCase = await add(modA, casePath, '/v1/admin/cases/{caseId}/notes', {
      body: 'Same pattern as last week; check the voice logs.',
    });
    expect(onCase.status, onCase.text).to.equal(201);
    const onPlayer = await add(modB, playerPath, '/v1/admin/players/{serviceId}/notes', {
      body: 'Known to report others in revenge.',
    });
    expect(onPlayer.status, onPlayer.text).to.equal(201);

    expect(
      (await list(modB, casePath, '/v1/admin/cases/{caseId}/notes')).map((n) => [n.author.username, n.body]),
    ).to.deep.equal([[modA.username, 'Same pattern as last week; check the voice logs.']]);
    const all = await list(modA, playerPath, '/v1/admin/players/{serviceId}/notes');
    expect(all.map((n) => [n.caseId, n.body])).to.deep.equal([
      [caseId, 'Same pattern as last week; check the voice logs.'],
      [null, 'Known to report others in revenge.'],
    ]);
    const audit = await call<{ items: { action: string; note: string }[] }>(
      api.url,
      'GET',
      `/v1/admin/audit?player=${player.serviceId}`,
      { spec: '/v1/admin/audit', headers: (await createTestModerator(api, 'admin')).headers },
    );
    expect(audit.body.items.filter((e) => e.action === 'add_note').map((e) => e.note)).to.deep.equal([
      'Known to report others in revenge.',
      'Same pattern as last week; check the voice logs.',
    ]);
    // The player's timeline: the report (by the studio), the score change, both notes (by whom, the
    // text as why), newest first.
    const timeline = await call<{
      items: { kind: string; who: { kind: string; name: string | null }; what: string; why: string | null }[];
    }>(api.url, 'GET', `/v1/admin/players/${player.serviceId}/timeline`, {
      spec: '/v1/admin/players/{serviceId}/timeline',
      headers: modA.headers,
    });
    expect(timeline.status, timeline.text).to.equal(200);
    const studioName = (
      await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [game.studioId])
    ).rows[0]!.name;
    expect(timeline.body.items.map((e) => [e.kind, e.who.kind, e.who.name, e.why])).to.deep.equal([
      ['note', 'moderator', modB.username, 'Known to report others in revenge.'],
      ['note', 'moderator', modA.username, 'Same pattern as last week; check the voice logs.'],
      ['score', 'service', null, 'offense'],
      ['report', 'studio', studioName, null],
    ]);
    expect(timeline.body.items[3]!.what).to.match(
      /^toxicity report, low: \d+ points taken, 0 held \(applied\)$/,
    );
    // A studio reads the player: nothing of the notes.
    const profile = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
      spec: '/v1/player/{serviceId}',
      headers: game.headers,
    });
    expect(profile.text).not.to.include('voice logs');
    expect(profile.text).not.to.include('revenge');
  });

  it('a blank note is a 400 and stores nothing; an unknown case or player is a 404', async () => {
    const player = await createTestPlayer(api.pool);
    const path = `/v1/admin/players/${player.serviceId}/notes`;
    const blank = await add(modA, path, '/v1/admin/players/{serviceId}/notes', { body: '   ' });
    expect(blank.status).to.equal(400);
    expect(await list(modA, path, '/v1/admin/players/{serviceId}/notes')).to.deep.equal([]);
    expect(
      (await add(modA, '/v1/admin/cases/not-a-case/notes', '/v1/admin/cases/{caseId}/notes', { body: 'x' }))
        .status,
    ).to.equal(404);
    expect(
      (
        await add(modA, '/v1/admin/players/nobody-here/notes', '/v1/admin/players/{serviceId}/notes', {
          body: 'x',
        })
      ).status,
    ).to.equal(404);
  });
});
