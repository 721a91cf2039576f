import { expect } from 'chai';
import { createPool, withRetries, type Pool } from '../../common/data/db.js';
import { GroupCommit } from '../../common/data/group-commit.js';
import { recordReports, type RecordOutcome, type ReportToRecord } from '../../common/data/repos/offenses.js';
import {
  createTenant,
  createTestPlayer,
  offenseCount,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { reportItem } from '../helpers/reports.js';
import { testServices } from '../helpers/services.js';

describe('group commit of reports', function () {
  this.timeout(60_000);
  let pool: Pool;
  let tenant: Tenant;

  before(async () => {
    pool = createPool((await testServices()).databaseUrl, 10);
    tenant = await createTenant(pool, 'Group');
  });
  after(() => pool.end());

  const item = (serviceId: string, severity: 'low' | 'medium' | 'high' | 'critical'): ReportToRecord =>
    reportItem(tenant, serviceId, 'griefing', { isGriefing: true, severity }, { studioBudget: 100 });

  it('reports submitted together share statements, and each player sees its reports in arrival order', async () => {
    const players = await Promise.all(Array.from({ length: 3 }, () => createTestPlayer(pool)));
    const batches: number[] = [];
    let calls = 0;
    const group = new GroupCommit<ReportToRecord, RecordOutcome>(
      async (items) => {
        // The first batch is slow to reach the database: a second batch in flight must not overtake
        // it on the same players.
        if (calls++ === 0) await new Promise((r) => setTimeout(r, 100));
        return withRetries(() => recordReports(pool, items));
      },
      { maxBatch: 25, maxInFlight: 2, keyOf: (i) => i.serviceId, onBatch: (n) => batches.push(n) },
    );
    const severities = ['low', 'medium', 'high', 'critical'] as const;
    const submitted = Array.from({ length: 60 }, (_, i) => ({
      player: players[i % 3]!.serviceId,
      item: item(players[i % 3]!.serviceId, severities[i % 4]!),
    }));
    const outcomes = await Promise.all(submitted.map((s) => group.submit(s.item)));
    expect(batches.reduce((a, b) => a + b, 0)).to.equal(60);
    expect(batches.length).to.be.at.most(6); // 60 reports, not 60 statements
    expect(Math.max(...batches)).to.be.at.most(25);
    for (const p of players) {
      let score = 100;
      outcomes.forEach((o, i) => {
        if (submitted[i]!.player !== p.serviceId) return;
        if (o.status !== 'created') throw new Error(o.status);
        // Each report sees the score its predecessors left (floored at 0; past the studio's budget
        // of 100 a report is held instead), so the answers form one serial chain per player.
        const penalty = submitted[i]!.item.penalty;
        const held = o.offense.status === 'held';
        expect(o.offense.penaltyPoints).to.equal(held ? 0 : Math.min(penalty, score));
        expect(o.offense.penaltyHeld).to.equal(held ? penalty : 0);
        expect(o.trustScore).to.equal(score - o.offense.penaltyPoints);
        score = o.trustScore;
      });
      expect(await trustScore(pool, p.serviceId)).to.equal(score);
    }
  });

  it("one report's fault fails only that report; an unknown player only its own", async () => {
    const player = await createTestPlayer(pool);
    const group = new GroupCommit<ReportToRecord, RecordOutcome>((items) => recordReports(pool, items), {
      maxBatch: 10,
      maxInFlight: 1,
      isolate: (err) => /^2[23]/.test((err as { code?: string }).code ?? ''),
    });
    const bad = item(player.serviceId, 'low');
    // A type the offenses table refuses (its check constraint): a statement error of this item alone.
    const broken = { ...bad, report: { ...bad.report, type: 'bogus' as never } };
    const results = await Promise.allSettled([
      group.submit(item(player.serviceId, 'low')),
      group.submit(broken),
      group.submit(item('nobody-at-all', 'low')),
      group.submit(item(player.serviceId, 'medium')),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<RecordOutcome>).value.status).to.equal('not_found');
    expect(((results[1] as PromiseRejectedResult).reason as { code: string }).code).to.equal('23514');
    expect(await offenseCount(pool, player.serviceId)).to.equal(2);
    expect(await trustScore(pool, player.serviceId)).to.equal(100 - 3 - 6);
  });
});

describe('POST /v1/reports/batch', function () {
  this.timeout(60_000);
  let api: TestApi;
  let tenant: Tenant;

  before(async () => {
    api = await startTestApi();
    tenant = await createTenant(api.pool, 'Bulk');
  });
  after(() => api.close());

  const batch = (reports: unknown[], headers = tenant.headers) =>
    call<{ results: { status: number; body: Record<string, unknown> }[]; code?: string }>(
      api.url,
      'POST',
      '/v1/reports/batch',
      { spec: '/v1/reports/batch', headers, json: { reports } },
    );

  it('answers each report in order as the single endpoint would; a failed one applies nothing', async () => {
    const [a, b] = [await createTestPlayer(api.pool), await createTestPlayer(api.pool)];
    const res = await batch([
      { kind: 'anticheat', serviceId: a.serviceId, report: { isCheatDetected: true, severity: 'high' } },
      { kind: 'toxicity', serviceId: a.serviceId, report: { isToxic: true, severity: 'nope' } },
      { kind: 'afk', serviceId: 'no-such-player', report: { isAfk: true } },
      { kind: 'griefing', serviceId: b.serviceId, report: { isGriefing: true }, idempotencyKey: 'bulk-1' },
      {
        kind: 'toxicity',
        serviceId: a.serviceId,
        report: { isToxic: true, reporterId: 'r1', matchId: 'm1' },
      },
      {
        kind: 'toxicity',
        serviceId: a.serviceId,
        report: { isToxic: true, reporterId: 'r1', matchId: 'm1' },
      },
    ]);
    expect(res.status, res.text).to.equal(207);
    expect(res.body.results.map((r) => r.status)).to.deep.equal([201, 400, 404, 201, 201, 409]);
    expect(res.body.results[0]!.body).to.include({ penaltyApplied: 15, trustScore: 85, status: 'applied' });
    expect(res.body.results[1]!.body).to.include({ code: 'validation_failed' });
    expect(res.body.results[2]!.body).to.include({ code: 'not_found' });
    expect(res.body.results[5]!.body).to.include({ code: 'duplicate_report' });
    expect(await offenseCount(api.pool, a.serviceId)).to.equal(2);
    expect(await trustScore(api.pool, a.serviceId)).to.equal(85 - 4);

    // The same Idempotency-Key again, alone or in a batch: a replay, nothing applied twice.
    const again = await batch([
      { kind: 'griefing', serviceId: b.serviceId, report: { isGriefing: true }, idempotencyKey: 'bulk-1' },
    ]);
    expect(again.body.results[0]).to.deep.include({ status: 201, replayed: true });
    expect(await offenseCount(api.pool, b.serviceId)).to.equal(1);
  });

  it('refuses a malformed envelope as a whole: 400 and nothing stored', async () => {
    const player = await createTestPlayer(api.pool);
    const one = { kind: 'afk', serviceId: player.serviceId, report: { isAfk: true } };
    for (const reports of [[], Array(101).fill(one), [{ ...one, kind: 'spam' }], [{ ...one, extra: 1 }]]) {
      const res = await batch(reports);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
    }
    expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
  });

  it('counts reports, not requests, against the rate limit', async () => {
    const limited = await startTestApi({
      RATE_LIMIT_REPORTS_PER_SECOND: '10',
      RATE_LIMIT_REPORTS_BURST: '0',
    });
    try {
      const t = await createTenant(limited.pool);
      const player = await createTestPlayer(limited.pool);
      const twelve = Array.from({ length: 12 }, () => ({
        kind: 'afk',
        serviceId: player.serviceId,
        report: { isAfk: false },
      }));
      const res = await call<{ code: string }>(limited.url, 'POST', '/v1/reports/batch', {
        spec: '/v1/reports/batch',
        headers: t.headers,
        json: { reports: twelve },
      });
      expect(res.status).to.equal(429);
      expect(res.body.code).to.equal('rate_limited');
      expect(await offenseCount(limited.pool, player.serviceId)).to.equal(0);
    } finally {
      await limited.close();
    }
  });
});
