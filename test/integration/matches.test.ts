import crypto from 'node:crypto';
import { expect } from 'chai';
import { withTransaction } from '../../common/data/db.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import { applyErasure } from '../../common/lifecycles/erasure.js';
import {
  ensureMatchPartitions,
  maintainMatchPartitions,
  recordMatches,
} from '../../common/lifecycles/matches.js';
import { rosterDigest } from '../../common/domain/matches.js';
import { announceExpiry } from '../../common/usecases/sanctions.js';
import { writeMatches, type MatchJobData } from '../../common/usecases/matches.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { playerDecisions } from '../../common/usecases/decisions.js';
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
import { ownDatabase } from '../helpers/services.js';

interface ItemAnswer {
  index: number;
  matchId: string | null;
  status: 'accepted' | 'duplicate' | 'rejected';
  code?: string;
  message?: string;
  fields?: { field: string }[];
}
interface MatchesAnswer {
  accepted: number;
  duplicates: number;
  rejected: number;
  results: ItemAnswer[];
  code?: string;
}
interface SanctionView {
  id: string;
  active: boolean;
  expiresAt: string | null;
  matches: { total: number; left: number } | null;
  code?: string;
  errors?: { field: string; message: string }[];
}

/**
 * Issue 54, parts 1 and 2: matches sent in bulk (each answered on its own, recorded once by its id,
 * by the matches worker, in month partitions dropped whole after their retention, erased with a
 * player) and restrictions counted in matches (each finished match counts once, however often it is
 * sent and whoever retries the job; a match left early never counts; it ends at zero with its event).
 */
