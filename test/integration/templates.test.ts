import { expect } from 'chai';
import { createTestModerator, startTestApi, type TestApi, type TestModerator } from '../helpers/app.js';
import { call } from '../helpers/http.js';

interface Template {
  id: string;
  title: string;
  outcome: string;
  sanctionType: string | null;
  durationSeconds: number | null;
  playerReason: string;
}

/** Issue 25, canned reasons: decision templates admins keep and every moderator uses. */
describe('decision templates (canned reasons)', function () {
  this.timeout(30_000);
  let api: TestApi;
  let admin: TestModerator;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi();
    admin = await createTestModerator(api, 'admin');
    mod = await createTestModerator(api);
  });
  after(() => api.close());

  const create = (by: TestModerator, json: object) =>
    call<Template & { code?: string; errors?: { field: string }[] }>(api.url, 'POST', '/v1/admin/templates', {
      spec: '/v1/admin/templates',
      headers: by.headers,
      json,
    });
  const list = async () =>
    (
      await call<{ items: Template[] }>(api.url, 'GET', '/v1/admin/templates', {
        spec: '/v1/admin/templates',
        headers: mod.headers,
      })
    ).body.items;
  const archive = (id: string, by = admin) =>
    call(api.url, 'DELETE', `/v1/admin/templates/${id}`, {
      spec: '/v1/admin/templates/{templateId}',
      headers: by.headers,
    });

  it('admins add and archive templates; every moderator lists them in the order they were added', async () => {
    const ban = await create(admin, {
      title: 'Aimbot: 7-day ban',
      outcome: 'upheld',
      sanctionType: 'temporary_ban',
      durationSeconds: 7 * 86_400,
      playerReason: 'Our anti-cheat and a moderator found aim assistance software in your matches.',
    });
    expect(ban.status, ban.text).to.equal(201);
    const noFinding = await create(admin, {
      title: 'No evidence',
      outcome: 'dismissed',
      playerReason: 'The reports against you were not supported by evidence.',
    });
    expect(noFinding.status, noFinding.text).to.equal(201);
    const mine = (await list()).filter((t) => [ban.body.id, noFinding.body.id].includes(t.id));
    expect(mine.map((t) => t.title)).to.deep.equal(['Aimbot: 7-day ban', 'No evidence']);
    expect(mine[0]).to.include({ sanctionType: 'temporary_ban', durationSeconds: 604_800 });
    expect(mine[1]).to.include({ sanctionType: null, durationSeconds: null });

    expect((await archive(noFinding.body.id)).status).to.equal(204);
    expect((await list()).map((t) => t.id)).not.to.include(noFinding.body.id);
    expect((await archive(noFinding.body.id)).status).to.equal(404);
    expect((await archive('not-a-template')).status).to.equal(404);
  });

  it('a moderator may not write them; a sanction the outcome or its type does not allow is a 400 naming the field', async () => {
    const refused = await create(mod, { title: 't', outcome: 'dismissed', playerReason: 'r' });
    expect(refused.status).to.equal(403);
    for (const [json, field] of [
      [{ outcome: 'dismissed', sanctionType: 'warning' }, 'sanctionType'],
      [{ outcome: 'upheld', sanctionType: 'temporary_ban' }, 'durationSeconds'],
      [{ outcome: 'upheld', sanctionType: 'permanent_ban', durationSeconds: 3600 }, 'durationSeconds'],
      [{ outcome: 'upheld', durationSeconds: 3600 }, 'durationSeconds'],
      [{ outcome: 'upheld', playerReason: '   ' }, 'playerReason'],
    ] as const) {
      const res = await create(admin, { title: 'Bad', playerReason: 'Because.', ...json });
      expect(res.status, JSON.stringify(json)).to.equal(400);
      expect(res.body.errors!.map((e) => e.field)).to.include(field);
    }
    const before = (await list()).length;
    expect(
      (await archive((await list())[0]?.id ?? '00000000-0000-4000-8000-000000000000', mod)).status,
    ).to.equal(403);
    expect((await list()).length).to.equal(before);
  });
});
