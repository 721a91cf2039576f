import crypto from 'node:crypto';
import { expect } from 'chai';
import { UnrecoverableError, type Job } from 'bullmq';
import { parseConfig } from '../../common/config.js';
import { createPool, withTransaction, type Pool } from '../../common/data/db.js';
import { recordOne } from '../helpers/reports.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { computePenalty } from '../../common/domain/penalty.js';
import { parseReport, type ReportKind } from '../../common/domain/reports.js';
import { createLogger } from '../../common/logger.js';
import type { OutboxRow } from '../../common/queues/outbox.js';
import { fileOffenses } from '../../common/lifecycles/review-case.js';
import { reviewProcessor } from '../../worker/processors/review.js';
import { createTenant, createTestPlayer, TEST_PEPPER, type Tenant } from '../helpers/app.js';
import { testServices } from '../helpers/services.js';

const CAPS = { cheating: 20, griefing: 15, toxicity: 10, afk: 5 };

/** The review deadlines the service runs with by default. */
const DUE_HOURS = parseConfig({ NODE_ENV: 'test' }).caseDueHours;

describe('review: offenses filed in batches', () => {
  let pool: Pool;
  let url: string;
  let tenants: Tenant[];

  before(async () => {
    url = (await testServices()).databaseUrl;
    pool = createPool(url, 5);
    tenants = [await createTenant(pool, 'Batch A'), await createTenant(pool, 'Batch B')];
  });
  after(() => pool.end());

  const report = async (serviceId: string, kind: ReportKind, body: object, tenant = tenants[0]!) => {
    const parsed = parseReport(kind, { report: body });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const rec = await recordOne(pool, {
      offenseId: crypto.randomUUID(),
      serviceId,
      gameId: tenant.game.id,
      studioId: tenant.studioId,
      report: parsed.report,
      penalty: computePenalty(parsed.report, CAPS),
    });
    return rec!.offense.id;
  };

  /** A case's stored figures next to the same figures computed from scratch from its offenses. */
  async function figures(caseId: string) {
    const { rows } = await pool.query(
      `WITH sev AS (SELECT ARRAY['low','medium','high','critical'] AS o),
       f AS (
         SELECT count(*)::int AS reports, sum(o.penalty_points)::int AS penalty,
                count(DISTINCT o.game_id)::int AS games,
                count(DISTINCT coalesce(o.context->>'reporterId', o.game_id::text))::int AS reporters,
                max(array_position((SELECT o FROM sev), o.severity)) AS rank,
                max(coalesce((o.details->>'confidence')::numeric, 0)) AS confidence,
                sum(o.penalty_held) FILTER (WHERE o.status = 'held')::int AS held,
                min(o.created_at) AS first, min(o.player_id::text)::uuid AS player_id
           FROM case_offenses co JOIN offenses o ON o.id = co.offense_id WHERE co.case_id = $1),
       e AS (
         SELECT count(*)::int AS earlier FROM offenses x, f
          WHERE x.player_id = f.player_id AND x.created_at < f.first AND x.status <> 'recorded')
       SELECT jsonb_build_object('reports', c.reports_count, 'penalty', c.total_penalty,
                'games', c.distinct_games, 'reporters', c.distinct_reporters,
                'severity', c.highest_severity, 'confidence', c.max_confidence::float8,
                'priority', c.priority::float8) AS stored,
              jsonb_build_object('reports', f.reports, 'penalty', f.penalty, 'games', f.games,
                'reporters', f.reporters, 'severity', (SELECT o FROM sev)[f.rank],
                'confidence', f.confidence::float8,
                'priority', (25 * (f.rank - 1) + 10 * f.confidence + 5 * LEAST(f.games, 5)
                  + 3 * LEAST(f.reporters, 5) + 2 * LEAST(e.earlier, 10)
                  + LEAST(coalesce(f.held, 0), 50) / 2.0)::float8
              ) AS computed
         FROM review_cases c, f, e WHERE c.id = $1`,
      [caseId],
    );
    return rows[0] as { stored: Record<string, unknown>; computed: Record<string, unknown> };
  }

  it('one batch over several cases gives the figures filing one by one would, and a second run changes nothing', async () => {
    const [a, b] = [await createTestPlayer(pool), await createTestPlayer(pool)];
    const first = await report(a.serviceId, 'anticheat', { isCheatDetected: true, severity: 'low' });
    // Filed on its own first: the batch then adds to an existing case.
    await withTransaction(pool, (c) => fileOffenses(c, [first], DUE_HOURS));
    const ids = [
      await report(a.serviceId, 'anticheat', {
        isCheatDetected: true,
        severity: 'high',
        confidence: 0.7,
        reporterId: 'r1',
      }),
      await report(
        a.serviceId,
        'anticheat',
        { isCheatDetected: true, severity: 'medium', reporterId: 'r1' },
        tenants[1],
      ),
      await report(a.serviceId, 'anticheat', {
        isCheatDetected: true,
        severity: 'low',
        confidence: 0.95,
        reporterId: 'r2',
      }),
      await report(a.serviceId, 'afk', { isAfk: true }),
      await report(
        b.serviceId,
        'toxicity',
        { isToxic: true, severity: 'critical', messages: ['x'] },
        tenants[1],
      ),
      await report(b.serviceId, 'toxicity', { isToxic: true, severity: 'low', messages: ['y'] }),
    ];
    const missing = crypto.randomUUID();
    const { filed, outbox } = await withTransaction(pool, (c) =>
      fileOffenses(c, [...ids, ids[0]!, first, missing], DUE_HOURS),
    );
    expect(filed.has(missing)).to.equal(false);
    expect(filed.get(first)?.filed).to.equal(false);
    expect(ids.map((id) => filed.get(id)?.filed)).to.deep.equal(Array(ids.length).fill(true));
    const cases = new Set(ids.map((id) => filed.get(id)!.caseId!));
    expect(cases.size).to.equal(3); // a's cheating (with `first`), a's afk, b's toxicity
    expect(filed.get(ids[0]!)!.caseId).to.equal(filed.get(first)!.caseId);
    expect(outbox).to.be.an('array'); // no webhooks registered: no deliveries to send

    const before = new Map<string, Awaited<ReturnType<typeof figures>>>();
    for (const caseId of cases) {
      const f = await figures(caseId);
      expect(f.stored, caseId).to.deep.equal(f.computed);
      before.set(caseId, f);
    }
    expect((await figures(filed.get(first)!.caseId!)).stored).to.deep.include({
      reports: 4,
      games: 2,
      reporters: 3, // r1, r2 and the game of the report that named no reporter
      severity: 'high',
      confidence: 0.95,
    });

    const again = await withTransaction(pool, (c) => fileOffenses(c, ids, DUE_HOURS));
    expect([...again.filed.values()].every((f) => !f.filed)).to.equal(true);
    expect(again.outbox).to.deep.equal([]);
    for (const caseId of cases) expect(await figures(caseId)).to.deep.equal(before.get(caseId));
  });

  it("jobs run out of order: a case opened by its second report does not count its first as the player's history", async () => {
    const player = await createTestPlayer(pool);
    const history = await report(player.serviceId, 'afk', { isAfk: true });
    await withTransaction(pool, (c) => fileOffenses(c, [history], DUE_HOURS));
    const first = await report(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'low' });
    const second = await report(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'high' });
    // The second report's job runs first (BullMQ runs a queue's jobs concurrently).
    await withTransaction(pool, (c) => fileOffenses(c, [second], DUE_HOURS));
    await withTransaction(pool, (c) => fileOffenses(c, [first], DUE_HOURS));
    const { rows } = await pool.query<{ earlier_offenses: number; reports_count: number }>(
      `SELECT c.earlier_offenses, c.reports_count FROM review_cases c JOIN players p ON p.id = c.player_id
        WHERE p.service_id = $1 AND c.type = 'cheating'`,
      [player.serviceId],
    );
    expect(rows).to.deep.equal([{ earlier_offenses: 1, reports_count: 2 }]); // the AFK report only
  });

  it('records events only for offenses some studio listens for, to every studio of the audience', async () => {
    const listener = await createTenant(pool, 'Listener');
    await insertWebhook(pool, {
      studioId: listener.studioId,
      url: 'https://hooks.example/pt',
      events: ['offense.created'],
      sealedSecret: Buffer.from('sealed'),
    });
    const [linked, unlinked] = [await createTestPlayer(pool), await createTestPlayer(pool)];
    // The listener's game is linked to the player (the player approved it), not by a report.
    await linkPlayer(pool, { serviceId: linked.serviceId, clientId: listener.game.clientId });
    const heard = await report(linked.serviceId, 'anticheat', { isCheatDetected: true, severity: 'high' });
    const unheard = await report(unlinked.serviceId, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
    });
    const { outbox } = await withTransaction(pool, (c) => fileOffenses(c, [heard, unheard], DUE_HOURS));
    // offense.created for `heard` to the listener (the filer has no webhook; trust.changed has no
    // subscriber): one delivery; nothing for `unheard`.
    expect(outbox).to.have.length(1);
    const { rows } = await pool.query<{ event_type: string; offense: string; visibility: string }>(
      `SELECT d.event_type, d.payload->'data'->'offense'->>'_id' AS offense,
              d.payload->'data'->'offense'->>'visibility' AS visibility
         FROM webhook_deliveries d WHERE d.id = ($1::jsonb->>'deliveryId')::uuid`,
      [JSON.stringify(outbox[0]!.payload)],
    );
    expect(rows).to.deep.equal([{ event_type: 'offense.created', offense: heard, visibility: 'summary' }]);
  });

  /** The review processor called directly, with what it hands the queues. */
  function processor() {
    const dispatched: OutboxRow[][] = [];
    const process = reviewProcessor({
      pool,
      log: createLogger('silent', 'test'),
      config: parseConfig({ NODE_ENV: 'test', DATABASE_URL: url, CLIENT_SECRET_PEPPER: TEST_PEPPER }),
      pepper: TEST_PEPPER,
      dispatch: (rows) => dispatched.push(rows),
    });
    return { process, dispatched };
  }

  it('the processor files the jobs it runs at once together; a missing offense fails only its own job, for good', async () => {
    const player = await createTestPlayer(pool);
    const ids = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        report(player.serviceId, 'griefing', { isGriefing: true, severity: ['low', 'high'][i % 2] }),
      ),
    );
    const { process, dispatched } = processor();
    const job = (offenseId: string) => ({ id: offenseId, data: { offenseId } }) as unknown as Job;
    const outcomes = await Promise.allSettled([...ids, crypto.randomUUID()].map((id) => process(job(id))));
    expect(outcomes.slice(0, 8).map((o) => o.status)).to.deep.equal(Array(8).fill('fulfilled'));
    const last = outcomes[8]!;
    expect(last.status).to.equal('rejected');
    expect((last as PromiseRejectedResult).reason).to.be.instanceOf(UnrecoverableError);
    expect(dispatched).to.have.length(1); // one batch, one commit, one dispatch
    const caseIds = new Set(
      outcomes.slice(0, 8).map((o) => (o as PromiseFulfilledResult<{ caseId: string }>).value.caseId),
    );
    expect(caseIds.size).to.equal(1);
    const f = await figures([...caseIds][0]!);
    expect(f.stored).to.deep.equal(f.computed);
    expect(f.stored).to.deep.include({ reports: 8, severity: 'high' });
  });

  it("a batch's job files every offense it names in one transaction; a missing one is skipped and named, all missing fails for good", async () => {
    const players = await Promise.all([1, 2, 3].map(() => createTestPlayer(pool)));
    const ids = await Promise.all(
      players.map((p) => report(p.serviceId, 'toxicity', { isToxic: true, severity: 'medium' })),
    );
    const { process, dispatched } = processor();
    const job = (offenseIds: string[]) => ({ id: 'b', data: { offenseIds } }) as unknown as Job;
    const gone = crypto.randomUUID();
    expect(await process(job([ids[0]!, gone, ids[1]!, ids[2]!]))).to.deep.equal({
      offenses: 4,
      filed: 3,
      missing: [gone],
    });
    expect(dispatched).to.have.length(1); // one transaction for the job's offenses
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(DISTINCT case_id)::int AS n FROM case_offenses WHERE offense_id = ANY($1::uuid[])',
      [ids],
    );
    expect(rows[0]!.n, 'one case a player').to.equal(3);
    // Run again (a retry, or a re-add by the reconciler): nothing is filed twice.
    expect(await process(job(ids))).to.deep.equal({ offenses: 3, filed: 0, missing: [] });
    for (const c of (
      await pool.query<{ case_id: string }>(
        'SELECT case_id FROM case_offenses WHERE offense_id = ANY($1::uuid[])',
        [ids],
      )
    ).rows) {
      const f = await figures(c.case_id);
      expect(f.stored).to.deep.equal(f.computed);
      expect(f.stored).to.deep.include({ reports: 1 });
    }
    // Nothing it names exists, or a payload that names nothing: failed for good, never retried.
    for (const data of [{ offenseIds: [gone] }, { offenseIds: [] }, { offenseIds: ['not-a-uuid'] }, {}]) {
      const outcome = await process({ id: 'x', data } as unknown as Job).then(
        () => 'fulfilled',
        (err: unknown) => err,
      );
      expect(outcome, JSON.stringify(data)).to.be.instanceOf(UnrecoverableError);
    }
  });
});
