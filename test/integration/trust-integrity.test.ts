import { expect } from 'chai';
import { startTestWorker } from '../helpers/workers.js';
import { insertWebhook, studiosOfPlayer } from '../../common/data/repos/webhooks.js';
import { linkPlayer, setGameLimits } from '../../common/usecases/provisioning.js';
import { recoverTrust } from '../../common/usecases/trust.js';
import { type RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  offenseCount,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { testServices } from '../helpers/services.js';
import { CuttableProxy } from '../../scripts/lib/cuttable-proxy.js';
import { eventually } from '../helpers/http-server.js';

interface SubmitBody {
  trustScore: number;
  penaltyApplied: number;
  penaltyHeld: number;
  status: string;
  statusReason?: string;
  reporterQuotaRemaining?: number;
  report: { _id: string; status: string; penaltyHeld: number };
  code?: string;
  offenseId?: string;
}

interface HistoryItem {
  id: string;
  points: number;
  scoreBefore: number;
  scoreAfter: number;
  reason: string;
  offenseId: string | null;
  caseId: string | null;
  visibility: string;
}

describe('trust integrity: limits, duplicates, budgets, credibility and the history of the score', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let tenant: Tenant;
  let other: Tenant;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    [tenant, other] = [await createTenant(api.pool, 'Filer'), await createTenant(api.pool, 'Other')];
    mod = await createTestModerator(api);
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  const submit = (serviceId: string, kind: string, report: object, headers = tenant.headers) =>
    call<SubmitBody>(api.url, 'POST', `/v1/${kind}/submitReport/${serviceId}`, {
      spec: `/v1/${kind}/submitReport/{serviceId}` as never,
      headers,
      json: { report },
    });
  const created = async (serviceId: string, kind: string, report: object, headers = tenant.headers) => {
    const res = await submit(serviceId, kind, report, headers);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const critical = { isCheatDetected: true, severity: 'critical' }; // 20 points

  async function history(serviceId: string, headers = tenant.headers): Promise<HistoryItem[]> {
    const all: HistoryItem[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const res: { status: number; body: { items: HistoryItem[]; nextCursor: string | null } } = await call(
        api.url,
        'GET',
        `/v1/player/${serviceId}/trust-history?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { spec: '/v1/player/{serviceId}/trust-history', headers },
      );
      expect(res.status).to.equal(200);
      all.push(...res.body.items);
      cursor = res.body.nextCursor;
      if (!cursor) return all;
    }
    throw new Error('history did not end');
  }

  /** The history read back to front adds up to the score, and each change starts where the last ended. */
  async function expectHistoryMatchesScore(serviceId: string) {
    const items = (await history(serviceId)).reverse();
    let score = 100;
    for (const h of items) {
      expect(h.scoreBefore, JSON.stringify(h)).to.equal(score);
      expect(h.scoreAfter - h.scoreBefore).to.equal(h.points);
      score = h.scoreAfter;
    }
    expect(score).to.equal(await trustScore(api.pool, serviceId));
    return items;
  }

  const openCase = (serviceId: string, count: number) =>
    eventually(`a case of ${serviceId} with ${count} reports`, async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
          WHERE p.service_id = $1 AND c.status = 'open' AND c.reports_count = $2`,
        [serviceId, count],
      );
      return rows[0]?.id;
    });

  async function resolve(caseId: string, outcome: 'upheld' | 'dismissed') {
    const claim = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    expect(claim.status).to.equal(200);
    const res = await call<{ status: string; resolution: { outcome: string } }>(
      api.url,
      'POST',
      `/v1/admin/cases/${caseId}/resolve`,
      {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: mod.headers,
        json: { outcome, note: `${outcome} in a test` },
      },
    );
    expect(res.status, res.text).to.equal(200);
  }

  describe('ordinary traffic', () => {
    it('one anti-cheat, one griefing and one toxicity report in a day apply exactly as the interface document shows', async () => {
      const player = await createTestPlayer(api.pool);
      const a = await created(player.serviceId, 'anticheat', critical);
      const g = await created(player.serviceId, 'griefing', { isGriefing: true, severity: 'critical' });
      const t = await created(player.serviceId, 'toxicity', {
        isToxic: true,
        severity: 'critical',
        category: 'hate_speech',
      });
      expect([a, g, t].map((r) => [r.penaltyApplied, r.penaltyHeld, r.status])).to.deep.equal([
        [20, 0, 'applied'],
        [15, 0, 'applied'],
        [10, 0, 'applied'],
      ]);
      expect(t.trustScore).to.equal(55);
      await expectHistoryMatchesScore(player.serviceId);
    });
  });

  describe("a case's priority", () => {
    it("counts the player's offenses before the case's first report, not later reports elsewhere", async () => {
      const player = await createTestPlayer(api.pool);
      await created(player.serviceId, 'afk', { isAfk: true, severity: 'low' }); // before: counts
      await openCase(player.serviceId, 1);
      await created(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'low' });
      const caseId = await eventually('the cheating case', async () => {
        const { rows } = await api.pool.query<{ id: string }>(
          `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
            WHERE p.service_id = $1 AND c.type = 'cheating' AND c.reports_count = 1`,
          [player.serviceId],
        );
        return rows[0]?.id;
      });
      for (let i = 0; i < 5; i++)
        await created(player.serviceId, 'toxicity', { isToxic: true, severity: 'low', matchId: `t-${i}` });
      await created(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'low' });
      const priority = await eventually('the second cheating report filed', async () => {
        const { rows } = await api.pool.query<{ priority: string; reports_count: number }>(
          'SELECT priority::text, reports_count FROM review_cases WHERE id = $1',
          [caseId],
        );
        return rows[0]!.reports_count === 2 ? Number(rows[0]!.priority) : undefined;
      });
      // 25 x low (0) + 5 x 1 game + 3 x 1 reporter + 2 x 1 offense before the case (the AFK one);
      // the five toxicity reports came after the case opened and do not count.
      expect(priority).to.equal(5 + 3 + 2);
    });
  });

  describe('duplicates and reporter quota', () => {
    it('the same reporter, player, kind and match again: 409 duplicate_report naming the offense, nothing written', async () => {
      const player = await createTestPlayer(api.pool);
      const report = {
        isToxic: true,
        severity: 'high',
        reporterId: 'dup-r',
        matchId: 'm-1',
        source: 'player',
      };
      const first = await created(player.serviceId, 'toxicity', report);
      const again = await submit(player.serviceId, 'toxicity', { ...report, severity: 'low' });
      expect(again.status).to.equal(409);
      expect(again.body).to.include({ code: 'duplicate_report', offenseId: first.report._id });
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(first.trustScore);
      // Another match, another kind, another reporter, another studio: not duplicates.
      await created(player.serviceId, 'toxicity', { ...report, matchId: 'm-2' });
      await created(player.serviceId, 'afk', { isAfk: true, reporterId: 'dup-r', matchId: 'm-1' });
      await created(player.serviceId, 'toxicity', { ...report, reporterId: 'dup-r2' });
      await created(player.serviceId, 'toxicity', report, other.headers);
      // Without a matchId the window is an hour.
      await created(player.serviceId, 'griefing', { isGriefing: true, reporterId: 'dup-r' });
      expect(
        (await submit(player.serviceId, 'griefing', { isGriefing: true, reporterId: 'dup-r' })).status,
      ).to.equal(409);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(6);
    });

    it('concurrent duplicates: exactly one is stored', async () => {
      const player = await createTestPlayer(api.pool);
      const report = { isCheatDetected: true, severity: 'low', reporterId: 'race', matchId: 'm-race' };
      const results = await Promise.all(
        Array.from({ length: 10 }, () => submit(player.serviceId, 'anticheat', report)),
      );
      expect(results.map((r) => r.status).sort()).to.deep.equal([201, ...Array(9).fill(409)]);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(95);
    });

    it('an Idempotency-Key replay is still a replay, not a duplicate', async () => {
      const player = await createTestPlayer(api.pool);
      const headers = { ...tenant.headers, 'idempotency-key': `idem-${player.serviceId}` };
      const report = { isAfk: true, reporterId: 'idem-r', matchId: 'm-9' };
      const first = await created(player.serviceId, 'afk', report, headers);
      const replay = await submit(player.serviceId, 'afk', report, headers);
      expect(replay.status).to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body.report._id).to.equal(first.report._id);
    });

    it('a reporter gets 20 reports a day per studio, told how many remain; the 21st is 429 and stores nothing', async () => {
      const players = await Promise.all(Array.from({ length: 21 }, () => createTestPlayer(api.pool)));
      const remaining: number[] = [];
      for (const p of players.slice(0, 20))
        remaining.push(
          (await created(p.serviceId, 'afk', { isAfk: true, reporterId: 'quota-r' })).reporterQuotaRemaining!,
        );
      expect(remaining).to.deep.equal(Array.from({ length: 20 }, (_, i) => 19 - i));
      const over = await submit(players[20]!.serviceId, 'afk', { isAfk: true, reporterId: 'quota-r' });
      expect(over.status).to.equal(429);
      expect(over.body.code).to.equal('reporter_quota_exceeded');
      expect(Number(over.headers.get('retry-after'))).to.be.within(86_000, 86_400);
      expect(await offenseCount(api.pool, players[20]!.serviceId)).to.equal(0);
      // The same reporterId at another studio is another reporter.
      expect(
        (await created(players[20]!.serviceId, 'afk', { isAfk: true, reporterId: 'quota-r' }, other.headers))
          .reporterQuotaRemaining,
      ).to.equal(19);
    });
  });

  describe("a studio's daily budget on a player", () => {
    it('holds the points beyond 50 for a moderator; upholding applies them, exactly', async () => {
      const player = await createTestPlayer(api.pool);
      const first = await created(player.serviceId, 'anticheat', critical);
      const second = await created(player.serviceId, 'anticheat', critical);
      const third = await created(player.serviceId, 'anticheat', critical);
      expect([first, second, third].map((r) => [r.penaltyApplied, r.penaltyHeld, r.status])).to.deep.equal([
        [20, 0, 'applied'],
        [20, 0, 'applied'],
        [0, 20, 'held'],
      ]);
      expect(third).to.include({ statusReason: 'studio_budget', trustScore: 60 });
      // A smaller report still fits in what is left of the budget; another studio has its own.
      expect(
        (await created(player.serviceId, 'afk', { isAfk: true, severity: 'low' })).penaltyApplied,
      ).to.equal(1);
      expect((await created(player.serviceId, 'anticheat', critical, other.headers)).penaltyApplied).to.equal(
        20,
      );
      expect(await trustScore(api.pool, player.serviceId)).to.equal(39);

      const caseId = await openCase(player.serviceId, 4);
      const detail = await call<{ heldPoints: number; priority: number }>(
        api.url,
        'GET',
        `/v1/admin/cases/${caseId}`,
        { spec: '/v1/admin/cases/{caseId}', headers: mod.headers },
      );
      expect(detail.body.heldPoints).to.equal(20);
      // 25 x critical + 5 x 2 games + 3 x 2 reporters (games, no reporterId) + 20 held / 2
      expect(detail.body.priority).to.equal(75 + 10 + 6 + 10);

      await resolve(caseId, 'upheld');
      expect(await trustScore(api.pool, player.serviceId)).to.equal(19);
      const { rows } = await api.pool.query<{ status: string; penalty_points: number }>(
        'SELECT status, penalty_points FROM offenses WHERE id = $1',
        [third.report._id],
      );
      expect(rows[0]).to.deep.equal({ status: 'released', penalty_points: 20 });
      const items = await expectHistoryMatchesScore(player.serviceId);
      expect(items[items.length - 1]).to.include({ reason: 'held_released', points: -20, caseId });
    });

    it('dismissing drops the held points and gives back the applied ones', async () => {
      const player = await createTestPlayer(api.pool);
      for (let i = 0; i < 3; i++) await created(player.serviceId, 'anticheat', critical);
      const caseId = await openCase(player.serviceId, 3);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(60);
      await resolve(caseId, 'dismissed');
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
      const { rows } = await api.pool.query<{ status: string; n: number }>(
        `SELECT o.status, count(*)::int AS n FROM offenses o JOIN players p ON p.id = o.player_id
          WHERE p.service_id = $1 GROUP BY o.status ORDER BY o.status`,
        [player.serviceId],
      );
      // The applied ones' points came back (restored); the held one's were never taken (dropped).
      expect(rows).to.deep.equal([
        { status: 'dropped', n: 1 },
        { status: 'restored', n: 2 },
      ]);
      const items = await expectHistoryMatchesScore(player.serviceId);
      expect(items.map((h) => h.reason)).to.deep.equal(['offense', 'offense', 'dismissal']);
    });

    it('a flood of 100 reports from one studio takes at most the budget; the rest is held', async () => {
      const player = await createTestPlayer(api.pool);
      const results = await Promise.all(
        Array.from({ length: 100 }, () => submit(player.serviceId, 'anticheat', critical)),
      );
      expect(results.every((r) => r.status === 201)).to.equal(true);
      const applied = results.reduce((sum, r) => sum + r.body.penaltyApplied, 0);
      const held = results.reduce((sum, r) => sum + r.body.penaltyHeld, 0);
      expect(applied).to.equal(40);
      expect(held).to.equal(98 * 20);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(60);
    });
  });

  describe('reporter credibility and mute', () => {
    it("counts a reporter's outcomes, and holds player reports from a reporter mostly dismissed", async () => {
      const victim = await createTestPlayer(api.pool);
      for (let i = 0; i < 5; i++)
        await created(victim.serviceId, 'toxicity', {
          isToxic: true,
          reporterId: 'cried-wolf',
          matchId: `m-${i}`,
          source: 'player',
        });
      await resolve(await openCase(victim.serviceId, 5), 'dismissed');
      const { rows } = await api.pool.query(
        'SELECT upheld, dismissed FROM reporters WHERE studio_id = $1 AND reporter_id = $2',
        [tenant.studioId, 'cried-wolf'],
      );
      expect(rows[0]).to.deep.equal({ upheld: 0, dismissed: 5 });

      const next = await createTestPlayer(api.pool);
      const held = await created(next.serviceId, 'toxicity', {
        isToxic: true,
        severity: 'high',
        reporterId: 'cried-wolf',
        source: 'player',
      });
      expect(held).to.include({ status: 'held', statusReason: 'reporter_credibility', penaltyApplied: 0 });
      expect(held.penaltyHeld).to.equal(7);
      // A game server's report naming the same reporter is not a player's word: applied.
      const server = await created(next.serviceId, 'toxicity', {
        isToxic: true,
        severity: 'high',
        reporterId: 'cried-wolf',
        matchId: 'server-1',
        source: 'game_server',
      });
      expect(server.status).to.equal('applied');
    });

    it('a muted reporter: reports stored, no points, no case; shown in case detail', async () => {
      const player = await createTestPlayer(api.pool);
      await created(player.serviceId, 'griefing', { isGriefing: true, reporterId: 'noisy', matchId: 'a' });
      const caseId = await openCase(player.serviceId, 1);
      const mute = await call<{ muted: boolean; reporterId: string }>(
        api.url,
        'POST',
        `/v1/admin/studios/${tenant.studioId}/reporters/noisy/mute`,
        {
          spec: '/v1/admin/studios/{studioId}/reporters/{reporterId}/mute',
          headers: mod.headers,
          json: { note: 'brigading' },
        },
      );
      expect(mute.status, mute.text).to.equal(200);
      expect(mute.body).to.include({ muted: true, reporterId: 'noisy' });
      const before = await trustScore(api.pool, player.serviceId);
      const muted = await created(player.serviceId, 'griefing', {
        isGriefing: true,
        severity: 'critical',
        reporterId: 'noisy',
        matchId: 'b',
      });
      expect(muted).to.include({ status: 'recorded', statusReason: 'reporter_muted', penaltyApplied: 0 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(before);
      const detail = await call<{
        reportsCount: number;
        reporters: { reporterId: string; muted: boolean }[];
      }>(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
        spec: '/v1/admin/cases/{caseId}',
        headers: mod.headers,
      });
      expect(detail.body.reporters).to.deep.include({
        ...detail.body.reporters[0]!,
        reporterId: 'noisy',
        muted: true,
      });
      // The review worker leaves it out of the case (give it time to have filed it if it would).
      await eventually('the muted report was looked at', async () => {
        const { rows } = await api.pool.query(
          "SELECT 1 FROM outbox WHERE job_id LIKE '%' || $1 AND sent_at IS NOT NULL",
          [muted.report._id],
        );
        return rows.length > 0 || undefined;
      });
      await new Promise((r) => setTimeout(r, 500));
      const { rows } = await api.pool.query('SELECT reports_count FROM review_cases WHERE id = $1', [caseId]);
      expect(rows[0]).to.deep.equal({ reports_count: 1 });
    });

    it('a report whose flag is false is stored but opens no case', async () => {
      const player = await createTestPlayer(api.pool);
      const res = await created(player.serviceId, 'afk', { isAfk: false });
      expect(res).to.include({ status: 'recorded', statusReason: 'no_finding', penaltyApplied: 0 });
      await created(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'low' });
      await openCase(player.serviceId, 1); // the anti-cheat one
      await new Promise((r) => setTimeout(r, 300));
      const { rows } = await api.pool.query(
        `SELECT c.type FROM review_cases c JOIN players p ON p.id = c.player_id WHERE p.service_id = $1`,
        [player.serviceId],
      );
      expect(rows).to.deep.equal([{ type: 'cheating' }]);
    });
  });

  describe('the history of the score', () => {
    it('lists every change newest first, in pages; another studio sees the summary view', async () => {
      const player = await createTestPlayer(api.pool);
      const mine = await created(player.serviceId, 'anticheat', critical);
      await created(player.serviceId, 'afk', { isAfk: true, severity: 'critical' }, other.headers);
      const items = await history(player.serviceId);
      expect(items.map((h) => [h.reason, h.points, h.visibility])).to.deep.equal([
        ['offense', -5, 'summary'],
        ['offense', -20, 'full'],
      ]);
      expect(items[1]!.offenseId).to.equal(mine.report._id);
      const theirs = await history(player.serviceId, other.headers);
      expect(theirs.map((h) => h.visibility)).to.deep.equal(['full', 'summary']);
      const bad = await call(api.url, 'GET', `/v1/player/${player.serviceId}/trust-history?cursor=nope`, {
        spec: '/v1/player/{serviceId}/trust-history',
        headers: tenant.headers,
      });
      expect(bad.status).to.equal(400);
      const missing = await call(api.url, 'GET', '/v1/player/nobody-at-all/trust-history', {
        spec: '/v1/player/{serviceId}/trust-history',
        headers: tenant.headers,
      });
      expect(missing.status).to.equal(404);
    });

    it('recovery: a point back per 7 clean days, idempotent, never above 100, recorded', async () => {
      const player = await createTestPlayer(api.pool);
      await created(player.serviceId, 'afk', { isAfk: true, severity: 'critical' }); // 5 points
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: other.game.clientId });
      const hook = await insertWebhook(api.pool, {
        studioId: other.studioId,
        url: 'https://hooks.example/recovery',
        events: ['trust.changed'],
        sealedSecret: Buffer.from('sealed'),
      });
      const { rows } = await api.pool.query<{ from: Date }>(
        'SELECT recovery_from AS from FROM players WHERE service_id = $1',
        [player.serviceId],
      );
      const offenseAt = rows[0]!.from.getTime();
      const day = 86_400_000;
      const at = (days: number) => new Date(offenseAt + days * day + 1000);

      await recoverTrust(api.pool, { now: at(6), daysPerPoint: 7 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(95);
      await recoverTrust(api.pool, { now: at(15), daysPerPoint: 7 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(97);
      await recoverTrust(api.pool, { now: at(15), daysPerPoint: 7 }); // again at the same time: nothing
      expect(await trustScore(api.pool, player.serviceId)).to.equal(97);
      await recoverTrust(api.pool, { now: at(21), daysPerPoint: 7 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(98);
      await recoverTrust(api.pool, { now: at(400), daysPerPoint: 7 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
      const items = await expectHistoryMatchesScore(player.serviceId);
      expect(items.map((h) => [h.reason, h.points])).to.deep.equal([
        ['offense', -5],
        ['recovery', 2],
        ['recovery', 1],
        ['recovery', 2],
      ]);
      // Off: nothing.
      expect(await recoverTrust(api.pool, { now: at(800), daysPerPoint: 0 })).to.deep.equal({
        players: 0,
        points: 0,
        outbox: [],
      });
      // The player's games' studios heard of each point earned back.
      const { rows: told } = await api.pool.query(
        `SELECT d.payload->'data' AS data FROM webhook_deliveries d
          WHERE d.webhook_id = $1 AND d.event_type = 'trust.changed'
            AND d.payload->'data'->>'reason' = 'recovery' ORDER BY d.created_at`,
        [hook.id],
      );
      expect(
        told.map((t: { data: { reason: string; trustScoreAfter: number } }) => [
          t.data.reason,
          t.data.trustScoreAfter,
        ]),
      ).to.deep.equal([
        ['recovery', 97],
        ['recovery', 98],
        ['recovery', 100],
      ]);
    });
  });

  describe('privacy', () => {
    it('a report never links the reporting game to the player: another studio sees nothing of the filer', async () => {
      const player = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: other.game.clientId });
      await created(player.serviceId, 'anticheat', critical);
      const seen = await call<{ games: { gameTitle: string }[]; offenses: Record<string, unknown>[] }>(
        api.url,
        'GET',
        `/v1/player/${player.serviceId}`,
        { spec: '/v1/player/{serviceId}', headers: other.headers },
      );
      expect(seen.body.games.map((g) => g.gameTitle)).to.deep.equal([other.game.title]);
      expect(seen.text).not.to.include(tenant.game.title);
      expect(seen.text).not.to.include(tenant.game.id);
      expect(seen.text).not.to.include(tenant.studioId);
      expect(seen.body.offenses[0]).to.include({ visibility: 'summary' });
      expect(await studiosOfPlayer(api.pool, player.serviceId)).to.deep.equal([other.studioId]);
    });

    it("the profile's cursor loses no offense when reports share a millisecond", async () => {
      const player = await createTestPlayer(api.pool);
      await setGameLimits(api.pool, { clientId: tenant.game.clientId, limits: { studioBudget: 100 } });
      try {
        await Promise.all(
          Array.from({ length: 40 }, () => created(player.serviceId, 'afk', { isAfk: false })),
        );
        for (let i = 0; i < 8; i++) await created(player.serviceId, 'afk', { isAfk: false });
      } finally {
        await setGameLimits(api.pool, { clientId: tenant.game.clientId, limits: { studioBudget: null } });
      }
      const profile = await call<{ offenses: { _id: string }[]; offensesNextCursor: string | null }>(
        api.url,
        'GET',
        `/v1/player/${player.serviceId}`,
        { spec: '/v1/player/{serviceId}', headers: tenant.headers },
      );
      const ids = profile.body.offenses.map((o) => o._id);
      let cursor = profile.body.offensesNextCursor;
      while (cursor) {
        const page: { body: { items: { _id: string }[]; nextCursor: string | null } } = await call(
          api.url,
          'GET',
          `/v1/player/${player.serviceId}/offenses?limit=7&cursor=${cursor}`,
          { spec: '/v1/player/{serviceId}/offenses', headers: tenant.headers },
        );
        ids.push(...page.body.items.map((o) => o._id));
        cursor = page.body.nextCursor;
      }
      expect(new Set(ids).size).to.equal(48);
      expect(ids).to.have.length(48);
    });
  });
});

describe('rate limits per client', function () {
  this.timeout(60_000);
  let api: TestApi;
  let flooder: Tenant;
  let bystander: Tenant;

  before(async () => {
    api = await startTestApi({ RATE_LIMIT_REPORTS_PER_SECOND: '5', RATE_LIMIT_REPORTS_BURST: '5' });
    [flooder, bystander] = [await createTenant(api.pool), await createTenant(api.pool)];
  });
  after(() => api.close());

  const report = (serviceId: string, headers: Record<string, string>) =>
    call<{ code?: string }>(api.url, 'POST', `/v1/afk/submitReport/${serviceId}`, {
      spec: '/v1/afk/submitReport/{serviceId}',
      headers,
      json: { report: { isAfk: false } },
    });

  it('a flood from one client is answered 429 rate_limited with Retry-After; another client is unaffected', async () => {
    const player = await createTestPlayer(api.pool);
    const flood = await Promise.all(
      Array.from({ length: 40 }, () => report(player.serviceId, flooder.headers)),
    );
    const accepted = flood.filter((r) => r.status === 201);
    const refused = flood.filter((r) => r.status === 429);
    expect(accepted.length + refused.length).to.equal(40);
    // 5 a second plus a burst of 5 (a second boundary may fall inside the flood: one more second's 5).
    expect(accepted.length).to.be.within(10, 15);
    expect(refused[0]!.body.code).to.equal('rate_limited');
    expect(Number(refused[0]!.headers.get('retry-after'))).to.be.within(1, 10);
    expect(refused[0]!.headers.get('content-type')).to.match(/problem\+json/);
    for (const r of flood) {
      expect(r.headers.get('ratelimit-policy')).to.equal('"reports";q=5;w=1, "reports-burst";q=5;w=10');
      expect(r.headers.get('ratelimit')).to.match(/^"reports";r=\d+;t=\d+$/);
    }
    expect(await offenseCount(api.pool, player.serviceId)).to.equal(accepted.length);

    const other = await report(player.serviceId, bystander.headers);
    expect(other.status).to.equal(201);
    // Reads have a bucket of their own.
    const read = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
      spec: '/v1/player/{serviceId}',
      headers: flooder.headers,
    });
    expect(read.status).to.equal(200);
    expect(read.headers.get('ratelimit-policy')).to.match(/^"reads";q=500;w=1/);
  });

  it("the admin tool's per-game limits lift one game's rate", async () => {
    const busy = await createTenant(api.pool);
    await setGameLimits(api.pool, {
      clientId: busy.game.clientId,
      limits: { reportsPerSecond: 1000, reportsBurst: 0 },
    });
    // The client lookup is cached: a new API sees the change at once.
    const fresh = await startTestApi({ RATE_LIMIT_REPORTS_PER_SECOND: '5', RATE_LIMIT_REPORTS_BURST: '5' });
    try {
      const player = await createTestPlayer(fresh.pool);
      const results = await Promise.all(
        Array.from({ length: 30 }, () =>
          call(fresh.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
            spec: '/v1/afk/submitReport/{serviceId}',
            headers: busy.headers,
            json: { report: { isAfk: false } },
          }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(30).fill(201));
      expect(results[0]!.headers.get('ratelimit-policy')).to.match(/^"reports";q=1000;w=1/);
    } finally {
      await fresh.close();
    }
  });

  it('a request the service failed (5xx) gives its points back: retries of 503s during an outage cost no budget', async () => {
    const databaseUrl = (await testServices()).databaseUrl;
    const proxy = CuttableProxy.forUrl(databaseUrl);
    await proxy.open();
    const api2 = await startTestApi({
      DATABASE_URL: proxy.url(databaseUrl),
      RATE_LIMIT_REPORTS_PER_SECOND: '3',
      RATE_LIMIT_REPORTS_BURST: '0',
      STARTUP_WAIT_SECONDS: '5',
    });
    try {
      const tenant = await createTenant(api2.pool);
      const player = await createTestPlayer(api2.pool);
      const report = () =>
        call(api2.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
          spec: '/v1/afk/submitReport/{serviceId}',
          headers: tenant.headers,
          json: { report: { isAfk: true } },
        });
      expect((await report()).status).to.equal(201); // the client is known (its lookup cached)
      await new Promise((r) => setTimeout(r, 1100)); // a fresh one-second window
      await proxy.cut();
      const during: number[] = [];
      for (let i = 0; i < 8; i++) during.push((await report()).status);
      expect(during).to.deep.equal(Array(8).fill(503)); // never 429: each failed one was given back
      await proxy.open();
      const after = [(await report()).status, (await report()).status];
      expect(after).to.deep.equal([201, 201]);
    } finally {
      await api2.close();
      await proxy.cut();
    }
  });

  it('fails open when Redis is unreachable: reports are accepted, counted in a metric and logged once', async () => {
    const proxy = CuttableProxy.forUrl((await testServices()).redisUrl);
    await proxy.open();
    const blind = await startTestApi({ REDIS_URL: proxy.url(), RATE_LIMIT_TIMEOUT_MS: '50' });
    try {
      const tenant = await createTenant(blind.pool);
      const player = await createTestPlayer(blind.pool);
      await proxy.cut();
      for (let i = 0; i < 3; i++) {
        const res = await call(blind.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
          spec: '/v1/afk/submitReport/{serviceId}',
          headers: tenant.headers,
          json: { report: { isAfk: true } },
        });
        expect(res.status).to.equal(201);
        expect(res.headers.get('ratelimit')).to.equal(null);
      }
      const metrics = await (await fetch(`${blind.url}/metrics`)).text();
      expect(metrics).to.match(/player_trust_rate_limiter_unavailable_total\{group="reports"\} 3/);
      const warnings = blind.logs.lines.filter((l) => String(l.msg).startsWith('rate limiter unavailable'));
      expect(warnings).to.have.length(1);
    } finally {
      await blind.close();
      await proxy.cut();
    }
  });
});
