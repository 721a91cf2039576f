import crypto from 'node:crypto';
import { expect } from 'chai';
import { createPool, type Pool } from '../../common/data/db.js';
import { PURGES, purgeExpired, purgeStatement } from '../../common/data/housekeeping.js';
import { runRetention } from '../../common/lifecycles/retention.js';
import { parseConfig } from '../../common/config.js';

const RETENTION_DEFAULTS = parseConfig({}).retentionDays;
import { createTenant, createTestPlayer } from '../helpers/app.js';
import { testServices } from '../helpers/services.js';

describe('housekeeping', () => {
  let pool: Pool;
  before(async () => {
    pool = createPool((await testServices()).databaseUrl, 2);
  });
  after(() => pool.end());

  it('deletes only rows whose purpose is over', async () => {
    const tenant = await createTenant(pool);
    const player = await createTestPlayer(pool);
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
      player.serviceId,
    ]);
    const playerId = rows[0]!.id;
    const gameId = tenant.game.id;
    const tag = crypto.randomBytes(6).toString('hex');
    const hash = (s: string) => crypto.createHash('sha256').update(`${tag}-${s}`).digest();

    await pool.query(
      `INSERT INTO idempotency_keys (game_id, key, request_hash, state, expires_at) VALUES
         ($1, $2 || '-old', '\\x00', 'done', now() - interval '1 second'),
         ($1, $2 || '-live', '\\x00', 'done', now() + interval '1 day')`,
      [gameId, tag],
    );
    await pool.query(
      `INSERT INTO authorization_codes (code_hash, game_id, player_id, redirect_uri, redirect_uri_explicit, scope, expires_at) VALUES
         ($1, $3, $4, 'https://x.example', false, 'profile', now() - interval '2 days'),
         ($2, $3, $4, 'https://x.example', false, 'profile', now() - interval '1 hour')`,
      [hash('code-old'), hash('code-recent'), gameId, playerId],
    );
    const [expiredJti, liveJti] = [crypto.randomUUID(), crypto.randomUUID()];
    await pool.query(
      `INSERT INTO access_tokens (jti, code_hash, game_id, player_id, expires_at) VALUES
         ($1, '\\x00', $3, $4, now() - interval '1 second'), ($2, '\\x00', $3, $4, now() + interval '1 hour')`,
      [expiredJti, liveJti, gameId, playerId],
    );
    await pool.query(
      `INSERT INTO sign_in_failures (key, failures, locked_until, updated_at) VALUES
         ($1, 3, NULL, now() - interval '1 hour'),
         ($2, 9, now() + interval '10 minutes', now() - interval '1 hour'),
         ($3, 2, NULL, now())`,
      [`acct:${tag}-stale`, `acct:${tag}-locked`, `acct:${tag}-fresh`],
    );
    await pool.query(
      `INSERT INTO outbox (queue, job_name, job_id, payload, sent_at) VALUES
         ('q', 'j', $1 || '-old', '{}', now() - interval '8 days'),
         ('q', 'j', $1 || '-recent', '{}', now() - interval '1 day'),
         ('q', 'j', $1 || '-unsent', '{}', NULL)`,
      [tag],
    );

    const hook = await pool.query<{ id: string }>(
      `INSERT INTO webhooks (studio_id, url, events, secret_ciphertext) VALUES ($1, 'https://h.example', '{trust.changed}', '\\x00')
       RETURNING id`,
      [tenant.studioId],
    );
    const webhookId = hook.rows[0]!.id;
    const ev = () => crypto.randomUUID();
    await pool.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, status, created_at, last_attempt_at) VALUES
         ($1, $2, 'trust.changed', '{}', 'delivered', now() - interval '31 days', NULL),
         ($1, $3, 'trust.changed', '{}', 'failed', now() - interval '31 days', now() - interval '31 days'),
         ($1, $4, 'trust.changed', '{}', 'pending', now() - interval '31 days', NULL),
         ($1, $5, 'trust.changed', '{}', 'delivered', now() - interval '29 days', NULL),
         -- created 31 days ago, but its last attempt (it failed for good then) 29 days ago: kept
         ($1, $6, 'case.resolved', '{}', 'failed', now() - interval '31 days', now() - interval '29 days')`,
      [webhookId, ev(), ev(), ev(), ev(), ev()],
    );

    await purgeExpired(pool);
    // Authorization codes record sign-ins: retention's (RETENTION_SIGN_IN_DAYS, a day by default).
    expect(
      (await pool.query('SELECT 1 FROM authorization_codes WHERE code_hash = ANY($1)', [[hash('code-old')]]))
        .rowCount,
      'not housekeeping’s',
    ).to.equal(1);
    await runRetention(pool, { ...RETENTION_DEFAULTS, signIns: 1 }, { kinds: ['signIns'] });

    const left = async (sql: string, params: unknown[]) =>
      (await pool.query<{ k: string }>(sql, params)).rows.map((r) => r.k).sort();
    expect(await left(`SELECT key AS k FROM idempotency_keys WHERE key LIKE $1`, [`${tag}-%`])).to.deep.equal(
      [`${tag}-live`],
    );
    expect(
      await left(`SELECT encode(code_hash, 'hex') AS k FROM authorization_codes WHERE code_hash = ANY($1)`, [
        [hash('code-old'), hash('code-recent')],
      ]),
    ).to.deep.equal([hash('code-recent').toString('hex')]);
    expect(
      await left(`SELECT jti::text AS k FROM access_tokens WHERE jti = ANY($1::uuid[])`, [
        [expiredJti, liveJti],
      ]),
    ).to.deep.equal([liveJti]);
    expect(
      await left(`SELECT key AS k FROM sign_in_failures WHERE key LIKE $1`, [`acct:${tag}-%`]),
    ).to.deep.equal([`acct:${tag}-fresh`, `acct:${tag}-locked`]);
    expect(await left(`SELECT job_id AS k FROM outbox WHERE job_id LIKE $1`, [`${tag}-%`])).to.deep.equal([
      `${tag}-recent`,
      `${tag}-unsent`,
    ]);
    expect(
      await left(
        `SELECT status || ':' || (created_at > now() - interval '30 days') AS k FROM webhook_deliveries WHERE webhook_id = $1`,
        [webhookId],
      ),
    ).to.deep.equal(['delivered:true', 'failed:false', 'pending:false']);
    // The database is shared by the whole run: leave no unsent row for another test's relay.
    await pool.query('DELETE FROM outbox WHERE job_id LIKE $1', [`${tag}-%`]);
  });

  it('finds the rows of every purge through an index, never by reading the whole table', async () => {
    const client = await pool.connect();
    try {
      // With sequential scans priced out, a plan still shows one only where no index can serve.
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      for (const [name, purge] of Object.entries(PURGES)) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN ${purgeStatement(purge).replace('$1', '5000')}`,
        );
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, `${name}:\n${plan}`).to.not.match(/Seq Scan/);
        expect(plan, `${name}:\n${plan}`).to.match(/Tid Scan/);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('deletes in bounded batches until nothing expired is left, and stops at maxBatches', async () => {
    const tenant = await createTenant(pool);
    const tag = crypto.randomBytes(6).toString('hex');
    await pool.query(
      `INSERT INTO idempotency_keys (game_id, key, request_hash, state, expires_at)
       SELECT $1, $2 || '-' || i, '\\x00', 'done', now() - interval '1 second' FROM generate_series(1, 7) AS i`,
      [tenant.game.id, tag],
    );
    const count = async () =>
      (
        await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys WHERE key LIKE $1', [
          `${tag}-%`,
        ])
      ).rows[0]!.n;
    const first = await purgeExpired(pool, { batchSize: 2, maxBatches: 2 });
    expect(first.idempotencyKeys).to.be.at.least(4);
    expect(await count()).to.equal(3);
    await purgeExpired(pool, { batchSize: 2 });
    expect(await count()).to.equal(0);
  });
});
