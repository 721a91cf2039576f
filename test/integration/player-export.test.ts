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
import { eventually } from '../helpers/http-server.js';
import { startTestWorker } from '../helpers/workers.js';

interface Export {
  manifest: { serviceId: string; parts: Record<string, string>; viewer: string; kind: string; title: string };
  player: { serviceId: string; fullName: string; gamerTag: string };
  games: { title: string }[];
  offenses: { _id: string; description?: string; visibility?: string }[];
  trustHistory: unknown[];
  sanctions: { id: string }[];
  strikes?: unknown[];
  appeals: { id: string; statement: string }[];
  statementsOfReasons?: unknown[];
  notes?: { body: string }[];
  tags?: string[];
  accusedWords?: { offenseId: string; words: string }[];
  reportsFiled: unknown[];
}

/**
 * Issue 36: a player's whole record as one JSON document: an admin's in full, a studio's for its own
 * players as it may see them; read page by page, so a history of 10,000 offenses comes whole.
 */
describe('player export (GDPR Art. 15, 20)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let a: Tenant;
  let b: Tenant;
  let outsider: Tenant;
  let mod: TestModerator;
  let admin: TestModerator;
  let serviceId: string;
  let appealId: string;
  const LONG = 10_000;

  before(async () => {
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    [a, b, outsider] = [
      await createTenant(api.pool, 'ExportA'),
      await createTenant(api.pool, 'ExportB'),
      await createTenant(api.pool, 'ExportC'),
    ];
    [mod, admin] = [await createTestModerator(api), await createTestModerator(api, 'admin')];
    const player = await createTestPlayer(api.pool);
    serviceId = player.serviceId;
    await linkPlayer(api.pool, { serviceId, clientId: a.game.clientId });
    await linkPlayer(api.pool, { serviceId, clientId: b.game.clientId });
    for (const [t, description] of [
      [a, 'A says: rude in chat'],
      [b, 'B says: griefed the base'],
    ] as const) {
      const res = await call(api.url, 'POST', `/v1/toxicity/submitReport/${serviceId}`, {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: t.headers,
        json: {
          report: {
            isToxic: true,
            severity: 'low',
            description,
            // The words the player is accused of writing, the reporter who says so, the match.
            messages: [`<b>you are trash</b> ${t === a ? 'from A' : 'from B'}`],
            reporterId: `other-player-${t === a ? 'a' : 'b'}`,
            matchId: `match-of-${t === a ? 'a' : 'b'}`,
            evidence: [{ type: 'text', content: `REPORTERWORDS ${t === a ? 'A' : 'B'}` }],
          },
        },
      });
      expect(res.status, res.text).to.equal(201);
    }
    const sanction = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: a.headers,
      json: { type: 'chat_restriction', reason: 'spam', durationSeconds: 3600 },
    });
    const filed = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: a.headers,
      json: { sanctionId: sanction.body.id, reason: 'unfair', statement: 'I only said hello.' },
    });
    expect(filed.status, filed.text).to.equal(201);
    appealId = filed.body.id;
    await call(api.url, 'POST', `/v1/admin/players/${serviceId}/notes`, {
      spec: '/v1/admin/players/{serviceId}/notes',
      headers: mod.headers,
      json: { body: 'Known to the team from the beta.' },
    });
    await call(api.url, 'POST', `/v1/admin/players/${serviceId}/tags`, {
      spec: '/v1/admin/players/{serviceId}/tags',
      headers: mod.headers,
      json: { tag: 'watch' },
    });
    await eventually('the cases filed', async () => {
      const { rows } = await api.pool.query(
        `SELECT 1 FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
           JOIN players p ON p.id = o.player_id WHERE p.service_id = $1`,
        [serviceId],
      );
      return rows.length === 2;
    });
    // A long history: 10,000 more of studio A's reports (recorded, no points).
    await api.pool.query(
      `INSERT INTO offenses (player_id, game_id, studio_id, type, severity, detected, penalty_points, description,
                             status, created_at)
       SELECT p.id, $2, $3, 'afk', 'low', false, 0, 'seeded ' || i, 'recorded', now() - make_interval(secs => i)
         FROM players p CROSS JOIN generate_series(1, $4) AS i WHERE p.service_id = $1`,
      [serviceId, a.game.id, a.studioId, LONG],
    );
  });
  after(async () => {
    await review?.stop();
    await api?.close();
  });

  const exportAs = (path: string, headers: Record<string, string>) =>
    call<Export & { code?: string }>(api.url, 'GET', path, {
      spec: path.startsWith('/v1/admin')
        ? '/v1/admin/players/{serviceId}/export'
        : '/v1/player/{serviceId}/export',
      headers,
    });

  it('an admin gets everything, each part named in the manifest, as a download, the long history whole', async () => {
    const res = await exportAs(`/v1/admin/players/${serviceId}/export`, admin.headers);
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(res.headers.get('content-disposition')).to.equal(
      `attachment; filename="player-${serviceId}-internal-export.json"`,
    );
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const e = res.body;
    // Named for what it is: internal, not the answer to the player's request.
    expect(e.manifest.kind).to.equal('internal');
    expect(e.manifest.title).to.match(
      /^Internal export .* not the answer to the player's data-access request/,
    );
    expect(Object.keys(e.manifest.parts)).to.deep.equal([
      'player',
      'games',
      'offenses',
      'trustHistory',
      'sanctions',
      'strikes',
      'appeals',
      'statementsOfReasons',
      'notes',
      'tags',
      'signals',
      'conductSummaries',
      'reportsFiled',
    ]);
    expect(Object.keys(e).filter((k) => k !== 'manifest')).to.deep.equal(Object.keys(e.manifest.parts));
    expect(e.player.serviceId).to.equal(serviceId);
    expect(e.games.map((g) => g.title)).to.have.length(2);
    expect(e.offenses).to.have.length(LONG + 2);
    expect(new Set(e.offenses.map((o) => o._id)).size, 'each once').to.equal(LONG + 2);
    expect(e.offenses.map((o) => o.description)).to.include.members([
      'A says: rude in chat',
      'B says: griefed the base',
    ]);
    expect(e.sanctions).to.have.length(1);
    expect(e.appeals.map((x) => [x.id, x.statement])).to.deep.equal([[appealId, 'I only said hello.']]);
    expect(e.trustHistory.length).to.be.at.least(2);
    expect(e.statementsOfReasons!.length).to.be.at.least(2);
    expect(e.notes!.map((n) => n.body)).to.deep.equal(['Known to the team from the beta.']);
    expect(e.tags).to.deep.equal(['watch']);
    expect(e.reportsFiled).to.deep.equal([]);
  });

  it('a studio gets its own player as it may see them: the other studio’s reports as a summary, no internal parts', async () => {
    const res = await exportAs(`/v1/player/${serviceId}/export`, a.headers);
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    const e = res.body;
    for (const part of ['strikes', 'statementsOfReasons', 'notes', 'tags']) {
      expect(e, part).to.not.have.property(part);
      expect(e.manifest.parts, part).to.not.have.property(part);
    }
    expect(e.offenses).to.have.length(LONG + 2);
    expect(JSON.stringify(e.offenses)).to.include('A says: rude in chat').and.not.include('griefed the base');
    expect(e.appeals.map((x) => x.id)).to.deep.equal([appealId]);
    // Studio B filed no appeal and placed no sanction: it sees neither.
    const ofB = await exportAs(`/v1/player/${serviceId}/export`, b.headers);
    expect(ofB.status).to.equal(200);
    expect(ofB.body.appeals).to.deep.equal([]);
  });

  it("an admin hands the player their copy: their data and the words they are reported to have written, nobody else's data", async () => {
    const res = await exportAs(`/v1/admin/players/${serviceId}/export?copy=player`, admin.headers);
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(res.headers.get('content-disposition')).to.equal(
      `attachment; filename="player-${serviceId}-player-copy.json"`,
    );
    const e = res.body;
    expect(e.manifest.kind).to.equal('player copy');
    expect(e.manifest.title).to.include('GDPR Art. 15');
    expect(e.manifest.parts).to.have.property('accusedWords');
    expect(e.accusedWords!.map((w) => w.words).sort()).to.deep.equal([
      '<b>you are trash</b> from A',
      '<b>you are trash</b> from B',
    ]);
    // Art. 15(4): the reporters, their words, the matches and the moderators' notes and tags are others'.
    const text = JSON.stringify(e);
    for (const other of [
      'other-player-a',
      'other-player-b',
      'match-of-a',
      'REPORTERWORDS',
      'A says: rude in chat',
      'Known to the team from the beta.',
    ])
      expect(text, other).to.not.include(other);
    expect(e).to.not.have.property('notes');
    expect(e).to.not.have.property('tags');
    expect(e.offenses).to.have.length(LONG + 2);
    expect(e.appeals.map((x) => x.statement)).to.deep.equal(['I only said hello.']);
    // The internal export is what holds them, and has no part of the copy's.
    const internal = await exportAs(`/v1/admin/players/${serviceId}/export`, admin.headers);
    expect(JSON.stringify(internal.body)).to.include('other-player-a');
    expect(internal.body).to.not.have.property('accusedWords');
    const bad = await exportAs(`/v1/admin/players/${serviceId}/export?copy=everyone`, admin.headers);
    expect([bad.status, bad.body.code]).to.deep.equal([400, 'validation_failed']);
  });

  it('404 for a player not of the studio’s games or unknown; admins only on the moderator side', async () => {
    expect((await exportAs(`/v1/player/${serviceId}/export`, outsider.headers)).status).to.equal(404);
    expect((await exportAs('/v1/player/nobody-at-all/export', a.headers)).status).to.equal(404);
    expect((await exportAs('/v1/admin/players/nobody-at-all/export', admin.headers)).status).to.equal(404);
    expect((await exportAs(`/v1/admin/players/${serviceId}/export`, mod.headers)).status).to.equal(403);
  });
});
