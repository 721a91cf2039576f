import crypto from 'node:crypto';
import { expect } from 'chai';
import { withTransaction } from '../../common/data/db.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import type { presentConductSummary } from '../../common/domain/conduct.js';
import { applyErasure } from '../../common/lifecycles/erasure.js';
import { summarizeRestrictionJob } from '../../common/usecases/conduct.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { playerStandingView, standingPlayer } from '../../common/usecases/standing.js';
import { standingPage } from '../../api/routes/standing/page.js';
import type { RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';
import { startTestWorker } from '../helpers/workers.js';
import { testMatch, type TestMatchPlayer } from '../helpers/matches.js';

type Summary = ReturnType<typeof presentConductSummary>;

const XSS = '<img src=x onerror="window.__xss=1">';

/**
 * Issue 54, part 4: every CONDUCT_SUMMARY_EVERY_MATCHES matches of a studio's, and when a
 * restriction begins, the player gets a conduct summary (matches, reports counted by party,
 * commendations, games left early) on the standing page and as conduct.summary to the studio, with
 * a plain warning when one more upheld report reaches the strike ladder's next step; each match in
 * one summary, a restriction's summaries made once, erased with the player.
 */
describe('conduct summaries every N matches and when a restriction begins (issue 54)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let matchesWorker: RunningWorker;
  let reviewWorker: RunningWorker | undefined;
  let a: Tenant;
  let b: Tenant;
  let hookA: string;
  let hookB: string;

  before(async () => {
    // One strike reaches the first rung: a player with none is one upheld report from it.
    api = await startTestApi({
      CONDUCT_SUMMARY_EVERY_MATCHES: '3',
      STRIKE_LADDER: '1=matchmaking_restriction/10matches,3=temporary_ban/7d',
    });
    matchesWorker = await startTestWorker(api.config, 'matches');
    a = await createTenant(api.pool, 'A');
    b = await createTenant(api.pool, 'B');
    const hook = (t: Tenant, name: string) =>
      insertWebhook(api.pool, {
        studioId: t.studioId,
        url: `https://hooks.example.test/${name}`,
        events: ['conduct.summary'],
        sealedSecret: Buffer.from('sealed'),
      });
    hookA = (await hook(a, 'a')).id;
    hookB = (await hook(b, 'b')).id;
  });
  after(async () => {
    await reviewWorker?.stop();
    await matchesWorker.stop();
    await api.close();
  });

  async function playerOf(...tenants: Tenant[]) {
    const p = await createTestPlayer(api.pool);
    for (const t of tenants)
      await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: t.game.clientId });
    return p.serviceId;
  }
  const match = (players: TestMatchPlayer[]) => testMatch('c', players, 10);
  async function play(t: Tenant, ...matches: ReturnType<typeof match>[]) {
    const res = await call<{ results: { status: string }[] }>(api.url, 'POST', '/v1/matches', {
      spec: '/v1/matches',
      headers: t.headers,
      json: { matches },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    await eventually('matches recorded', async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM matches WHERE studio_id = $1 AND match_id = ANY($2::text[])',
        [t.studioId, matches.map((m) => m.matchId)],
      );
      return rows[0]!.n === matches.length;
    });
    return res.body.results.map((r) => r.status);
  }
  const rowId = async (serviceId: string) =>
    (await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [serviceId]))
      .rows[0]!.id;
  /** The conduct.summary events sent to a webhook about a player, oldest first. */
  async function events(hookId: string, serviceId: string) {
    const { rows } = await api.pool.query<{ payload: { data: { playerId: string; summary: Summary } } }>(
      `SELECT payload FROM webhook_deliveries WHERE event_type = 'conduct.summary' AND webhook_id = $1
        ORDER BY created_at, id`,
      [hookId],
    );
    return rows.map((r) => r.payload.data).filter((d) => d.playerId === serviceId);
  }
  const summariesOf = async (serviceId: string) =>
    (
      await api.pool.query<{
        studio_id: string;
        trigger: string;
        sanction_id: string | null;
        matches: number;
      }>(
        'SELECT studio_id, trigger, sanction_id, matches FROM conduct_summaries WHERE player_id = $1 ORDER BY created_at',
        [await rowId(serviceId)],
      )
    ).rows;
  const report = async (t: Tenant, serviceId: string, reporterId: string, matchId?: string) => {
    const res = await call(api.url, 'POST', `/v1/toxicity/submitReport/${serviceId}`, {
      spec: '/v1/toxicity/submitReport/{serviceId}',
      headers: t.headers,
      json: {
        report: {
          isToxic: 'yes',
          category: 'harassment',
          severity: 'low',
          messages: [`gg ez ${XSS}`],
          reporterId,
          source: 'player',
          ...(matchId ? { matchId } : {}),
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
  };
  const place = async (t: Tenant, serviceId: string, type: string) => {
    const res = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: t.headers,
      json: { type, reason: 'Abandoned ranked matches.', durationSeconds: 3600 },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  };

  it('a restriction revoked before its job ran gets no summary, and its job is then done', async () => {
    const x = await playerOf(a);
    const id = await place(a, x, 'chat_restriction');
    const revoked = await call(api.url, 'POST', `/v1/player/${x}/sanctions/${id}/revoke`, {
      spec: '/v1/player/{serviceId}/sanctions/{sanctionId}/revoke',
      headers: a.headers,
      json: { reason: 'Placed on the wrong player.' },
    });
    expect(revoked.status).to.equal(200);
    // No review worker runs yet: the job waits, and runs here after the revoke.
    const run = await summarizeRestrictionJob(api.pool, id, new Date(), api.config.strikeLadder);
    expect(run.summaries).to.equal(0);
    expect(await summariesOf(x)).to.deep.equal([]);
    const { rows } = await api.pool.query(
      'SELECT summaries FROM conduct_restrictions WHERE sanction_id = $1',
      [id],
    );
    expect(rows).to.deep.equal([{ summaries: 0 }]);
  });

  it('every 3rd match: the counts, the reports once per party, the commendations, the warning; each match once', async () => {
    const [x, mate, r1, r2, r3, f1, f2] = [
      await playerOf(a),
      await playerOf(a),
      await playerOf(a),
      await playerOf(a),
      await playerOf(a),
      await playerOf(a),
      await playerOf(a),
    ];
    const first = match([
      { serviceId: x!, team: 'blue' },
      { serviceId: mate!, team: 'blue', commended: [x!] },
      { serviceId: r1!, team: 'red', party: 'p1' },
      { serviceId: r2!, team: 'red', party: 'p1' },
      { serviceId: r3!, team: 'red' },
    ]);
    expect(await play(a, first)).to.deep.equal(['accepted']);
    expect(
      await play(
        a,
        match([
          { serviceId: x!, team: 'blue', leftEarly: true },
          { serviceId: f1!, team: 'red' },
        ]),
      ),
    ).to.deep.equal(['accepted']);
    // Two of one party and one alone report x in the first match: three reports, two parties.
    await report(a, x!, r1!, first.matchId);
    await report(a, x!, r2!, first.matchId);
    await report(a, x!, r3!, first.matchId);
    // The first match sent again is a repeat: it counts nothing.
    expect(await play(a, first)).to.deep.equal(['duplicate']);
    expect(await summariesOf(x!)).to.deep.equal([]);
    await play(
      a,
      match([
        { serviceId: x!, team: 'blue' },
        { serviceId: f2!, team: 'red' },
      ]),
    );

    const sent = await events(hookA, x!);
    expect(sent).to.have.length(1);
    const s = sent[0]!.summary;
    expect(s).to.include({
      playerId: x,
      trigger: 'matches',
      sanctionId: null,
      since: null,
      matches: 3,
      finished: 2,
      leftEarly: 1,
      commendations: 1,
      reports: 3,
      reportingParties: 2,
      activeStrikes: 0,
    });
    expect(s.nextStep).to.deep.equal({
      strikes: 1,
      type: 'matchmaking_restriction',
      durationSeconds: null,
      matches: 10,
    });
    expect(s.warning).to.equal(
      'Careful: one more upheld report would bring a matchmaking restriction for the next 10 matches you finish (you have 0 strikes in force; the next step is at 1).',
    );
    expect(s.text).to.equal(
      'Your last 3 matches: 2 finished, 1 left early; 3 reports (2 parties of players: reports from one party of a match count once); 1 commendation.',
    );
    expect(await events(hookB, x!), 'studio B hears nothing of A').to.deep.equal([]);
    // The counts went into the summary; the next match starts again, and the next summary's window
    // starts at this one: the reports before it are not counted again.
    const id = await rowId(x!);
    const { rows: left } = await api.pool.query('SELECT * FROM player_conduct WHERE player_id = $1', [id]);
    expect(left).to.deep.equal([]);
    for (let i = 0; i < 3; i++)
      await play(
        a,
        match([
          { serviceId: x!, team: 'blue' },
          { serviceId: f1!, team: 'red', commended: [x!] },
        ]),
      );
    const both = await events(hookA, x!);
    expect(both).to.have.length(2);
    expect(both[1]!.summary).to.include({
      matches: 3,
      finished: 3,
      leftEarly: 0,
      reports: 0,
      reportingParties: 0,
    });
    expect(both[1]!.summary.since, 'the window starts at the last summary').to.equal(s.createdAt);
    // f1 commended x three times within 7 days: the first counted, the others repeats.
    expect(both[1]!.summary.commendations).to.equal(1);

    // The standing page shows the newest first, as text, the warning with it.
    const view = await playerStandingView(api.pool, (await standingPlayer(api.pool, id))!, {
      now: new Date(),
      appealWindowDays: api.config.appealWindowDays,
      caps: api.config.penaltyCaps,
    });
    expect(view.conduct.map((c) => c.text)).to.deep.equal([both[1]!.summary.text, s.text]);
    expect(view.conduct[0]!.studio).to.match(/^A /);
    const html = standingPage({ gamerTag: 'x', trustScore: 90, ...view, csrf: 'c' });
    expect(html).to.include('Conduct summaries');
    expect(html).to.include('Careful: one more upheld report would bring a matchmaking restriction');
    // And in the studio's export of its player, as the events said them.
    const exp = await call<{ conductSummaries: Summary[] }>(api.url, 'GET', `/v1/player/${x}/export`, {
      spec: '/v1/player/{serviceId}/export',
      headers: a.headers,
    });
    expect(exp.status).to.equal(200);
    expect(exp.body.conductSummaries).to.deep.equal([both[1]!.summary, s]);
  });

  it('a restriction beginning sends one summary to each studio that hears of it, once; a warning none', async () => {
    reviewWorker = await startTestWorker(api.config, 'review');
    const [x, other] = [await playerOf(a, b), await playerOf(a, b)];
    await play(
      a,
      match([
        { serviceId: x, team: 'blue', leftEarly: true },
        { serviceId: other, team: 'red' },
      ]),
    );
    const warning = await place(a, x, 'warning');
    const restricted = await place(a, x, 'matchmaking_restriction');
    await eventually('the restriction summarized', async () => (await events(hookA, x)).length === 1);
    const [e] = await events(hookA, x);
    expect(e!.summary).to.include({
      trigger: 'restriction',
      sanctionId: restricted,
      matches: 1,
      finished: 0,
      leftEarly: 1,
    });
    expect(e!.summary.text).to.match(
      /^A restriction began\. Since your last summary: 1 match played, 0 finished/,
    );
    // A studio's own sanction is heard by that studio alone.
    expect(await events(hookB, x)).to.deep.equal([]);
    // The job again (a worker died after it committed) makes nothing more.
    expect(
      (await summarizeRestrictionJob(api.pool, restricted, new Date(), api.config.strikeLadder)).summaries,
    ).to.equal(0);
    const { rows: jobs } = await api.pool.query(
      `SELECT 1 FROM outbox WHERE job_id = $1 UNION ALL SELECT 1 FROM conduct_restrictions WHERE sanction_id = $2`,
      [`summarize-conduct-${warning}`, warning],
    );
    expect(jobs, 'a warning restricts nothing: no summary').to.deep.equal([]);
    const { rows: done } = await api.pool.query('SELECT 1 FROM outbox WHERE job_id = $1', [
      `summarize-conduct-${restricted}`,
    ]);
    expect(done, 'the job a restriction writes').to.have.length(1);
    expect((await summariesOf(x)).map((r) => r.trigger)).to.deep.equal(['restriction']);

    // A moderator's global restriction: every studio whose games the player plays hears of it.
    const mod = await createTestModerator(api);
    const global = await call<{ id: string }>(api.url, 'POST', `/v1/admin/players/${other}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json: { type: 'chat_restriction', reason: 'Slurs in voice chat.', durationSeconds: 3600 },
    });
    expect(global.status, global.text).to.equal(201);
    await eventually(
      'both studios hear of it',
      async () => (await events(hookA, other)).length === 1 && (await events(hookB, other)).length === 1,
    );
    expect((await events(hookB, other))[0]!.summary).to.include({ matches: 0, trigger: 'restriction' });
    expect((await events(hookA, other))[0]!.summary).to.include({ matches: 1, finished: 1 });
  });

  it('erasure takes the counts and the summaries with the player', async () => {
    const [x, y] = [await playerOf(a), await playerOf(a)];
    for (let i = 0; i < 4; i++)
      await play(
        a,
        match([
          { serviceId: x, team: 'blue' },
          { serviceId: y, team: 'red' },
        ]),
      );
    const id = await rowId(x);
    expect(await summariesOf(x)).to.have.length(1);
    const done = await withTransaction(api.pool, (c) => applyErasure(c, crypto.randomUUID(), id, new Date()));
    expect(done!.erasure.receipt).to.include({ conduct: 1, conductSummaries: 1 });
    const { rows: kept } = await api.pool.query('SELECT 1 FROM conduct_summaries WHERE player_id = $1', [id]);
    expect(kept).to.deep.equal([]);
    const { rows } = await api.pool.query('SELECT 1 FROM player_conduct WHERE player_id = $1', [id]);
    expect(rows).to.deep.equal([]);
    // The other player's are theirs.
    expect(await summariesOf(y)).to.have.length(1);
  });
});
