import { expect } from 'chai';
import type { PoolClient } from '../../common/data/db.js';
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
import { eventually } from '../helpers/http-server.js';
import { waitingOn } from '../../scripts/drills/harness.js';

/**
 * Injected transaction faults: a second connection forces a deadlock with the report's transaction.
 * It holds an uncommitted link of the player to the reporting game, which the report's own link
 * insert must wait for (the report already holds the player's row), then asks for the player's row.
 * PostgreSQL aborts the waiter whose deadlock timer fires first: the report, which waited first.
 */
describe('injected transaction faults', function () {
  this.timeout(30_000);
  let api: TestApi;
  let tenant: Tenant;

  before(async () => {
    api = await startTestApi();
    tenant = await createTenant(api.pool);
  });
  after(async () => {
    await api.close();
  });

  async function deadlockDuring(serviceId: string, send: () => Promise<{ status: number }>) {
    const b: PoolClient = await api.pool.connect();
    try {
      const pid = (await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await b.query('BEGIN');
      // The studio's budget row for this player, which the report writes once it holds the player row.
      await b.query(
        `INSERT INTO studio_player_budget (player_id, studio_id, window_start, points)
         SELECT id, $2, now(), 0 FROM players WHERE service_id = $1`,
        [serviceId, tenant.studioId],
      );
      const pending = send();
      await eventually(
        'the report waits for the budget row',
        async () => (await waitingOn(api.pool, pid)) > 0,
      );
      // Close the cycle: the report holds the player's row.
      const bLocked = await b
        .query('SELECT 1 FROM players WHERE service_id = $1 FOR UPDATE', [serviceId])
        .then(() => 'locked' as const)
        .catch((err: { code?: string }) => err.code);
      await b.query('ROLLBACK');
      return { bLocked, res: await pending };
    } finally {
      b.release();
    }
  }

  for (const withKey of [false, true])
    it(`a deadlock on the player row is retried and the report commits exactly once (${withKey ? 'with' : 'without'} Idempotency-Key)`, async () => {
      const player = await createTestPlayer(api.pool);
      const { bLocked, res } = await deadlockDuring(player.serviceId, () =>
        call(api.url, 'POST', `/v1/griefing/submitReport/${player.serviceId}`, {
          spec: '/v1/griefing/submitReport/{serviceId}',
          headers: { ...tenant.headers, ...(withKey ? { 'idempotency-key': `dl-${player.serviceId}` } : {}) },
          json: { report: { isGriefing: true, severity: 'critical' } },
        }),
      );
      // The report was the deadlock's victim (the other side got the lock), so it ran twice...
      expect(bLocked).to.equal('locked');
      // ...and committed once.
      expect(res.status).to.equal(201);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100 - 15);
    });
});
