import { expect } from 'chai';
import { utcWords } from '../../common/domain/statement-of-reasons.js';
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
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import { playerBearer } from '../helpers/oauth.js';

interface Statement {
  id: string;
  kind: 'offense' | 'sanction';
  decidedAt: string;
  decision: string;
  scope: { kind: string; name?: string };
  period: { startsAt: string; endsAt: string | null } | null;
  facts: string;
  ground: string;
  automated: boolean;
  automatedMeans: string | null;
  state: string;
  appeal: {
    possible: boolean;
    deadline: string | null;
    how: string;
    filed: { id: string; status: string } | null;
  };
}

/**
 * Issue 25: a statement of reasons for every decision that affects a player (what, where, how long,
 * the facts and the rule, whether automated, how to appeal by when), read by a game for its player
 * through GET /v1/player/me/decisions; never who reported, never what a studio wrote.
 */
describe('statements of reasons: the decisions about a player, as the player reads them', function () {
  this.timeout(60_000);
  let api: TestApi;
  let game: Tenant;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi();
    game = await createTenant(api.pool, 'Statements');
    mod = await createTestModerator(api);
  });
  after(() => api.close());

  const decisions = (headers: Record<string, string>, query = '') =>
    call<{ items: Statement[]; nextCursor: string | null }>(
      api.url,
      'GET',
      `/v1/player/me/decisions${query}`,
      {
        spec: '/v1/player/me/decisions',
        headers,
      },
    );

  it('an automatic penalty, a moderator sanction and an appeal, each with what, why, by what means and how to appeal', async () => {
    const player = await createTestPlayer(api.pool);
    const headers = await playerBearer(api.url, game.game, player);
    const secret = 'studio-private: replay 4471, reported by xX_sniper_Xx';
    const filed = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/anticheat/submitReport/${player.serviceId}`,
      {
        spec: '/v1/anticheat/submitReport/{serviceId}',
        headers: game.headers,
        json: {
          report: {
            isCheatDetected: true,
            severity: 'high',
            source: 'anticheat_system',
            description: secret,
            matchId: 'match-4471',
            reporterId: 'xX_sniper_Xx',
          },
        },
      },
    );
    expect(filed.status, filed.text).to.equal(201);
    const offenseId = filed.body.report._id;
    const placed = await call<{ id: string }>(
      api.url,
      'POST',
      `/v1/admin/players/${player.serviceId}/sanctions`,
      {
        spec: '/v1/admin/players/{serviceId}/sanctions',
        headers: mod.headers,
        json: {
          type: 'temporary_ban',
          reason: 'Cheating confirmed on the replay.',
          durationSeconds: 3 * 86_400,
        },
      },
    );
    expect(placed.status, placed.text).to.equal(201);

    const first = await decisions(headers);
    expect(first.status, first.text).to.equal(200);
    expect(first.body.items.map((s) => [s.kind, s.id])).to.deep.equal([
      ['sanction', placed.body.id],
      ['offense', offenseId],
    ]);
    const [ban, offense] = first.body.items;
    expect(offense).to.deep.include({
      decision: 'Your trust score was lowered by 15 points.',
      scope: { kind: 'global' },
      period: null,
      automated: true,
      state: 'In effect.',
    });
    expect(offense!.facts).to.match(
      /^A report of cheating \(high severity\) from the game's anti-cheat system on /,
    );
    expect(offense!.ground).to.match(/^The penalty rule for reports of cheating: .* at most 20/);
    expect(offense!.automatedMeans).to.match(/automatically .* by the penalty rule/);
    expect(offense!.appeal.possible).to.equal(true);
    expect(Date.parse(offense!.appeal.deadline!) - Date.parse(offense!.decidedAt)).to.equal(30 * 86_400_000);
    expect(ban).to.deep.include({
      ground: 'Cheating confirmed on the replay.',
      scope: { kind: 'global' },
      automated: false,
      automatedMeans: null,
      state: 'In force.',
    });
    expect(ban!.decision).to.match(/^A temporary ban: you cannot play, in every game, until /);
    expect(Date.parse(ban!.period!.endsAt!) - Date.parse(ban!.period!.startsAt)).to.equal(3 * 86_400_000);
    // Nothing of what the studio wrote, nor who reported, in any statement.
    const text = JSON.stringify(first.body);
    for (const hidden of [secret, 'match-4471', 'xX_sniper_Xx', game.studioId, 'Statements'])
      expect(text).not.to.include(hidden);

    // The player appeals the ban: the statement says so, and no second appeal is offered.
    const appealed = await call<{ id: string }>(api.url, 'POST', '/v1/player/me/appeals', {
      spec: '/v1/player/me/appeals',
      headers,
      json: { sanctionId: placed.body.id, reason: 'incorrect', statement: 'I was not playing that day.' },
    });
    expect(appealed.status, appealed.text).to.equal(201);
    const after = (await decisions(headers)).body.items.find((s) => s.id === placed.body.id)!;
    expect(after.appeal).to.deep.include({ possible: false, how: 'Your appeal is being reviewed.' });
    expect(after.appeal.filed).to.deep.include({ id: appealed.body.id, status: 'open' });

    // Pages of one give the same sequence.
    const one = await decisions(headers, '?limit=1');
    expect(one.body.items.map((s) => s.id)).to.deep.equal([placed.body.id]);
    const two = await decisions(headers, `?limit=1&cursor=${one.body.nextCursor}`);
    expect(two.body.items.map((s) => s.id)).to.deep.equal([offenseId]);
    expect(two.body.nextCursor).to.equal(null);
  });

  it("a report that took no points is no decision about the player; a studio's sanction names where it applies", async () => {
    const player = await createTestPlayer(api.pool);
    const headers = await playerBearer(api.url, game.game, player);
    await call(api.url, 'POST', `/v1/anticheat/submitReport/${player.serviceId}`, {
      spec: '/v1/anticheat/submitReport/{serviceId}',
      headers: game.headers,
      json: { report: { isCheatDetected: false } },
    });
    expect((await decisions(headers)).body.items).to.deep.equal([]);
    const hook = await insertWebhook(api.pool, {
      studioId: game.studioId,
      url: 'https://hooks.example/sanctions',
      events: ['sanction.applied'],
      sealedSecret: Buffer.from('sealed'),
    });
    const placed = await call<{ id: string }>(api.url, 'POST', `/v1/player/${player.serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: game.headers,
      json: { type: 'chat_restriction', reason: 'Spam in the lobby chat.', durationSeconds: 86_400 },
    });
    expect(placed.status, placed.text).to.equal(201);
    const studioName = (
      await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [game.studioId])
    ).rows[0]!.name;
    const [chat] = (await decisions(headers)).body.items;
    expect(chat).to.deep.include({ kind: 'sanction', scope: { kind: 'studio', name: studioName } });
    expect(chat!.decision).to.equal(
      `A chat restriction: you cannot send chat messages, in the games of ${studioName}, until ${utcWords(chat!.period!.endsAt!)}.`,
    );
    expect(chat!.facts).to.equal("The game's studio decided it for its games.");
    // The game hears the same statement in the sanction.applied event, to show it in its own UI.
    const { rows } = await api.pool.query<{ statement: Statement }>(
      `SELECT payload->'data'->'statementOfReasons' AS statement FROM webhook_deliveries
        WHERE webhook_id = $1 AND event_type = 'sanction.applied'`,
      [hook.id],
    );
    expect(rows.map((r) => r.statement)).to.deep.equal([chat]);
  });

  it('401 without a player token', async () => {
    const res = await decisions({ client_secret: game.game.clientSecret });
    expect(res.status).to.equal(401);
  });
});
