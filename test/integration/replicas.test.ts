import { expect } from 'chai';
import { primaryWithStandby } from '../helpers/services.js';
import pg from 'pg';
import type { ServiceHandle } from '../../common/services/postgres.js';
import type { Standby } from '../../common/services/standby.js';
import { createTenant, createTestPlayer, startTestApi, type Tenant, type TestApi } from '../helpers/app.js';

/**
 * Issue 22, reads from hot standbys: a primary and an asynchronous standby made from the embedded
 * binaries. Reads that standbys may serve (profile, offenses, trust history, sanctions, lookup) go to
 * the standby while it keeps up; a read that presents the consistency token of a write sees that
 * write, from the standby once it has replayed it and otherwise from the primary; a standby that lags
 * or dies is skipped without a failed read and serves again once well.
 */
describe('Reads from hot standbys with consistency tokens', function () {
  this.timeout(180_000);
  let servers: Awaited<ReturnType<typeof primaryWithStandby>>;
  let primary: ServiceHandle;
  let standby: Standby;
  let onStandby: pg.Client;
  /** Standby serves token-less reads whatever its lag: shows what a token changes. */
  let patient: TestApi;
  /** Standby skipped once 300 ms behind. */
  let strict: TestApi;
  let tenant: Tenant;

  before(async () => {
    servers = await primaryWithStandby('replicas');
    ({ primary, standby } = servers);
    onStandby = new pg.Client({ connectionString: standby.url });
    onStandby.on('error', () => undefined); // the kill test ends its connection
    await onStandby.connect();
    const common = {
      DATABASE_URL: primary.url,
      DATABASE_REPLICA_URLS: standby.url,
      REPLICA_CHECK_INTERVAL_MS: '50',
      PG_POOL_SIZE: '4',
      // The kill test reads as fast as it can for as long as the standby takes to come back: the
      // client's rate limit (500/s, a burst of 2500) is not what it measures, and a slow restart
      // would otherwise turn its reads into 429s.
      RATE_LIMIT_READS_PER_SECOND: '100000',
      RATE_LIMIT_READS_BURST: '1000000',
    };
    patient = await startTestApi({ ...common, REPLICA_MAX_LAG_MS: '600000', REPLICA_TOKEN_WAIT_MS: '300' });
    strict = await startTestApi({ ...common, REPLICA_MAX_LAG_MS: '300', REPLICA_TOKEN_WAIT_MS: '100' });
    tenant = await createTenant(patient.pool);
  });
  after(async () => {
    await onStandby?.end().catch(() => undefined);
    await patient?.close();
    await strict?.close();
    await servers?.stop();
  });

  const report = async (api: TestApi, serviceId: string, n: number) => {
    const res = await fetch(`${api.url}/v1/toxicity/submitReport/${serviceId}`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ report: { isToxic: true, severity: 'low', matchId: `rep-${n}` } }),
    });
    expect(res.status).to.equal(201);
    const token = res.headers.get('consistency-token');
    expect(token, 'a write carries a consistency token').to.match(/^[0-9A-F]+\/[0-9A-F]+$/);
    return token!;
  };
  const profile = async (api: TestApi, serviceId: string, token?: string) => {
    const res = await fetch(`${api.url}/v1/player/${serviceId}`, {
      headers: { ...tenant.headers, ...(token ? { 'consistency-token': token } : {}) },
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { offenseCount: number };
    return { offenseCount: body.offenseCount, source: res.headers.get('read-source') };
  };
  const replay = (what: 'pause' | 'resume') => onStandby.query(`SELECT pg_wal_replay_${what}()`);
  const until = async (what: string, ok: () => Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('every read of a write, with its token, sees the write; the standby serves reads it has caught up with', async () => {
    const player = await createTestPlayer(patient.pool);
    const sources: Record<string, number> = {};
    for (let n = 1; n <= 60; n++) {
      const token = await report(patient, player.serviceId, n);
      const read = await profile(patient, player.serviceId, token);
      expect(read.offenseCount, `read ${n} after its write`).to.equal(n);
      sources[read.source!] = (sources[read.source!] ?? 0) + 1;
    }
    expect(sources.standby ?? 0, JSON.stringify(sources)).to.be.greaterThan(30);
  });

  it('a standby that has not replayed a write: a read without the token is stale, one with it is served by the primary, and by the standby once it catches up', async () => {
    const player = await createTestPlayer(patient.pool);
    await report(patient, player.serviceId, 1);
    await until(
      'the standby has the first report',
      async () => (await profile(patient, player.serviceId)).offenseCount === 1,
    );
    await replay('pause');
    try {
      const token = await report(patient, player.serviceId, 2);
      // The patient API still reads from the standby without a token: it shows the old state...
      expect(await profile(patient, player.serviceId)).to.deep.equal({ offenseCount: 1, source: 'standby' });
      // ...and with the token, after waiting REPLICA_TOKEN_WAIT_MS, from the primary.
      const started = Date.now();
      expect(await profile(patient, player.serviceId, token)).to.deep.equal({
        offenseCount: 2,
        source: 'primary',
      });
      expect(Date.now() - started).to.be.at.least(250);
      // A token waits only for a standby, never past the primary: the strict API skips the lagging
      // standby once 300 ms behind, token or not.
      await new Promise((r) => setTimeout(r, 400));
      expect(await profile(strict, player.serviceId)).to.deep.equal({ offenseCount: 2, source: 'primary' });
      const metrics = await (await fetch(`${strict.url}/metrics`)).text();
      expect(metrics).to.match(/player_trust_read_fallbacks_total\{reason="lag"\} [1-9]/);
      expect(metrics).to.match(
        /player_trust_replica_lag_seconds\{replica="127\.0\.0\.1:\d+"\} (0\.[3-9]|[1-9])/,
      );
      const ready = (await (await fetch(`${strict.url}/readyz`)).json()) as {
        checks: { standbys: { ok: boolean; lagMs: number }[] };
      };
      expect(ready.checks.standbys).to.have.length(1);
      expect(ready.checks.standbys[0]!.lagMs).to.be.greaterThan(300);
      // Replay resumes: the token read goes back to the standby, which now shows the write.
      await replay('resume');
      await until('the standby serves the token read', async () => {
        const read = await profile(patient, player.serviceId, token);
        return read.source === 'standby' && read.offenseCount === 2;
      });
      await until(
        'the strict API reads from the standby again',
        async () => (await profile(strict, player.serviceId)).source === 'standby',
      );
    } finally {
      await replay('resume').catch(() => undefined);
    }
  });

  it('offenses, trust history, sanctions and the lobby lookup are read from the standby, and honour the token', async () => {
    const player = await createTestPlayer(patient.pool);
    const token = await report(patient, player.serviceId, 1);
    const get = (p: string) =>
      fetch(`${patient.url}${p}`, { headers: { ...tenant.headers, 'consistency-token': token } });
    for (const p of ['offenses', 'trust-history', 'sanctions']) {
      const res = await get(`/v1/player/${player.serviceId}/${p}`);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('read-source'), p).to.be.oneOf(['standby', 'primary']);
      const body = (await res.json()) as { items: unknown[] };
      if (p !== 'sanctions') expect(body.items, p).to.have.length(1);
    }
    const lookup = await fetch(`${patient.url}/v1/players/lookup`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json', 'consistency-token': token },
      body: JSON.stringify({ serviceIds: [player.serviceId] }),
    });
    expect(lookup.status).to.equal(200);
    expect(lookup.headers.get('read-source')).to.be.oneOf(['standby', 'primary']);
    const metrics = await (await fetch(`${patient.url}/metrics`)).text();
    expect(metrics).to.match(/player_trust_reads_total\{target="standby"\} [1-9]/);
  });

  it('a malformed consistency token is a 400 and changes nothing', async () => {
    const player = await createTestPlayer(patient.pool);
    for (const bad of ['nope', '0/', 'G/1', '1/2/3', '123456789/0']) {
      const res = await fetch(`${patient.url}/v1/toxicity/submitReport/${player.serviceId}`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json', 'consistency-token': bad },
        body: JSON.stringify({ report: { isToxic: true, severity: 'low', matchId: 'bad-token' } }),
      });
      expect(res.status, bad).to.equal(400);
      expect(((await res.json()) as { code: string }).code).to.equal('invalid_consistency_token');
    }
    expect((await profile(patient, player.serviceId)).offenseCount).to.equal(0);
  });

  it('a standby SIGKILLed under read load: not one read fails; it serves again once restarted', async () => {
    const player = await createTestPlayer(strict.pool);
    await report(strict, player.serviceId, 1);
    let failed = 0;
    let reads = 0;
    const statuses: Record<number, number> = {};
    const bySource: Record<string, number> = {};
    let loading = true;
    const load = async () => {
      while (loading) {
        const res = await fetch(`${strict.url}/v1/player/${player.serviceId}`, { headers: tenant.headers });
        reads++;
        if (res.status !== 200) {
          failed++;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        } else {
          const source = res.headers.get('read-source')!;
          bySource[source] = (bySource[source] ?? 0) + 1;
          if (((await res.json()) as { offenseCount: number }).offenseCount !== 1) failed++;
        }
      }
    };
    const workers = Array.from({ length: 8 }, load);
    try {
      await until('reads from the standby', async () => (bySource.standby ?? 0) > 20);
      process.kill(standby.pid()!, 'SIGKILL');
      const afterKill = reads;
      await until('reads carry on', async () => reads > afterKill + 200);
      await standby.start();
      const served = bySource.standby ?? 0;
      await until('the standby serves again', async () => (bySource.standby ?? 0) > served + 20, 20_000);
    } finally {
      loading = false;
      await Promise.all(workers);
      await onStandby.end().catch(() => undefined);
      await until('a connection to the standby', async () => {
        onStandby = new pg.Client({ connectionString: standby.url });
        onStandby.on('error', () => undefined);
        return onStandby.connect().then(
          () => true,
          () => false,
        );
      });
    }
    process.stdout.write(`      reads: ${reads}, by source ${JSON.stringify(bySource)}, failed ${failed}\n`);
    expect(failed, `answers other than 200: ${JSON.stringify(statuses)}`).to.equal(0);
    expect(bySource.primary ?? 0).to.be.greaterThan(0);
  });
});
