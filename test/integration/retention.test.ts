import { expect } from 'chai';
import crypto from 'node:crypto';
import type { Job } from 'bullmq';
import pg from 'pg';
import {
  RETENTION_LOCK,
  runRetention,
  runRetentionOnce,
  type KindResult,
} from '../../common/lifecycles/retention.js';
import { createLogger } from '../../common/logger.js';
import { WorkerMetrics } from '../../common/metrics.js';
import { JOB_NAMES } from '../../common/queues/index.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { reviewProcessor } from '../../worker/processors/review.js';
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
import { ownDatabase } from '../helpers/services.js';
import { startTestWorker } from '../helpers/workers.js';

const DAY = 86_400_000;
const byKind = (results: KindResult[]) => Object.fromEntries(results.map((r) => [r.kind, r.rows]));

/**
 * Issue 36: retention removes exactly what is past each kind's window (docs/compliance.md "Personal data"), in
 * batches, and keeps what a decision still stands on: the evidence of a case still open, of a report
 * under an appeal still pending. A dry run says what a run removes and changes nothing.
 */
describe('retention (GDPR Art. 5(1)(e))', function () {
  this.timeout(120_000);
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  const offense: Record<'old' | 'fresh' | 'openCase' | 'appealed', string> = {
    old: '',
    fresh: '',
    openCase: '',
    appealed: '',
  };
  let oldCase: string;
  let admin: TestModerator;
  let mod: TestModerator;

  before(async () => {
    db = await ownDatabase('retention');
    api = await startTestApi({ DATABASE_URL: db.url });
    [admin, mod] = [await createTestModerator(api, 'admin'), await createTestModerator(api)];
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Retention');
    const players = [];
    for (let i = 0; i < 3; i++) {
      const p = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
      players.push(p.serviceId);
    }
    const report = async (serviceId: string, n: string) => {
      const res = await call<{ report: { _id: string } }>(
        api.url,
        'POST',
        `/v1/toxicity/submitReport/${serviceId}`,
        {
          spec: '/v1/toxicity/submitReport/{serviceId}',
          headers: studio.headers,
          json: {
            report: {
              isToxic: true,
              severity: 'medium',
              description: `words ${n}`,
              reporterId: `reporter-${n}`,
              matchId: `match-${n}`,
              messages: [`chat ${n}`],
            },
          },
        },
      );
      expect(res.status, res.text).to.equal(201);
      return res.body.report._id;
    };
    offense.old = await report(players[0]!, 'old');
    offense.openCase = await report(players[1]!, 'open');
    offense.appealed = await report(players[2]!, 'appealed');
    await eventually('the cases filed', async () => {
      const { rows } = await api.pool.query('SELECT 1 FROM case_offenses');
      return rows.length === 3;
    });
    const appeal = await call(api.url, 'POST', `/v1/player/${players[2]}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: studio.headers,
      json: { offenseId: offense.appealed, reason: 'incorrect', statement: 'not me' },
    });
    expect(appeal.status, appeal.text).to.equal(201);
    // The ages: the first player's report and case long past; the others' reports as old, but one in
    // a case still open and one under an appeal still pending (its case closed recently).
    await api.pool.query(
      `UPDATE offenses SET created_at = now() - interval '400 days' WHERE id = ANY($1::uuid[])`,
      [[offense.old, offense.openCase, offense.appealed]],
    );
    const { rows: cases } = await api.pool.query<{ case_id: string; offense_id: string }>(
      'SELECT case_id, offense_id FROM case_offenses',
    );
    const caseOf = (id: string) => cases.find((c) => c.offense_id === id)!.case_id;
    oldCase = caseOf(offense.old);
    await api.pool.query(
      `UPDATE review_cases SET status = 'resolved', outcome = 'dismissed', resolution_note = 'noted',
              resolved_at = now() - CASE WHEN id = $1 THEN interval '800 days' ELSE interval '1 day' END
        WHERE id = ANY($2::uuid[])`,
      [oldCase, [oldCase, caseOf(offense.appealed)]],
    );
    offense.fresh = await report(players[0]!, 'fresh');
    // Trust history and the audit log: their two first rows past the window.
    await api.pool.query(
      `UPDATE trust_history SET created_at = now() - interval '800 days'
        WHERE id IN (SELECT id FROM trust_history ORDER BY id LIMIT 2)`,
    );
    const { rows: mods } = await api.pool.query<{ id: string }>(
      `INSERT INTO moderators (username, display_name, password_hash, role)
       VALUES ($1, 'Retention', 'x', 'moderator') RETURNING id`,
      [`ret-${crypto.randomBytes(4).toString('hex')}`],
    );
    for (const age of [1200, 1100, 10])
      await api.pool.query(
        `INSERT INTO moderation_audit (moderator_id, case_id, action, created_at)
         VALUES ($1, $2, 'claim', now() - make_interval(days => $3))`,
        [mods[0]!.id, oldCase, age],
      );
    // Art. 23 records, kept as long as the audit log: an old mark and an old warning are due; a fresh
    // mark and a suspension still running are not.
    for (const [id, age] of [
      [offense.old, 1200],
      [offense.appealed, 10],
    ] as const)
      await api.pool.query(
        `INSERT INTO misuse_marks (sender_key, offense_id, moderator_id, note, created_at)
         VALUES ('reporter:x:y', $1, $2, 'unfounded', now() - make_interval(days => $3))`,
        [id, mods[0]!.id, age],
      );
    await api.pool.query(
      `INSERT INTO misuse_measures (sender_key, kind, marks, created_at, ends_at) VALUES
         ('reporter:x:y', 'warning', 3, now() - interval '1200 days', NULL),
         ('reporter:x:y', 'suspension', 5, now() - interval '1 day', now() + interval '29 days')`,
    );
    const { rows: p0 } = await api.pool.query<{ id: string }>(
      'SELECT id FROM players WHERE service_id = $1',
      [players[0]],
    );
    for (const days of [3, -1])
      await api.pool.query(
        `INSERT INTO authorization_codes (code_hash, game_id, player_id, redirect_uri, redirect_uri_explicit,
                                          code_challenge, scope, expires_at)
         VALUES ($1, $2, $3, 'https://game.example/callback', true, NULL, 'profile', now() - make_interval(days => $4))`,
        [crypto.randomBytes(32), studio.game.id, p0[0]!.id, days],
      );
    const sanctions = [];
    for (const serviceId of [players[0], players[1]]) {
      const s = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
        spec: '/v1/player/{serviceId}/sanctions',
        headers: studio.headers,
        json: { type: 'chat_restriction', reason: 'spam', durationSeconds: 3600 },
      });
      sanctions.push(s.body.id);
    }
    for (const [i, days] of [100, 10].entries())
      await api.pool.query(
        `INSERT INTO transparency_statements (sanction_id, platform, puid, state, body, sent_at)
         VALUES ($1::uuid, 'operator', 'sanction-' || $1::text, 'sent', '{"decision_ground": "x"}', now() - make_interval(days => $2))`,
        [sanctions[i], days],
      );
  });
  // A notice about the first player, filed long ago: its notifier's contact is due; the notice's own
  // words are in a case still open (the fresh report's), so they stay.
  before(async () => {
    const sent = await call<{ noticeId: string }>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      json: {
        gameId: studio.game.id,
        player: (
          await api.pool.query<{ s: string }>(
            `SELECT p.service_id AS s FROM offenses o JOIN players p ON p.id = o.player_id WHERE o.id = $1`,
            [offense.fresh],
          )
        ).rows[0]!.s,
        category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
        explanation: 'Sold fake skins for real money in the trade chat.',
        name: 'Old Notifier',
        email: 'old-notifier@example.org',
        goodFaith: true,
      },
    });
    expect(sent.status, sent.text).to.equal(201);
    await eventually('the notice filed', async () => {
      const { rows } = await api.pool.query(
        'SELECT 1 FROM notices n JOIN case_offenses co ON co.offense_id = n.offense_id WHERE n.id = $1',
        [sent.body.noticeId],
      );
      return rows.length === 1;
    });
    await api.pool.query(`UPDATE notices SET created_at = now() - interval '400 days'`);
  });
  after(async () => {
    await review?.stop();
    await api?.close();
    await db?.drop();
  });

  const contentOf = async (id: string) =>
    (
      await api.pool.query<{
        description: string;
        evidence: unknown[];
        context: object;
        reporter_id: string | null;
      }>('SELECT description, evidence, context, reporter_id, match_id FROM offenses WHERE id = $1', [id])
    ).rows[0]!;

  const expected = {
    evidence: 1,
    reportText: 1,
    resolvedCases: 1,
    trustHistory: 2,
    audit: 2,
    signIns: 1,
    transparencyPayloads: 1,
    notifierContacts: 1,
    misuseRecords: 2,
  };

  it('a dry run says what is due, kind by kind, and changes nothing', async () => {
    const before = await contentOf(offense.old);
    const results = await runRetention(api.pool, api.config.retentionDays, { dryRun: true });
    expect(byKind(results)).to.deep.equal(expected);
    expect(await contentOf(offense.old)).to.deep.equal(before);
    expect(results.find((r) => r.kind === 'evidence')!.windowDays).to.equal(365);
  });

  it('an admin sees the same through the API (and the console): windows, what is due, nothing changed', async () => {
    const denied = await call(api.url, 'GET', '/v1/admin/retention', {
      spec: '/v1/admin/retention',
      headers: mod.headers,
    });
    expect(denied.status).to.equal(403);
    const before = await contentOf(offense.old);
    const res = await call<{
      intervalMs: number;
      kinds: { kind: string; wouldRemove: number; windowDays: number; what: string }[];
      runs: unknown[];
    }>(api.url, 'GET', '/v1/admin/retention', { spec: '/v1/admin/retention', headers: admin.headers });
    expect(res.status, res.text).to.equal(200);
    expect(Object.fromEntries(res.body.kinds.map((k) => [k.kind, k.wouldRemove]))).to.deep.equal(expected);
    expect(res.body.kinds.every((k) => k.what.length > 0)).to.equal(true);
    expect(res.body.intervalMs).to.equal(api.config.retentionIntervalMs);
    // Only the schedule's runs so far (the review worker runs one as it starts).
    expect(res.body.runs.every((r) => (r as { requestedBy: string }).requestedBy === 'schedule')).to.equal(
      true,
    );
    const dry = await call<{ dryRun: boolean; kinds: { kind: string; wouldRemove: number }[] }>(
      api.url,
      'POST',
      '/v1/admin/retention/runs',
      { spec: '/v1/admin/retention/runs', headers: admin.headers, json: { dryRun: true } },
    );
    expect(dry.status, dry.text).to.equal(200);
    expect(Object.fromEntries(dry.body.kinds.map((k) => [k.kind, k.wouldRemove]))).to.deep.equal(expected);
    const bad = await call(api.url, 'POST', '/v1/admin/retention/runs', {
      spec: '/v1/admin/retention/runs',
      headers: admin.headers,
      json: { dryRun: 'maybe' },
    });
    expect(bad.status).to.equal(400);
    expect(await contentOf(offense.old)).to.deep.equal(before);
    const { rows } = await api.pool.query(`SELECT 1 FROM retention_runs WHERE requested_by <> 'schedule'`);
    expect(rows, 'a dry run is not recorded').to.deep.equal([]);
  });

  it('a run removes exactly that, in batches; what an open case or a pending appeal stands on stays', async () => {
    const audited = (await api.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM moderation_audit'))
      .rows[0]!.n;
    const results = await runRetention(api.pool, api.config.retentionDays, { batchSize: 1 });
    expect(byKind(results)).to.deep.equal(expected);
    const old = await contentOf(offense.old);
    expect(old).to.deep.equal({
      description: '',
      evidence: [],
      // Whether it was a person's report stays, for the transparency report.
      context: { source: 'player' },
      reporter_id: null,
      match_id: null,
    });
    for (const kept of [offense.openCase, offense.appealed, offense.fresh]) {
      const c = await contentOf(kept);
      expect(c.description, kept).to.match(/^words /);
      expect(c.evidence, kept).to.have.length(1);
      expect(c.reporter_id, kept).to.match(/^reporter-/);
    }
    const { rows } = await api.pool.query<{ note: string | null; reporters: number; reduced: boolean }>(
      `SELECT resolution_note AS note, reduced_at IS NOT NULL AS reduced,
              (SELECT count(*)::int FROM case_reporters WHERE case_id = $1) AS reporters
         FROM review_cases WHERE id = $1`,
      [oldCase],
    );
    expect(rows[0]).to.deep.equal({ note: null, reduced: true, reporters: 0 });
    const { rows: left } = await api.pool.query<{ audit: number; codes: number; bodies: number }>(
      `SELECT (SELECT count(*)::int FROM moderation_audit) AS audit,
              (SELECT count(*)::int FROM authorization_codes) AS codes,
              (SELECT count(*)::int FROM transparency_statements WHERE body IS NOT NULL) AS bodies`,
    );
    expect(left[0]).to.deep.equal({ audit: audited - 2, codes: 1, bodies: 1 });
    const { rows: notifier } = await api.pool.query(
      'SELECT notifier_name, notifier_email, category FROM notices',
    );
    expect(notifier).to.deep.equal([
      { notifier_name: null, notifier_email: null, category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD' },
    ]);
    // Nothing is due any more.
    const again = await runRetention(api.pool, api.config.retentionDays);
    expect(
      Object.values(byKind(again)).every((n) => n === 0),
      JSON.stringify(byKind(again)),
    ).to.equal(true);
  });

  it('the scheduled job reports to metrics; a second run while one holds the lock skips', async () => {
    const metrics = new WorkerMetrics('admin-review');
    const run = reviewProcessor({
      pool: api.pool,
      log: createLogger('silent', 'test'),
      config: api.config,
      pepper: 'unused',
      dispatch: () => undefined,
      metrics,
    });
    const result = await run({ name: JOB_NAMES.retention, data: {} } as Job);
    expect(result).to.deep.equal({ purged: {} });
    const text = await metrics.registry.metrics();
    expect(text).to.match(/player_trust_retention_oldest_seconds\{kind="evidence"\} [1-9]/);

    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK]);
      expect(await runRetentionOnce(api.pool, api.config.retentionDays)).to.deep.equal({ skipped: true });
    } finally {
      await holder.end();
    }
    const ran = await runRetentionOnce(api.pool, api.config.retentionDays);
    expect(ran.skipped).to.equal(false);
  });

  it("a run asked through the API takes the same lock, is recorded and audited as the admin's", async () => {
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK]);
      const busy = await call(api.url, 'POST', '/v1/admin/retention/runs', {
        spec: '/v1/admin/retention/runs',
        headers: admin.headers,
        json: {},
      });
      expect(busy.status).to.equal(409);
      expect(busy.body).to.include({ code: 'retention_running' });
    } finally {
      await holder.end();
    }
    // A fresh sign-in record past its window: the run removes it, and says so.
    const { rows: p } = await api.pool.query<{ id: string }>('SELECT id FROM players LIMIT 1');
    await api.pool.query(
      `INSERT INTO authorization_codes (code_hash, game_id, player_id, redirect_uri, redirect_uri_explicit,
                                        code_challenge, scope, expires_at)
       VALUES ($1, $2, $3, 'https://game.example/callback', true, NULL, 'profile', now() - interval '3 days')`,
      [crypto.randomBytes(32), studio.game.id, p[0]!.id],
    );
    const ran = await call<{
      dryRun: boolean;
      id: string;
      requestedBy: string;
      moderator: { id: string } | null;
      removed: number;
      kinds: { kind: string; removed: number }[];
    }>(api.url, 'POST', '/v1/admin/retention/runs', {
      spec: '/v1/admin/retention/runs',
      headers: admin.headers,
    });
    expect(ran.status, ran.text).to.equal(200);
    expect(ran.body).to.include({ dryRun: false, requestedBy: 'admin', removed: 1 });
    expect(ran.body.moderator!.id).to.equal(admin.id);
    expect(ran.body.kinds.find((k) => k.kind === 'signIns')!.removed).to.equal(1);
    const overview = await call<{ runs: { id: string; requestedBy: string }[] }>(
      api.url,
      'GET',
      '/v1/admin/retention',
      { spec: '/v1/admin/retention', headers: admin.headers },
    );
    // Newest first: the admin's, then the scheduled job's of the test before.
    expect(overview.body.runs.map((r) => r.requestedBy).slice(0, 2)).to.deep.equal(['admin', 'schedule']);
    expect(overview.body.runs[0]!.id).to.equal(ran.body.id);
    const { rows: audit } = await api.pool.query<{ moderator_id: string; details: { runId: string } }>(
      `SELECT moderator_id, details FROM moderation_audit WHERE action = 'run_retention'`,
    );
    expect(audit).to.have.length(1);
    expect(audit[0]!.moderator_id).to.equal(admin.id);
    expect(audit[0]!.details).to.deep.include({ runId: ran.body.id, removed: { signIns: 1 } });
  });

  it('windows are settings: a shorter one takes what the default keeps', async () => {
    const { rows } = await api.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM trust_history');
    expect(rows[0]!.n).to.be.greaterThan(0);
    const results = await runRetention(
      api.pool,
      { ...api.config.retentionDays, trustHistory: 1 },
      { dryRun: true, kinds: ['trustHistory'], now: new Date(Date.now() + 2 * DAY) },
    );
    expect(byKind(results)).to.deep.equal({ trustHistory: rows[0]!.n });
    expect(results[0]!.more).to.equal(false);
    // A dry run counts at most one run's worth (here one batch of 1) and says more are due.
    expect(rows[0]!.n).to.be.greaterThan(1);
    const capped = await runRetention(
      api.pool,
      { ...api.config.retentionDays, trustHistory: 1 },
      {
        dryRun: true,
        kinds: ['trustHistory'],
        now: new Date(Date.now() + 2 * DAY),
        batchSize: 1,
        maxBatches: 1,
      },
    );
    expect(capped[0]).to.include({ rows: 1, more: true });
  });
});
