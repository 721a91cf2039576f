import { expect } from 'chai';
import pg from 'pg';
import { createPool, type Pool } from '../../common/data/db.js';
import { recordReports, type ReportToRecord } from '../../common/data/repos/offenses.js';
import { createTenant, type Tenant } from '../helpers/app.js';
import { reportItem } from '../helpers/reports.js';
import { ownDatabase } from '../helpers/services.js';

/**
 * The report statement reads every table by key, whatever the planner was told (issue 40). Its plans
 * are made once a connection (a generic plan each), told a batch has 100 items
 * (jsonb_array_elements' estimate) and the tables the rows the statistics held then. Version 6 read
 * the players table whole for a batch of a few reports (a hash join over a sequential scan), and a
 * budget table planned while empty whole again for every report (a scan kept in memory): a batch's
 * cost grew with the tables, not with its reports. The plans are read with auto_explain, in a
 * database of the suite's own so the statistics are the ones set up here.
 */
describe('pt_file_reports: plans that read by key, whatever the statistics', function () {
  this.timeout(120_000);
  let db: { url: string; drop: () => Promise<void> };
  let pool: Pool;
  let tenant: Tenant;

  before(async () => {
    db = await ownDatabase('plans');
    pool = createPool(db.url, 2);
    tenant = await createTenant(pool, 'Plans');
    // Players enough that a hash join over all of them looks cheaper to the planner than 100
    // look-ups by key; their statistics are current.
    await pool.query(
      `INSERT INTO players (service_id, full_name, gamer_tag)
       SELECT 'plan-' || i, 'Plan ' || i, 'plan-tag-' || i FROM generate_series(1, 5000) AS i`,
    );
    await pool.query('ANALYZE players');
    // The budget table is empty, and analysed so: a plan made now believes it holds nothing.
    await pool.query('ANALYZE studio_player_budget');
  });
  after(async () => {
    await pool.end();
    await db.drop();
  });

  /** Files a batch on `client` and returns, beside its outcomes, the plan of every statement it ran. */
  const explained = async (client: pg.Client, items: ReportToRecord[]) => {
    const plans: string[] = [];
    const collect = (n: { message?: string }) => plans.push(n.message ?? '');
    client.on('notice', collect);
    await client.query("LOAD 'auto_explain'");
    await client.query(
      `SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
       SET auto_explain.log_analyze = on; SET client_min_messages = log`,
    );
    const outcomes = await recordReports(client, items);
    await client.query('RESET client_min_messages');
    client.off('notice', collect);
    return { outcomes, plans };
  };

  const batch = (ids: number[]) =>
    ids.map((i) =>
      reportItem(tenant, `plan-${i}`, 'anticheat', {
        isCheatDetected: true,
        severity: 'low',
        confidence: 0.9,
      }),
    );

  it('a batch looks its players and budgets up by key, on a connection whose plans were made before the tables grew', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // The connection's plans are made by its first batch, while the budget table is empty.
      await recordReports(client, batch([1, 2, 3]));
      // Then budgets grow (one a player that was reported on, as reports leave them).
      await pool.query(
        `INSERT INTO studio_player_budget (player_id, studio_id, window_start, points)
         SELECT id, $1, now(), 1 FROM players WHERE service_id LIKE 'plan-%' AND service_id <> ALL($2)`,
        [tenant.studioId, ['plan-1', 'plan-2', 'plan-3']],
      );
      const { outcomes, plans } = await explained(client, batch([100, 200, 300, 400]));
      expect(outcomes.map((o) => o.status)).to.deep.equal(Array(4).fill('created'));

      const read = plans.find((p) => p.includes('WITH it AS'));
      expect(read, 'the statement that reads what the decisions need').to.be.a('string');
      for (const table of ['players', 'studio_player_budget', 'report_dedup', 'reporter_quota', 'reporters'])
        expect(read!, `no sequential scan of ${table}`).not.to.match(new RegExp(`Seq Scan on ${table}\\b`));
      // Each table is read once a report (a look-up by key), not once for the batch and kept.
      expect(read!).not.to.match(/Materialize/);
      expect(read!).to.match(/Index Scan using \S+ on players p .*loops=4\)/);
      expect(read!).to.match(
        /Index Scan using studio_player_budget_pkey on studio_player_budget b .*loops=4\)/,
      );
      // The budget rows of the other 4,996 players are not read: only the four reported on.
      const budget = /on studio_player_budget b .*actual time=\S+ rows=(\d+)/.exec(read!);
      expect(Number(budget![1])).to.be.at.most(1);
      const lock = plans.find((p) => p.includes('FOR NO KEY UPDATE'));
      expect(lock).not.to.match(/Seq Scan on players\b/);
    } finally {
      await client.end();
    }
  });

  it("players' reports lock and count their reporters' quotas by key, on a connection whose plans were made before the quotas grew", async () => {
    const toxic = (ids: number[]) =>
      ids.map((i) =>
        reportItem(tenant, `plan-${i}`, 'toxicity', {
          isToxic: true,
          severity: 'low',
          reporterId: `reporter-${i}`,
          source: 'player',
        }),
      );
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await pool.query('ANALYZE reporter_quota');
      // The connection's plans are made while the quota table holds next to nothing.
      await recordReports(client, toxic([1, 2]));
      await pool.query(
        `INSERT INTO reporter_quota (studio_id, reporter_id, window_start, used)
         SELECT $1, 'other-' || i, now(), 1 FROM generate_series(1, 5000) AS i`,
        [tenant.studioId],
      );
      const { outcomes, plans } = await explained(client, toxic([10, 20, 30]));
      expect(outcomes.map((o) => o.status)).to.deep.equal(Array(3).fill('created'));
      const quota = plans.filter((p) => /reporter_quota/.test(p) && !p.includes('WITH it AS'));
      expect(quota.length, 'the statements that create, lock and count the quotas').to.be.at.least(3);
      for (const plan of quota) {
        expect(plan).not.to.match(/Seq Scan on reporter_quota\b/);
        // No statement reads the other 5,000 reporters' rows: every scan of the table finds at most
        // the batch's three.
        for (const m of plan.matchAll(
          /Scan (?:using \S+ )?on reporter_quota\b.*?actual time=\S+ rows=(\d+)/g,
        ))
          expect(Number(m[1]), plan).to.be.at.most(3);
      }
    } finally {
      await client.end();
    }
  });
});
