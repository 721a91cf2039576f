import { expect } from 'chai';
import { createTestModerator, startTestApi, type TestApi, type TestModerator } from '../helpers/app.js';
import { call } from '../helpers/http.js';

/** Issue 25: each moderator's saved queue filters, their own only. */
describe('saved filters', function () {
  this.timeout(30_000);
  let api: TestApi;
  let a: TestModerator;
  let b: TestModerator;
  before(async () => {
    api = await startTestApi();
    a = await createTestModerator(api);
    b = await createTestModerator(api);
  });
  after(() => api.close());

  const save = (by: TestModerator, json: object) =>
    call<{ id: string; filters: Record<string, string>; code?: string }>(
      api.url,
      'POST',
      '/v1/admin/saved-filters',
      {
        spec: '/v1/admin/saved-filters',
        headers: by.headers,
        json,
      },
    );
  const list = async (by: TestModerator) =>
    (
      await call<{ items: { id: string; name: string; filters: Record<string, string> }[] }>(
        api.url,
        'GET',
        '/v1/admin/saved-filters',
        { spec: '/v1/admin/saved-filters', headers: by.headers },
      )
    ).body.items;

  it("saves a moderator's filters by name, lists only theirs, refuses a name in use, and deletes only theirs", async () => {
    const saved = await save(a, {
      name: 'Overdue toxicity',
      filters: { tab: 'overdue', type: 'toxicity', player: '' },
    });
    expect(saved.status, saved.text).to.equal(201);
    expect(saved.body.filters).to.deep.equal({ tab: 'overdue', type: 'toxicity' });
    expect((await list(a)).map((f) => [f.name, f.filters])).to.deep.equal([
      ['Overdue toxicity', { tab: 'overdue', type: 'toxicity' }],
    ]);
    expect(await list(b)).to.deep.equal([]);
    expect((await save(a, { name: 'Overdue toxicity', filters: {} })).body.code).to.equal('filter_exists');
    expect((await save(b, { name: 'Overdue toxicity', filters: {} })).status).to.equal(201);
    expect((await save(a, { name: 'Bad', filters: { evil: 'x' } })).status).to.equal(400);
    const del = (by: TestModerator, id: string) =>
      call(api.url, 'DELETE', `/v1/admin/saved-filters/${id}`, {
        spec: '/v1/admin/saved-filters/{filterId}',
        headers: by.headers,
      });
    expect((await del(b, saved.body.id)).status).to.equal(404);
    expect((await del(a, saved.body.id)).status).to.equal(204);
    expect(await list(a)).to.deep.equal([]);
  });
});