describe('matches and restrictions counted in matches (issue 54)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let worker: RunningWorker;
  let a: Tenant;
  let b: Tenant;
  let mod: TestModerator;
  let seq = 0;

  before(async () => {
    api = await startTestApi();
    worker = await startTestWorker(api.config, 'matches');
    [a, b] = [await createTenant(api.pool, 'A'), await createTenant(api.pool, 'B')];
    mod = await createTestModerator(api);
  });
  after(async () => {
    await worker.stop();
    await api.close();
  });

  async function playerOf(...ts: Tenant[]) {
    const p = await createTestPlayer(api.pool);
    for (const t of ts) await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: t.game.clientId });
    return p.serviceId;
  }
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
  /** A match of players on alternate sides that ended `endedMinutesAgo` minutes ago (default: now). */
  function match(
    players: { serviceId: string; team?: string; party?: string; leftEarly?: boolean }[],
    endedMinutesAgo = 0,
  ) {
    return {
      matchId: `m-${Date.now()}-${++seq}`,
      mode: 'ranked',
      startedAt: minutesAgo(endedMinutesAgo + 30),
      endedAt: minutesAgo(endedMinutesAgo),
      players: players.map((p, i) => ({
        serviceId: p.serviceId,
        team: p.team ?? (i % 2 ? 'red' : 'blue'),
        ...(p.party ? { party: p.party } : {}),
        result: i % 2 ? 'loss' : 'win',
        leftEarly: p.leftEarly ?? false,
      })),
    };
  }
  const send = (matches: unknown[], t = a) =>
    call<MatchesAnswer>(api.url, 'POST', '/v1/matches', {
      spec: '/v1/matches',
      headers: t.headers,
      json: { matches },
    });
  const recorded = async (studioId: string, matchId: string) =>
    Number(
      (
        await api.pool.query<{ n: string }>(
          'SELECT count(*) AS n FROM matches WHERE studio_id = $1 AND match_id = $2',
          [studioId, matchId],
        )
      ).rows[0]!.n,
    );
  const untilRecorded = (t: Tenant, matchId: string) =>
    eventually(`match ${matchId} recorded`, async () => (await recorded(t.studioId, matchId)) > 0);
  const restrict = (serviceId: string, body: Record<string, unknown>, t = a) =>
    call<SanctionView>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: t.headers,
      json: { type: 'matchmaking_restriction', reason: 'Left 5 ranked matches early.', ...body },
    });
  const sanction = async (serviceId: string, id: string) =>
    (
      await call<{ items: SanctionView[] }>(api.url, 'GET', `/v1/admin/players/${serviceId}/sanctions`, {
        spec: '/v1/admin/players/{serviceId}/sanctions',
        headers: mod.headers,
      })
    ).body.items.find((s) => s.id === id)!;
  const lookup = async (serviceId: string, t = a) =>
    (
      await call<{ players: { activeSanctions: { id: string; matchesLeft: number | null }[] }[] }>(
        api.url,
        'POST',
        '/v1/players/lookup',
        { spec: '/v1/players/lookup', headers: t.headers, json: { serviceIds: [serviceId] } },
      )
    ).body.players[0]!.activeSanctions;

  it('answers each match on its own and stores nothing for a rejected one', async () => {
    const [p1, p2] = [await playerOf(a), await playerOf(a)];
    const stranger = await playerOf(b);
    const good = match([{ serviceId: p1 }, { serviceId: p2 }]);
    const twice = match([{ serviceId: p1 }, { serviceId: p1 }]);
    const split = match([
      { serviceId: p1, team: 'red', party: 'duo' },
      { serviceId: p2, team: 'blue', party: 'duo' },
    ]);
    const backwards = { ...match([{ serviceId: p1 }]), startedAt: minutesAgo(1), endedAt: minutesAgo(5) };
    const future = {
      ...match([{ serviceId: p1 }]),
      startedAt: minutesAgo(5),
      endedAt: new Date(Date.now() + 3600_000).toISOString(),
    };
    const ancient = match([{ serviceId: p1 }], 200 * 24 * 60);
    const unknown = match([{ serviceId: p1 }, { serviceId: stranger }]);
    const malformed = { matchId: 'x', players: [{ serviceId: p1, team: 'red', result: 'victory' }] };
    const otherGame = { ...match([{ serviceId: p1 }]), gameId: b.game.id };
    const res = await send([good, twice, split, backwards, future, ancient, unknown, malformed, otherGame]);
    expect(res.status).to.equal(202);
    expect(res.body.results.map((r) => [r.index, r.status, r.code ?? null])).to.deep.equal([
      [0, 'accepted', null],
      [1, 'rejected', 'duplicate_player'],
      [2, 'rejected', 'party_across_teams'],
      [3, 'rejected', 'match_out_of_range'],
      [4, 'rejected', 'match_out_of_range'],
      [5, 'rejected', 'match_out_of_range'],
      [6, 'rejected', 'unknown_player'],
      [7, 'rejected', 'validation_failed'],
      [8, 'rejected', 'unknown_game'],
    ]);
    expect(res.body).to.include({ accepted: 1, duplicates: 0, rejected: 8 });
    expect(res.body.results[6]!.message).to.contain(stranger);
    expect(res.body.results[7]!.fields!.map((f) => f.field)).to.include.members([
      'matches.7.mode',
      'matches.7.players.0.result',
    ]);
    await untilRecorded(a, good.matchId);
    for (const m of [twice, split, backwards, future, ancient, unknown, otherGame])
      expect(await recorded(a.studioId, m.matchId), m.matchId).to.equal(0);
    const { rows } = await api.pool.query(
      'SELECT team, party, result, left_early FROM player_matches WHERE studio_id = $1 AND match_id = $2 ORDER BY team',
      [a.studioId, good.matchId],
    );
    expect(rows).to.deep.equal([
      { team: 'blue', party: null, result: 'win', left_early: false },
      { team: 'red', party: null, result: 'loss', left_early: false },
    ]);

    // Every match rejected: a 400 that still answers each one; an empty or oversized list: 400.
    const none = await send([twice, unknown]);
    expect(none.status).to.equal(400);
    expect(none.body.code).to.equal('matches_rejected');
    expect(none.body.results.map((r) => r.code)).to.deep.equal(['duplicate_player', 'unknown_player']);
    expect((await send([])).status).to.equal(400);
    expect((await send(Array.from({ length: 101 }, () => good))).status).to.equal(400);
    const notJson = await call(api.url, 'POST', '/v1/matches', {
      headers: { ...a.headers, 'content-type': 'text/plain' },
      body: 'matches',
    });
    expect(notJson.status).to.equal(415);
  });

  it('records a match once: the same roster again is a duplicate, another roster a conflict', async () => {
    const [p1, p2, p3] = [await playerOf(a), await playerOf(a), await playerOf(a)];
    const m = match([{ serviceId: p1 }, { serviceId: p2 }]);
    // Twice in one request, before the worker wrote it: one accepted, one duplicate.
    const first = await send([m, m]);
    expect(first.body.results.map((r) => r.status)).to.deep.equal(['accepted', 'duplicate']);
    await untilRecorded(a, m.matchId);
    const again = await send([m, { ...m, players: [...m.players, { ...m.players[0]!, serviceId: p3 }] }]);
    expect(again.body.results.map((r) => [r.status, r.code ?? null])).to.deep.equal([
      ['duplicate', null],
      ['rejected', 'match_conflict'],
    ]);
    // Another studio's match of the same id is its own.
    const pb = await playerOf(b);
    const theirs = await send([{ ...m, players: [{ ...m.players[0]!, serviceId: pb }] }], b);
    expect(theirs.body.results[0]!.status).to.equal('accepted');
    await untilRecorded(b, m.matchId);
    expect(await recorded(a.studioId, m.matchId)).to.equal(1);
  });

  it('a restriction counted in matches counts each finished match once and ends at zero, announced once', async () => {
    const [p, q] = [await playerOf(a, b), await playerOf(a, b)];
    await insertWebhook(api.pool, {
      studioId: a.studioId,
      url: 'https://hooks.example/matches',
      events: ['sanction.expired'],
      sealedSecret: Buffer.from('sealed'),
    });
    // Bad asks: counted in matches is for restrictions only, and instead of a time, not with one.
    const ban = await restrict(p, { type: 'temporary_ban', matches: 3 });
    expect(ban.status).to.equal(400);
    expect(ban.body.errors!.map((e) => e.field)).to.include('matches');
    expect((await restrict(p, { matches: 3, durationSeconds: 3600 })).status).to.equal(400);
    expect((await restrict(p, { matches: 0 })).status).to.equal(400);
    expect((await restrict(p, { matches: 1001 })).status).to.equal(400);

    const placed = await restrict(p, { matches: 3 });
    expect(placed.status).to.equal(201);
    expect(placed.body).to.deep.include({ active: true, expiresAt: null, matches: { total: 3, left: 3 } });
    const id = placed.body.id;
    expect(await lookup(p)).to.deep.equal([{ ...(await lookup(p))[0], id, matchesLeft: 3 }]);

    // Before the restriction: no count. Left early: no count. Another studio's match: not in its scope.
    const before = match([{ serviceId: p }, { serviceId: q }], 120);
    const left = match([{ serviceId: p, leftEarly: true }, { serviceId: q }]);
    const elsewhere = match([{ serviceId: p }, { serviceId: q }]);
    const finished = match([{ serviceId: p }, { serviceId: q }]);
    await send([before, left, finished]);
    await send([elsewhere], b);
    for (const [t, m] of [
      [a, before],
      [a, left],
      [a, finished],
      [b, elsewhere],
    ] as const)
      await untilRecorded(t, m.matchId);
    expect((await sanction(p, id)).matches).to.deep.equal({ total: 3, left: 2 });
    // Sent again: a duplicate, counted nothing.
    expect((await send([finished])).body.results[0]!.status).to.equal('duplicate');

    // The worker died after writing and its job ran again (or a second worker took it): nothing twice.
    const players = new Map(
      (
        await api.pool.query<{ id: string; service_id: string }>(
          'SELECT id, service_id FROM players WHERE service_id = ANY($1)',
          [[p, q]],
        )
      ).rows.map((r) => [r.service_id, r.id]),
    );
    const job: MatchJobData = {
      studioId: a.studioId,
      matches: [match([{ serviceId: p }, { serviceId: q }])].map((m) => ({
        matchId: m.matchId,
        gameId: a.game.id,
        mode: m.mode,
        startedAt: m.startedAt,
        endedAt: m.endedAt,
        roster: rosterDigest({
          ...m,
          startedAt: new Date(m.startedAt),
          endedAt: new Date(m.endedAt),
          players: m.players.map((x) => ({ ...x, result: x.result as 'win' })),
        }).toString('base64'),
        players: m.players.map((x) => ({
          p: players.get(x.serviceId)!,
          t: x.team,
          pa: null,
          r: x.result as 'win',
          l: false,
        })),
      })),
    };
    const runs = await Promise.all([
      writeMatches(api.pool, job, new Date(), 180, 7 * 86_400),
      writeMatches(api.pool, job, new Date(), 180, 7 * 86_400),
    ]);
    expect(runs.map((r) => r.recorded).sort()).to.deep.equal([0, 1]);
    expect((await sanction(p, id)).matches).to.deep.equal({ total: 3, left: 1 });
    expect(await lookup(p)).to.deep.include.members([
      { ...(await lookup(p)).find((s) => s.id === id)!, matchesLeft: 1 },
    ]);

    // The statement of reasons says what it lasts and what is left.
    const decisions = await playerDecisions(
      api.pool,
      p,
      { now: new Date(), appealWindowDays: 30, caps: api.config.penaltyCaps },
      20,
    );
    const statement = decisions.items.find((d) => d.id === id)!;
    expect(statement.decision).to.contain('for the next 3 matches you finish');
    expect(statement.state).to.equal('In force: 1 match of 3 left to finish.');
    expect(statement.period!.endsAt).to.equal(null);

    // The last match: it ends, its end is the time it was recorded, and sanction.expired goes once.
    const last = match([{ serviceId: p }, { serviceId: q }]);
    await send([last]);
    await untilRecorded(a, last.matchId);
    const ended = await sanction(p, id);
    expect(ended).to.deep.include({ active: false, matches: { total: 3, left: 0 } });
    expect(ended.expiresAt).to.be.a('string');
    expect(await lookup(p)).to.deep.equal([]);
    const { rows: jobRows } = await api.pool.query<{ payload: { runAt: string } }>(
      'SELECT payload FROM outbox WHERE job_id = $1',
      [`sanction-expiry-${id}`],
    );
    expect(jobRows.map((r) => r.payload.runAt)).to.deep.equal([ended.expiresAt]);
    expect((await announceExpiry(api.pool, id, new Date())).announced).to.equal(true);
    expect((await announceExpiry(api.pool, id, new Date())).announced).to.equal(false);
    // More matches count nothing more.
    const after = match([{ serviceId: p }, { serviceId: q }]);
    await send([after]);
    await untilRecorded(a, after.matchId);
    expect((await sanction(p, id)).matches).to.deep.equal({ total: 3, left: 0 });
  });

  it("a revoked restriction counts nothing; a global one counts every studio's matches", async () => {
    const [p, q] = [await playerOf(a, b), await playerOf(a, b)];
    const revoked = (await restrict(p, { matches: 2, type: 'chat_restriction' })).body.id;
    await call(api.url, 'POST', `/v1/player/${p}/sanctions/${revoked}/revoke`, {
      spec: '/v1/player/{serviceId}/sanctions/{sanctionId}/revoke',
      headers: a.headers,
      json: { reason: 'Placed on the wrong player.' },
    });
    const global = await call<SanctionView>(api.url, 'POST', `/v1/admin/players/${p}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json: { type: 'chat_restriction', reason: 'Abuse in voice chat.', matches: 2 },
    });
    expect(global.status).to.equal(201);
    const m1 = match([{ serviceId: p }, { serviceId: q }]);
    const m2 = match([{ serviceId: p }, { serviceId: q }]);
    await send([m1]);
    await send([m2], b);
    await untilRecorded(a, m1.matchId);
    await untilRecorded(b, m2.matchId);
    expect((await sanction(p, revoked)).matches).to.deep.equal({ total: 2, left: 2 });
    const done = await sanction(p, global.body.id);
    expect(done).to.deep.include({ active: false, matches: { total: 2, left: 0 } });
  });

  it('the strike ladder places a restriction counted in matches, and the matches count it down', async () => {
    const laddered = await startTestApi({ STRIKE_LADDER: '1=matchmaking_restriction/2matches' });
    const review = await startTestWorker(laddered.config, 'review');
    const matchesWorker = await startTestWorker(laddered.config, 'matches');
    try {
      const t = await createTenant(laddered.pool, 'Ladder');
      const m = await createTestModerator(laddered);
      const [p, q] = [await createTestPlayer(laddered.pool), await createTestPlayer(laddered.pool)];
      for (const x of [p, q])
        await linkPlayer(laddered.pool, { serviceId: x.serviceId, clientId: t.game.clientId });
      await call(laddered.url, 'POST', `/v1/afk/submitReport/${p.serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: t.headers,
        json: { report: { isAfk: true } },
      });
      const caseId = await eventually('the case', async () => {
        const { rows } = await laddered.pool.query<{ id: string }>(
          'SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id WHERE p.service_id = $1',
          [p.serviceId],
        );
        return rows[0]?.id;
      });
      await call(laddered.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
        spec: '/v1/admin/cases/{caseId}/claim',
        headers: m.headers,
      });
      const upheld = await call(laddered.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: m.headers,
        json: { outcome: 'upheld', note: 'Idle for whole rounds.' },
      });
      expect(upheld.status, upheld.text).to.equal(200);
      const listed = async () =>
        (
          await call<{ items: SanctionView[] }>(
            laddered.url,
            'GET',
            `/v1/admin/players/${p.serviceId}/sanctions`,
            {
              spec: '/v1/admin/players/{serviceId}/sanctions',
              headers: m.headers,
            },
          )
        ).body.items;
      expect((await listed()).map((x) => [x.active, x.expiresAt, x.matches])).to.deep.equal([
        [true, null, { total: 2, left: 2 }],
      ]);
      for (let i = 0; i < 2; i++) {
        const one = match([{ serviceId: p.serviceId }, { serviceId: q.serviceId }]);
        const res = await call<MatchesAnswer>(laddered.url, 'POST', '/v1/matches', {
          spec: '/v1/matches',
          headers: t.headers,
          json: { matches: [one] },
        });
        expect(res.body.accepted).to.equal(1);
        await eventually(
          'recorded',
          async () =>
            (
              await laddered.pool.query('SELECT 1 FROM matches WHERE studio_id = $1 AND match_id = $2', [
                t.studioId,
                one.matchId,
              ])
            ).rowCount,
        );
      }
      expect((await listed()).map((x) => [x.active, x.matches])).to.deep.equal([
        [false, { total: 2, left: 0 }],
      ]);
    } finally {
      await matchesWorker.stop();
      await review.stop();
      await laddered.close();
    }
  });

  it("a second database in the same process gets its own month partitions (what one knows is not the other's)", async () => {
    // This suite's database holds this month's partitions by now; a fresh one holds none.
    const p = await playerOf(a);
    const m = match([{ serviceId: p }]);
    await send([m]);
    await untilRecorded(a, m.matchId);
    const db = await ownDatabase('matches');
    const other = await startTestApi({ DATABASE_URL: db.url });
    const otherWorker = await startTestWorker(other.config, 'matches');
    try {
      const t = await createTenant(other.pool, 'Own');
      const x = await createTestPlayer(other.pool);
      await linkPlayer(other.pool, { serviceId: x.serviceId, clientId: t.game.clientId });
      const theirs = { ...match([{ serviceId: x.serviceId }]) };
      const res = await call<MatchesAnswer>(other.url, 'POST', '/v1/matches', {
        spec: '/v1/matches',
        headers: t.headers,
        json: { matches: [theirs] },
      });
      expect(res.body.accepted).to.equal(1);
      await eventually(
        'recorded in the other database',
        async () =>
          (
            await other.pool.query('SELECT 1 FROM matches WHERE studio_id = $1 AND match_id = $2', [
              t.studioId,
              theirs.matchId,
            ])
          ).rowCount,
      );
    } finally {
      await otherWorker.stop();
      await other.close();
      await db.drop();
    }
  });

  it('the lobby check takes parties: the party at its lowest member, a warning for each member who lowers it', async () => {
    const ids = await Promise.all(Array.from({ length: 9 }, () => playerOf(a, b)));
    const [top, weak, near, solo, restricted, banned, lone, close, scoped] = ids as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const setTrust = (serviceId: string, score: number) =>
      api.pool.query('UPDATE players SET trust_score = $2 WHERE service_id = $1', [serviceId, score]);
    await setTrust(weak, 85); // 15 below the lowest of the others (100): lowers the party
    await setTrust(near, 100);
    await setTrust(lone, 40); // alone: nobody to lower
    await setTrust(close, 91); // 9 below the other: noise, no warning
    const counted = await restrict(restricted, { matches: 3 });
    expect(counted.status, counted.text).to.equal(201);
    const ban = await call<SanctionView>(api.url, 'POST', `/v1/admin/players/${banned}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json: { type: 'temporary_ban', reason: 'Aimbot in ranked.', durationSeconds: 86_400 },
    });
    expect(ban.status, ban.text).to.equal(201);
    // Studio B's own restriction: B's matchmaker sees it, A's does not.
    expect((await restrict(scoped, { durationSeconds: 3600 }, b)).status).to.equal(201);

    type Party = {
      party: string;
      members: string[];
      notFound: string[];
      invalid: string[];
      trustScore: number | null;
      lowPriority: boolean;
      canQueue: boolean;
      warnings: {
        serviceId: string;
        code: string;
        message: string;
        sanctionId?: string;
        lowersBy?: number;
      }[];
    };
    const ask = (json: object, t = a) =>
      call<{
        players: { serviceId: string }[];
        notFound: string[];
        invalid: string[];
        parties?: Party[];
        errors?: { field: string }[];
      }>(api.url, 'POST', '/v1/players/lookup', { spec: '/v1/players/lookup', headers: t.headers, json });
    const res = await ask({
      serviceIds: [top],
      parties: [
        { party: 'duo', serviceIds: [top, weak, near] },
        { party: 'trio', serviceIds: [solo, restricted, banned, 'nobody-at-all', 'bad id!'] },
        { party: 'lone', serviceIds: [lone] },
        { party: 'close', serviceIds: [close, scoped] },
      ],
    });
    expect(res.status, res.text).to.equal(200);
    // Every member is looked up too, once, serviceIds first.
    expect(res.body.players.map((p) => p.serviceId)).to.deep.equal([
      top,
      weak,
      near,
      solo,
      restricted,
      banned,
      lone,
      close,
      scoped,
    ]);
    expect(res.body.notFound).to.deep.equal(['nobody-at-all']);
    expect(res.body.invalid).to.deep.equal(['bad id!']);
    const [duo, trio, alone, near9] = res.body.parties!;
    expect(duo).to.deep.include({
      party: 'duo',
      members: [top, weak, near],
      trustScore: 85,
      lowPriority: false,
      canQueue: true,
    });
    expect(duo!.warnings.map((w) => [w.serviceId, w.code, w.lowersBy])).to.deep.equal([
      [weak, 'low_trust', 15],
    ]);
    expect(trio).to.deep.include({
      members: [solo, restricted, banned],
      notFound: ['nobody-at-all'],
      invalid: ['bad id!'],
      trustScore: 100,
      lowPriority: true,
      canQueue: false,
    });
    expect(trio!.warnings.map((w) => [w.serviceId, w.code, w.sanctionId])).to.deep.equal([
      [restricted, 'matchmaking_restriction', counted.body.id],
      [banned, 'banned', ban.body.id],
    ]);
    expect(trio!.warnings[0]!.message).to.contain('3 more finished matches');
    expect(alone).to.deep.include({ trustScore: 40, warnings: [], lowPriority: false, canQueue: true });
    expect(near9).to.deep.include({ trustScore: 91, warnings: [], lowPriority: false });
    // Studio B's matchmaker sees its own restriction on the same party.
    const fromB = await ask({ parties: [{ party: 'close', serviceIds: [close, scoped] }] }, b);
    expect(fromB.body.parties![0]!.warnings.map((w) => [w.serviceId, w.code])).to.deep.equal([
      [scoped, 'matchmaking_restriction'],
    ]);
    expect(fromB.body.parties![0]!.lowPriority).to.equal(true);
    // Without parties, the answer is what it always was.
    expect((await ask({ serviceIds: [top] })).body).to.not.have.property('parties');

    // A lobby whose shape is wrong is refused whole, naming the field.
    const twoParties = await ask({
      parties: [
        { party: 'x', serviceIds: [top] },
        { party: 'y', serviceIds: [weak, top] },
      ],
    });
    expect(twoParties.status).to.equal(400);
    expect(twoParties.body.errors!.map((f) => f.field)).to.deep.equal(['parties.1.serviceIds.1']);
    const tooMany = await ask({
      serviceIds: Array.from({ length: 60 }, (_, i) => `s${i}`),
      parties: [
        { party: 'p', serviceIds: Array.from({ length: 20 }, (_, i) => `p${i}`) },
        { party: 'q', serviceIds: Array.from({ length: 20 }, (_, i) => `q${i}`) },
        { party: 'r', serviceIds: Array.from({ length: 20 }, (_, i) => `r${i}`) },
      ],
    });
    expect(tooMany.status).to.equal(400);
    for (const bad of [
      {},
      { parties: [] },
      { parties: [{ party: 'x', serviceIds: [] }] },
      { parties: [{ party: '', serviceIds: [top] }] },
      { parties: [{ party: 'x', serviceIds: [top, top] }] },
      {
        parties: [
          { party: 'x', serviceIds: [top] },
          { party: 'x', serviceIds: [weak] },
        ],
      },
      { parties: [{ party: 'x', serviceIds: Array.from({ length: 21 }, (_, i) => `m${i}`) }] },
      { parties: [{ serviceIds: [top] }] },
    ]) {
      const r = await ask(bad);
      expect(r.status, JSON.stringify(bad)).to.equal(400);
    }
  });

  it("an erasure deletes the player's part in every match; the others keep theirs", async () => {
    const [p, q] = [await playerOf(a), await playerOf(a)];
    const m = match([{ serviceId: p }, { serviceId: q }]);
    await send([m]);
    await untilRecorded(a, m.matchId);
    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
      p,
    ]);
    const done = await withTransaction(api.pool, (c) =>
      applyErasure(c, crypto.randomUUID(), rows[0]!.id, new Date()),
    );
    expect(done!.erasure.receipt).to.have.property('matches', 1);
    const { rows: left } = await api.pool.query(
      'SELECT player_id FROM player_matches WHERE studio_id = $1 AND match_id = $2',
      [a.studioId, m.matchId],
    );
    expect(left).to.have.length(1);
    expect(left[0]).to.not.deep.equal({ player_id: rows[0]!.id });
  });

  it('retention drops a month past MATCH_RETENTION_DAYS whole, and creates the months ahead', async () => {
    const p = await playerOf(a);
    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
      p,
    ]);
    const now = new Date();
    const old = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 9, 15));
    await ensureMatchPartitions(api.pool, [old]);
    const input = {
      matchId: `old-${++seq}`,
      gameId: a.game.id,
      mode: 'casual',
      startedAt: new Date(old.getTime() - 600_000),
      endedAt: old,
      players: [
        {
          playerRowId: rows[0]!.id,
          team: 'a',
          party: null,
          result: 'draw' as const,
          leftEarly: false,
          commended: [],
        },
      ],
    };
    await withTransaction(api.pool, (c) =>
      recordMatches(c, a.studioId, [{ ...input, roster: Buffer.alloc(32) }], now, 7 * 86_400),
    );
    expect(await recorded(a.studioId, input.matchId)).to.equal(1);
    const tag = `${old.getUTCFullYear()}${String(old.getUTCMonth() + 1).padStart(2, '0')}`;
    // Within a year's window it stays; past a 180-day window its month goes whole, in both tables.
    expect(await maintainMatchPartitions(api.pool, now, 365)).to.deep.equal([]);
    expect(await maintainMatchPartitions(api.pool, now, 180)).to.include.members([
      `matches_p${tag}`,
      `player_matches_p${tag}`,
    ]);
    expect(await recorded(a.studioId, input.matchId)).to.equal(0);
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const nextTag = `${next.getUTCFullYear()}${String(next.getUTCMonth() + 1).padStart(2, '0')}`;
    const { rows: parts } = await api.pool.query('SELECT relname FROM pg_class WHERE relname = $1', [
      `player_matches_p${nextTag}`,
    ]);
    expect(parts).to.have.length(1);
  });
});
