import crypto from 'node:crypto';
import { expect } from 'chai';
import { primaryWithStandby } from '../helpers/services.js';
import pg from 'pg';
import { createPool } from '../../common/data/db.js';
import type { ServiceHandle } from '../../common/services/postgres.js';
import { isAlive } from '../../common/services/process-guard.js';
import type { Standby } from '../../common/services/standby.js';
import { createTenant, createTestPlayer, startTestApi, type TestApi } from '../helpers/app.js';

/**
 * Issue 22, PostgreSQL failover: DATABASE_URL names a primary and its hot standby (made from the
 * embedded binaries); every write goes to the host that takes writes, whatever the order; the primary
 * is killed and the standby promoted under report load, and the API carries on by itself. Commits wait
 * for the standby (synchronous_standby_names, as pg_auto_failover sets it), so no report answered
 * 201 is missing on the new primary, and none is stored twice.
 */
describe('PostgreSQL failover: writes follow the host that takes them', function () {
  this.timeout(180_000);
  let servers: Awaited<ReturnType<typeof primaryWithStandby>>;
  let primary: ServiceHandle;
  let standby: Standby;
  let multi: string;

  before(async () => {
    servers = await primaryWithStandby('failover');
    ({ primary, standby } = servers);
    // Every commit waits until the standby has it, so a promoted standby has every answered write.
    const admin = new pg.Client({ connectionString: primary.url });
    await admin.connect();
    await admin.query(`ALTER SYSTEM SET synchronous_standby_names = '*'`);
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
    // The standby first: a pool must skip it while it is read-only.
    const p = new URL(primary.url);
    multi = `postgres://${p.username}:${p.password}@127.0.0.1:${standby.port},127.0.0.1:${p.port}${p.pathname}`;
  });
  after(async () => {
    await servers?.stop();
  });

  it('a pool over both hosts writes to the primary, never the standby listed first', async () => {
    const pool = createPool(multi, 2);
    try {
      const { rows } = await pool.query<{ port: number; ro: string }>(
        "SELECT inet_server_port() AS port, current_setting('transaction_read_only') AS ro",
      );
      expect(rows[0]).to.deep.equal({ port: Number(new URL(primary.url).port), ro: 'off' });
    } finally {
      await pool.end();
    }
  });

  it('the primary killed and the standby promoted under load: 503s meanwhile, then 201s from the new primary; every 201 kept once', async () => {
    let api: TestApi | undefined;
    try {
      api = await startTestApi({ DATABASE_URL: multi, PG_POOL_SIZE: '4' });
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const accepted: string[] = [];
      const statuses = new Map<number, number>();
      let retryAfter = 0;
      const report = async (n: number) => {
        const matchId = `fo-${n}-${crypto.randomBytes(3).toString('hex')}`;
        for (let attempt = 0; attempt < 100; attempt++) {
          const res = await fetch(`${api!.url}/v1/toxicity/submitReport/${player.serviceId}`, {
            method: 'POST',
            headers: { ...tenant.headers, 'content-type': 'application/json', 'idempotency-key': matchId },
            body: JSON.stringify({ report: { isToxic: true, severity: 'low', matchId } }),
          }).catch(() => undefined);
          const status = res?.status ?? 0;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 201) {
            accepted.push(matchId);
            return;
          }
          expect([0, 503, 409], `report answered ${status}`).to.include(status);
          if (res?.headers.get('retry-after')) retryAfter++;
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`report ${n} never accepted`);
      };
      for (let n = 0; n < 10; n++) await report(n);
      // The failover: the primary dies at once; the standby is promoted.
      process.kill(primary.pid!, 'SIGQUIT');
      const during = Array.from({ length: 10 }, (_, i) => report(100 + i));
      await new Promise((r) => setTimeout(r, 500));
      expect(isAlive(primary.pid!)).to.equal(false);
      await standby.promote();
      await Promise.all(during);
      for (let n = 200; n < 210; n++) await report(n);

      const fresh = new pg.Client({ connectionString: standby.url });
      await fresh.connect();
      try {
        const { rows } = await fresh.query<{ match: string; n: number }>(
          `SELECT o.context->>'matchId' AS match, count(*)::int AS n FROM offenses o JOIN players p ON p.id = o.player_id
            WHERE p.service_id = $1 GROUP BY 1`,
          [player.serviceId],
        );
        const stored = new Map(rows.map((r) => [r.match, r.n]));
        expect(accepted).to.have.length(30);
        expect(
          accepted.filter((m) => stored.get(m) !== 1),
          'accepted reports missing or doubled',
        ).to.deep.equal([]);
        expect(rows.length).to.equal(30);
        const { rows: ro } = await fresh.query<{ ro: string }>(
          "SELECT current_setting('transaction_read_only') AS ro",
        );
        expect(ro[0]!.ro).to.equal('off');
      } finally {
        await fresh.end();
      }
      // What the clients saw during the switch: only 201, 503 (with Retry-After) or a dropped connection.
      expect(
        [...statuses.keys()].every((s) => [0, 201, 503, 409].includes(s)),
        JSON.stringify([...statuses]),
      ).to.equal(true);
      if (statuses.get(503)) expect(retryAfter).to.be.greaterThan(0);
      process.stdout.write(
        `      answers during the test: ${JSON.stringify(Object.fromEntries(statuses))}\n`,
      );
    } finally {
      await api?.close();
    }
  });
});
