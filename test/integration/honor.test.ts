import crypto from 'node:crypto';
import { expect } from 'chai';
import { withTransaction } from '../../common/data/db.js';
import { rosterDigest } from '../../common/domain/matches.js';
import { applyErasure } from '../../common/lifecycles/erasure.js';
import { recoverBatch } from '../../common/data/repos/trust.js';
import { writeMatches, type MatchJobData } from '../../common/usecases/matches.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import type { RunningWorker } from '../../worker/run.js';
import { createTenant, createTestPlayer, startTestApi, type Tenant, type TestApi } from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';
import { startTestWorker } from '../helpers/workers.js';
import { testMatch, type TestMatchPlayer } from '../helpers/matches.js';

interface ItemAnswer {
  index: number;
  status: 'accepted' | 'duplicate' | 'rejected';
  code?: string;
  message?: string;
  fields?: { field: string }[];
}

/**
 * Issue 54, part 4: commendations (weighed: a whole one from outside the party, a quarter from within
 * it, nothing for a repeat, a return or an alt), honor (raised by finished matches and commendations,
 * lowered by matches left early, 2 levels taken by a sanction and given back by its revoke) and the
 * trust recovery credit of clean matches, capped at half a period; all counted once and erased with
 * the player.
 */
describe('commendations, honor and the recovery credit of matches (issue 54)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let worker: RunningWorker;
  let a: Tenant;
  const PERIOD_S = 7 * 86_400;

  before(async () => {
    api = await startTestApi();
    worker = await startTestWorker(api.config, 'matches');
    a = await createTenant(api.pool, 'A');
  });
  after(async () => {
    await worker.stop();
    await api.close();
  });

  async function playerOf(t = a) {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: t.game.clientId });
    return p.serviceId;
  }
  const match = (players: TestMatchPlayer[], endedMinutesAgo = 0) => testMatch('h', players, endedMinutesAgo);
  const send = (matches: unknown[], t = a) =>
    call<{ results: ItemAnswer[]; accepted: number }>(api.url, 'POST', '/v1/matches', {
      spec: '/v1/matches',
      headers: t.headers,
      json: { matches },
    });
  const untilRecorded = (matchIds: string[], t = a) =>
    eventually(`matches recorded`, async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM matches WHERE studio_id = $1 AND match_id = ANY($2::text[])',
        [t.studioId, matchIds],
      );
      return rows[0]!.n === matchIds.length;
    });
  /** Sends matches and waits for the worker to record them all. */
  async function play(...matches: ReturnType<typeof match>[]) {
    const res = await send(matches);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body.results.map((r) => r.status)).to.deep.equal(matches.map(() => 'accepted'));
    await untilRecorded(matches.map((m) => m.matchId));
  }
  const rowId = async (serviceId: string) =>
    (await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [serviceId]))
      .rows[0]!.id;
  /** The commendations a match wrote, as [commender, recipient, weight, why], in a stable order. */
  async function commendationsOf(matchId: string, names: Record<string, string>) {
    const byRow = new Map<string, string>();
    for (const [name, serviceId] of Object.entries(names)) byRow.set(await rowId(serviceId), name);
    const { rows } = await api.pool.query<{ c: string; r: string; weight: number; why: string }>(
      'SELECT commender_id AS c, recipient_id AS r, weight, why FROM commendations WHERE studio_id = $1 AND match_id = $2',
      [a.studioId, matchId],
    );
    return rows
      .map((x) => [byRow.get(x.c), byRow.get(x.r), x.weight, x.why])
      .sort((p, q) => String(p).localeCompare(String(q)));
  }
  const honor = async (serviceId: string) =>
    (
      await api.pool.query<{
        level: number;
        progress: number;
        matches_finished: number;
        matches_left_early: number;
        commendations: number;
      }>(
        'SELECT level, progress, matches_finished, matches_left_early, commendations FROM player_honor WHERE player_id = $1',
        [await rowId(serviceId)],
      )
    ).rows[0];
  const lookupHonor = async (serviceId: string) =>
    (
      await call<{ players: { honorLevel: number }[] }>(api.url, 'POST', '/v1/players/lookup', {
        spec: '/v1/players/lookup',
        headers: a.headers,
        json: { serviceIds: [serviceId] },
      })
    ).body.players[0]!.honorLevel;
  const profileHonor = async (serviceId: string) =>
    (
      await call<{ honorLevel: number }>(api.url, 'GET', `/v1/player/${serviceId}`, {
        spec: '/v1/player/{serviceId}',
        headers: a.headers,
      })
    ).body.honorLevel;

  it('refuses a commendation of oneself, of someone not in the match, or of more than 5, and stores nothing of that match', async () => {
    const [p1, p2, p3] = [await playerOf(), await playerOf(), await playerOf()];
    const self = match([
      { serviceId: p1, team: 'blue', commended: [p1] },
      { serviceId: p2, team: 'red' },
    ]);
    const outsider = match([
      { serviceId: p1, team: 'blue', commended: [p3] },
      { serviceId: p2, team: 'red' },
    ]);
    const many = match([
      { serviceId: p1, team: 'blue', commended: ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'] },
      { serviceId: p2, team: 'red' },
    ]);
    const good = match([
      { serviceId: p1, team: 'blue', commended: [p2] },
      { serviceId: p2, team: 'red' },
    ]);
    const res = await send([self, outsider, many, good]);
    expect(res.status).to.equal(202);
    expect(res.body.results.map((r) => [r.status, r.code ?? null])).to.deep.equal([
      ['rejected', 'invalid_commendation'],
      ['rejected', 'invalid_commendation'],
      ['rejected', 'validation_failed'],
      ['accepted', null],
    ]);
    expect(res.body.results[1]!.message).to.contain(p3);
    expect(res.body.results[2]!.fields!.map((f) => f.field)).to.include('matches.2.players.0.commended');
    await untilRecorded([good.matchId]);
    const { rows } = await api.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM commendations WHERE studio_id = $1 AND match_id = ANY($2::text[])',
      [a.studioId, [self.matchId, outsider.matchId, many.matchId]],
    );
    expect(rows[0]!.n).to.equal(0);
    expect(await commendationsOf(good.matchId, { p1, p2 })).to.deep.equal([['p1', 'p2', 4, 'counted']]);
    // The same match again with other commendations is another roster: a conflict, nothing counted twice.
    const again = await send([
      { ...good, players: good.players.map((p) => ({ ...p, commended: undefined })) },
    ]);
    expect(again.body.results[0]!.code).to.equal('match_conflict');
  });

  it('weighs each commendation: a whole one from outside the party, a quarter from within, nothing for a repeat, a return or an alt', async () => {
    const [x, friend, rival, other, alt1, alt2] = await Promise.all(
      Array.from({ length: 6 }, () => playerOf()),
    );
    // Two accounts of one person: the same platform account signed in on both.
    const account = `steam:76561190${Date.now()}`;
    for (const p of [alt1, alt2]) {
      const res = await call(api.url, 'POST', `/v1/player/${p}/signals`, {
        spec: '/v1/player/{serviceId}/signals',
        headers: a.headers,
        json: { signals: [{ kind: 'platform_account', value: account }] },
      });
      expect(res.status, JSON.stringify(res.body)).to.be.below(300);
    }
    const names = { x, friend, rival, other, alt1, alt2 };
    // One request, two matches: the later one sees the earlier one's commendations.
    const first = match(
      [
        { serviceId: x, team: 'blue', party: 'duo', commended: [friend] },
        { serviceId: friend, team: 'blue', party: 'duo' },
        { serviceId: rival, team: 'red', commended: [x, other] },
        { serviceId: other, team: 'red', commended: [rival] },
        { serviceId: alt1, team: 'red', commended: [alt2] },
        { serviceId: alt2, team: 'blue' },
      ],
      120,
    );
    const second = match(
      [
        { serviceId: x, team: 'blue', commended: [rival] },
        { serviceId: rival, team: 'red', commended: [x] },
      ],
      60,
    );
    await play(first, second);
    expect(await commendationsOf(first.matchId, names)).to.deep.equal([
      ['alt1', 'alt2', 0, 'linked'],
      ['other', 'rival', 0, 'returned'],
      ['rival', 'other', 0, 'returned'],
      ['rival', 'x', 4, 'counted'],
      ['x', 'friend', 1, 'own_party'],
    ]);
    expect(await commendationsOf(second.matchId, names)).to.deep.equal([
      ['rival', 'x', 0, 'repeat'],
      ['x', 'rival', 0, 'returned'],
    ]);
    // A later request: the record says the same (a repeat and a return within 7 days).
    const third = match([
      { serviceId: x, team: 'blue', commended: [rival] },
      { serviceId: friend, team: 'blue', commended: [x] },
      { serviceId: rival, team: 'red', commended: [x] },
    ]);
    await play(third);
    // (x's own commendation of rival in the second match, though it counted nothing, makes this one a repeat.)
    // friend returns x's counted commendation of the first match: nothing.
    expect(await commendationsOf(third.matchId, names)).to.deep.equal([
      ['friend', 'x', 0, 'returned'],
      ['rival', 'x', 0, 'repeat'],
      ['x', 'rival', 0, 'repeat'],
    ]);
    // x finished three matches unreported (3 quarters) and got one whole commendation (4).
    expect(await honor(x)).to.deep.equal({
      level: 2,
      progress: 7,
      matches_finished: 3,
      matches_left_early: 0,
      commendations: 1,
    });
    // friend: two finished matches and a quarter from their own party.
    expect((await honor(friend))!.progress).to.equal(2 + 1);
    expect(await lookupHonor(x)).to.equal(2);

    // The job run again (a worker died after writing, or a second one took it) counts nothing twice.
    const ids = new Map<string, string>();
    for (const p of third.players) ids.set(p.serviceId, await rowId(p.serviceId));
    const job: MatchJobData = {
      studioId: a.studioId,
      matches: [
        {
          matchId: third.matchId,
          gameId: a.game.id,
          mode: third.mode,
          startedAt: third.startedAt,
          endedAt: third.endedAt,
          roster: rosterDigest({
            ...third,
            startedAt: new Date(third.startedAt),
            endedAt: new Date(third.endedAt),
            players: third.players.map((p) => ({ ...p, result: p.result as 'win' })),
          }).toString('base64'),
          players: third.players.map((p) => ({
            p: ids.get(p.serviceId)!,
            t: p.team,
            pa: null,
            r: p.result as 'win',
            l: false,
            c: (p.commended ?? []).map((c) => ids.get(c)!),
          })),
        },
      ],
    };
    const run = await writeMatches(api.pool, job, new Date(), 180, PERIOD_S);
    expect(run).to.include({ recorded: 0, repeats: 1, commendations: 0, credited: 0 });
    expect((await honor(x))!.progress).to.equal(7);
  });

  it('raises honor with commendations, lowers it for matches left early; a sanction takes 2 levels and its revoke gives them back', async () => {
    const x = await playerOf();
    const fans = await Promise.all(Array.from({ length: 25 }, () => playerOf()));
    expect(await lookupHonor(x)).to.equal(2);
    expect(await profileHonor(x)).to.equal(2);
    await play(
      match([
        { serviceId: x, team: 'blue' },
        ...fans.map((f) => ({ serviceId: f, team: 'red', commended: [x] })),
      ]),
    );
    // 25 whole commendations (100 quarters) and a finished match (1): a level up.
    expect(await honor(x)).to.include({ level: 3, progress: 1, commendations: 25 });
    expect(await lookupHonor(x)).to.equal(3);
    expect(await profileHonor(x)).to.equal(3);
    // A match left early takes 8 quarters: back below level 3.
    await play(
      match([
        { serviceId: x, team: 'blue', leftEarly: true },
        { serviceId: fans[0]!, team: 'red' },
      ]),
    );
    expect(await honor(x)).to.include({ level: 2, progress: 93, matches_left_early: 1 });

    const place = async (type: string) => {
      const res = await call<{ id: string }>(api.url, 'POST', `/v1/player/${x}/sanctions`, {
        spec: '/v1/player/{serviceId}/sanctions',
        headers: a.headers,
        json: { type, reason: 'Abandoned ranked matches.', durationSeconds: 3600 },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id;
    };
    const revoke = async (id: string) => {
      const res = await call(api.url, 'POST', `/v1/player/${x}/sanctions/${id}/revoke`, {
        spec: '/v1/player/{serviceId}/sanctions/{sanctionId}/revoke',
        headers: a.headers,
        json: { reason: 'Placed on the wrong player.' },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    };
    // A warning takes nothing.
    await place('warning');
    expect(await lookupHonor(x)).to.equal(2);
    const first = await place('chat_restriction');
    expect(await honor(x)).to.include({ level: 0, progress: 0 });
    // A second one finds nothing left to take, so its revoke gives nothing back ...
    const second = await place('matchmaking_restriction');
    await revoke(second);
    expect(await lookupHonor(x)).to.equal(0);
    // ... and the first one's gives back the 2 it took.
    await revoke(first);
    expect(await lookupHonor(x)).to.equal(2);
    expect(await profileHonor(x)).to.equal(2);
  });

  it('moves the trust recovery clock ahead for clean matches and commendations, at most half a period a point; a report in a match earns nothing', async () => {
    const x = await playerOf();
    const y = await playerOf();
    const report = (matchId?: string) =>
      call(api.url, 'POST', `/v1/anticheat/submitReport/${x}`, {
        spec: '/v1/anticheat/submitReport/{serviceId}',
        headers: a.headers,
        json: {
          report: {
            isCheatDetected: true,
            type: 'Aimbot',
            severity: 'low',
            description: 'snapped',
            source: 'anticheat_system',
            ...(matchId ? { matchId } : {}),
          },
        },
      });
    expect((await report()).status).to.equal(201);
    const clock = async () =>
      (
        await api.pool.query<{ recovery_from: Date; trust_score: number }>(
          'SELECT recovery_from, trust_score FROM players WHERE service_id = $1',
          [x],
        )
      ).rows[0]!;
    const start = await clock();
    expect(start.trust_score).to.be.below(100);

    // A match x was reported in earns nothing; two clean ones an hour each, a whole commendation 4 hours.
    const dirty = match(
      [
        { serviceId: x, team: 'blue' },
        { serviceId: y, team: 'red' },
      ],
      5,
    );
    const reported = await report(dirty.matchId);
    expect(reported.status).to.equal(201);
    const afterReport = await clock();
    await play(dirty);
    expect((await clock()).recovery_from.getTime()).to.equal(afterReport.recovery_from.getTime());
    await play(
      match(
        [
          { serviceId: x, team: 'blue' },
          { serviceId: y, team: 'red', commended: [x] },
        ],
        4,
      ),
      match(
        [
          { serviceId: x, team: 'blue' },
          { serviceId: y, team: 'red' },
        ],
        3,
      ),
    );
    const credited = await clock();
    expect(afterReport.recovery_from.getTime() - credited.recovery_from.getTime()).to.equal(6 * 3600_000);

    // Many clean matches: the credit stops at half a period (84 hours with 7 days a point).
    const many = Array.from({ length: 100 }, (_, i) =>
      match(
        [
          { serviceId: x, team: 'blue' },
          { serviceId: y, team: 'red' },
        ],
        2 + i / 100,
      ),
    );
    await play(...many);
    const capped = await clock();
    expect(afterReport.recovery_from.getTime() - capped.recovery_from.getTime()).to.equal(
      (PERIOD_S / 2) * 1000,
    );
    // The point comes half a period after the report instead of a whole one.
    const halfway = new Date(afterReport.recovery_from.getTime() + (PERIOD_S / 2) * 1000 + 60_000);
    for (;;) if ((await recoverBatch(api.pool, halfway, PERIOD_S, 1000)).players < 1000) break;
    const paid = await clock();
    expect(paid.trust_score).to.equal(afterReport.trust_score + 1);
    // A new period: its own credit (the clock started again).
    await play(
      match(
        [
          { serviceId: x, team: 'blue' },
          { serviceId: y, team: 'red' },
        ],
        1,
      ),
    );
    expect(paid.recovery_from.getTime() - (await clock()).recovery_from.getTime()).to.equal(3600_000);
    // y is at 100: nothing to recover, no credit.
    const { rows } = await api.pool.query<{ recovery_credit_s: number }>(
      'SELECT recovery_credit_s FROM player_honor WHERE player_id = $1',
      [await rowId(y)],
    );
    expect(rows[0]!.recovery_credit_s).to.equal(0);
  });

  it('erases the commendations a player gave and got, and their honor, with them', async () => {
    const [x, y] = [await playerOf(), await playerOf()];
    const m = match([
      { serviceId: x, team: 'blue', commended: [y] },
      { serviceId: y, team: 'red', commended: [x] },
    ]);
    await play(m);
    const id = await rowId(x);
    const done = await withTransaction(api.pool, (c) => applyErasure(c, crypto.randomUUID(), id, new Date()));
    expect(done!.erasure.receipt).to.include({ commendations: 2, honor: 1 });
    const { rows } = await api.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM commendations WHERE recipient_id = $1 OR commender_id = $1',
      [id],
    );
    expect(rows[0]!.n).to.equal(0);
    const { rows: kept } = await api.pool.query('SELECT 1 FROM player_honor WHERE player_id = $1', [id]);
    expect(kept).to.deep.equal([]);
    // The other player's honor is theirs: it stays.
    expect(await honor(y)).to.not.equal(undefined);
  });
});
