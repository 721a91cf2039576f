import { expect } from 'chai';
import pg from 'pg';
import { MIGRATION_LOCK_TIMEOUT_MS, migrate } from '../../common/data/migrate.js';
import { ownDatabase } from '../helpers/services.js';

/**
 * Issue 50: `admin migrate` runs while the previous release serves (docs/operators.md "Upgrades"). A migration
 * that meets a lock the service holds waits at most MIGRATION_LOCK_TIMEOUT_MS, lets go of what it
 * holds, and runs again, instead of deadlocking with the service or failing the upgrade.
 */
describe('migrate under the running service’s locks', function () {
  this.timeout(60_000);
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  before(async () => {
    db = await ownDatabase('migrate_locks');
  });
  after(async () => {
    await db?.drop();
  });

  it('waits out a lock held longer than its lock timeout, then finishes; the holder was never blocked by it', async () => {
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    const lines: string[] = [];
    try {
      // A transaction of the service's holding what every migrate reads: longer than one lock wait.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE pgmigrations IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const running = migrate(db.url, (m) => lines.push(m));
      await new Promise((r) => setTimeout(r, MIGRATION_LOCK_TIMEOUT_MS + 1500));
      // The holder still works meanwhile (nothing of the migration's queued ahead of it).
      expect((await holder.query('SELECT count(*)::int AS n FROM pgmigrations')).rows[0].n).to.be.greaterThan(
        0,
      );
      await holder.query('COMMIT');
      const applied = await running;
      expect(applied, 'nothing was pending').to.deep.equal([]);
      expect(Date.now() - started).to.be.greaterThan(MIGRATION_LOCK_TIMEOUT_MS);
      expect(
        lines.some((l) => /lock timeout|deadlock/i.test(l) && /again in \d+ ms/.test(l)),
        lines.join('\n'),
      ).to.equal(true);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });
});
