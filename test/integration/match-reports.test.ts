import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import type { RunningWorker } from '../../worker/run.js';
import { createTenant, createTestPlayer, startTestApi, type Tenant, type TestApi } from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';
import { testMatch, type TestMatchPlayer } from '../helpers/matches.js';
import { startTestWorker } from '../helpers/workers.js';

interface Filed {
  status: 'applied' | 'held' | 'recorded';
  statusReason?: string;
  penaltyApplied: number;
  penaltyHeld: number;
  trustScore: number;
}

/**
 * Issue 54, part 3: reports that name a match the service has recorded, both players in it, are
 * weighed with it: the reporters of one party count as one, a report from the other team just after
 * losing weighs half, and a reporter or party reporting the same player across matches is held for a
 * moderator as possible brigading. A match the service does not know, or a game server's finding,
 * is weighed as before.
 */
describe('reports that know the match: parties count once, a loss weighs half, brigading is held (issue 54)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let worker: RunningWorker;
  let a: Tenant;

  before(async () => {
    api = await startTestApi();
    worker = await startTestWorker(api.config, 'matches');
    a = await createTenant(api.pool, 'A');
  });
  after(async () => {
    await worker.stop();
    await api.close();
  });

  async function players(n: number) {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const p = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: a.game.clientId });
      out.push(p.serviceId);
    }
    return out;
  }
  /** Records a match (blue wins) that ended `endedMinutesAgo`. */
  async function played(roster: TestMatchPlayer[], endedMinutesAgo: number) {
    const m = testMatch('r', roster, endedMinutesAgo);
    const res = await call(api.url, 'POST', '/v1/matches', {
      spec: '/v1/matches',
      headers: a.headers,
      json: { matches: [m] },
    });
    expect(res.status, res.text).to.equal(202);
    await eventually('the match recorded', async () => {
      const { rows } = await api.pool.query('SELECT 1 FROM matches WHERE studio_id = $1 AND match_id = $2', [
        a.studioId,
        m.matchId,
      ]);
      return rows.length === 1;
    });
    return m.matchId;
  }
  const toxicity = (reporterId: string, matchId: string, extra: object = {}) => ({
    isToxic: 'yes',
    category: 'harassment',
    severity: 'medium',
    messages: ['gg ez'],
    reporterId,
    source: 'player',
    matchId,
    ...extra,
  });
  async function report(serviceId: string, body: object, kind = 'toxicity') {
    const res = await call<Filed>(api.url, 'POST', `/v1/${kind}/submitReport/${serviceId}`, {
      spec: `/v1/${kind}/submitReport/{serviceId}` as never,
      headers: a.headers,
      json: { report: body },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  const outcome = (f: Filed) => [f.status, f.statusReason ?? null, f.penaltyApplied, f.penaltyHeld];

  it('the reporters of one party count as one in a match: the others are recorded without points, by request or in one batch', async () => {
    const [target, mate, r1, r2, solo] = await players(5);
    const matchId = await played(
      [
        { serviceId: target!, team: 'blue' },
        { serviceId: mate!, team: 'blue' },
        { serviceId: r1!, team: 'red', party: 'p' },
        { serviceId: r2!, team: 'red', party: 'p' },
        { serviceId: solo!, team: 'red' },
      ],
      90,
    );
    const first = await report(target!, toxicity(r1!, matchId));
    expect(first.status).to.equal('applied');
    const full = first.penaltyApplied;
    expect(full).to.be.greaterThan(0);
    expect(outcome(await report(target!, toxicity(r2!, matchId)))).to.deep.equal([
      'recorded',
      'party_report',
      0,
      0,
    ]);
    // A player outside the party is a voice of their own; so is another kind from the party.
    expect(outcome(await report(target!, toxicity(solo!, matchId)))).to.deep.equal([
      'applied',
      null,
      full,
      0,
    ]);
    const griefing = await report(
      target!,
      { isGriefing: true, severity: 'low', reporterId: r2!, source: 'player', matchId },
      'griefing',
    );
    expect(griefing.status).to.equal('applied');

    // In one batch: the second member's report is the party's second.
    const [t2, b1, b2] = await players(3);
    const m2 = await played(
      [
        { serviceId: t2!, team: 'blue' },
        { serviceId: b1!, team: 'red', party: 'q' },
        { serviceId: b2!, team: 'red', party: 'q' },
      ],
      90,
    );
    const batch = await call<{ results: { status: number; body: Filed }[] }>(
      api.url,
      'POST',
      '/v1/reports/batch',
      {
        spec: '/v1/reports/batch',
        headers: a.headers,
        json: {
          reports: [
            { kind: 'toxicity', serviceId: t2, report: toxicity(b1!, m2) },
            { kind: 'toxicity', serviceId: t2, report: toxicity(b2!, m2) },
          ],
        },
      },
    );
    expect(batch.status).to.equal(207);
    expect(batch.body.results.map((r) => outcome(r.body))).to.deep.equal([
      ['applied', null, full, 0],
      ['recorded', 'party_report', 0, 0],
    ]);
  });

  it('a report from the other team within 30 minutes of losing weighs half (rounded up); a winner, a later one or an unknown match weighs in full', async () => {
    const [target, mate, loser, late] = await players(4);
    const fresh = await played(
      [
        { serviceId: target!, team: 'blue' },
        { serviceId: mate!, team: 'blue' },
        { serviceId: loser!, team: 'red' },
      ],
      5,
    );
    const baseline = await report(target!, toxicity(mate!, `unknown-${Date.now()}`));
    const full = baseline.penaltyApplied;
    const halved = await report(target!, toxicity(loser!, fresh));
    expect(outcome(halved)).to.deep.equal(['applied', null, Math.ceil(full / 2), 0]);
    // The same player's own teammate in the same match: not a sore loser.
    const [t2, m2, l2] = await players(3);
    const m = await played(
      [
        { serviceId: t2!, team: 'blue' },
        { serviceId: m2!, team: 'blue' },
        { serviceId: l2!, team: 'red' },
      ],
      5,
    );
    expect((await report(t2!, toxicity(m2!, m))).penaltyApplied).to.equal(full);
    // Long after the match: in full.
    const [t3, l3] = [late!, ...(await players(1))];
    const old = await played(
      [
        { serviceId: t3, team: 'blue' },
        { serviceId: l3!, team: 'red' },
      ],
      45,
    );
    expect((await report(t3, toxicity(l3!, old))).penaltyApplied).to.equal(full);
    // A game server's finding about the match is not a player's report: in full.
    const [t4, l4] = await players(2);
    const m4 = await played(
      [
        { serviceId: t4!, team: 'blue' },
        { serviceId: l4!, team: 'red' },
      ],
      5,
    );
    expect((await report(t4!, toxicity(l4!, m4, { source: 'game_server' }))).penaltyApplied).to.equal(full);
  });

  it('a reporter, or their party, reporting the same player in a third match within 7 days is held as possible brigading', async () => {
    const [target, hunter, friend, other] = await players(4);
    const matchWith = (roster: TestMatchPlayer[]) => played(roster, 90);
    const filed: Filed[] = [];
    for (let i = 0; i < 2; i++) {
      const m = await matchWith([
        { serviceId: target!, team: 'blue' },
        { serviceId: hunter!, team: 'red' },
      ]);
      filed.push(await report(target!, toxicity(hunter!, m, { severity: 'low' })));
    }
    expect(filed.map((f) => f.status)).to.deep.equal(['applied', 'applied']);
    const third = await matchWith([
      { serviceId: target!, team: 'blue' },
      { serviceId: hunter!, team: 'red' },
      { serviceId: other!, team: 'red' },
    ]);
    const held = await report(target!, toxicity(hunter!, third, { severity: 'low' }));
    expect(held).to.include({ status: 'held', statusReason: 'brigading', penaltyApplied: 0 });
    expect(held.penaltyHeld).to.equal(filed[0]!.penaltyApplied);
    // Someone else in that match is not the group.
    expect((await report(target!, toxicity(other!, third, { severity: 'low' }))).status).to.equal('applied');
    // The hunter's party-mate in a fourth match is the same group: held too.
    const fourth = await matchWith([
      { serviceId: target!, team: 'blue' },
      { serviceId: hunter!, team: 'red', party: 'h' },
      { serviceId: friend!, team: 'red', party: 'h' },
    ]);
    expect(outcome(await report(target!, toxicity(friend!, fourth, { severity: 'low' })))).to.deep.equal([
      'held',
      'brigading',
      0,
      filed[0]!.penaltyApplied,
    ]);
    // Held, they wait for a moderator, who sees why (the review worker files them into the case).
    const { rows } = await api.pool.query<{ status_reason: string }>(
      `SELECT o.status_reason FROM offenses o JOIN players p ON p.id = o.player_id
        WHERE p.service_id = $1 AND o.status = 'held'`,
      [target],
    );
    expect(rows.map((r) => r.status_reason)).to.deep.equal(['brigading', 'brigading']);
  });
});
