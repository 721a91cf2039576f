import { Queue } from 'bullmq';
import { expect } from 'chai';
import { startTestWorker } from '../helpers/workers.js';
import { announceExpiry } from '../../common/usecases/sanctions.js';
import type { Queryable } from '../../common/data/db.js';
import { lookupPlayers } from '../../common/data/repos/sanctions.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import { createLogger } from '../../common/logger.js';
import { QUEUES } from '../../common/queues/index.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { reviewProcessor } from '../../worker/processors/review.js';
import { startWorker, type RunningWorker } from '../../worker/run.js';
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

interface SanctionBody {
  id: string;
  type: string;
  scope: string;
  active: boolean;
  caseId: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  issuedBy: { kind: string; id: string };
  code?: string;
}

describe('sanctions', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let now = Date.now();
  let a: Tenant;
  let b: Tenant;
  let mod: TestModerator;
  let admin: TestModerator;

  before(async () => {
    // The clock starts when the suite does, not when its file was loaded: in a full run that is many
    // minutes earlier, and a sanction placed "now" would already have expired for BullMQ, which
    // holds its expiry job by the real time.
    now = Date.now();
    api = await startTestApi({}, { clock: () => new Date(now) });
    review = await startTestWorker(api.config, 'review');
    [a, b] = [await createTenant(api.pool, 'A'), await createTenant(api.pool, 'B')];
    [mod, admin] = [await createTestModerator(api), await createTestModerator(api, 'admin')];
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  /** The review worker's case of this player (its first, when it has several). */
  const caseOf = (serviceId: string) =>
    eventually(`a case of ${serviceId}`, async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id WHERE p.service_id = $1`,
        [serviceId],
      );
      return rows[0]?.id;
    });
  const claim = (caseId: string, by = mod) =>
    call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: by.headers,
    });

  /** A player of both studios' games. */
  async function sharedPlayer() {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: a.game.clientId });
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: b.game.clientId });
    return p;
  }
  const byModerator = (serviceId: string, json: object, m = mod) =>
    call<SanctionBody>(api.url, 'POST', `/v1/admin/players/${serviceId}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: m.headers,
      json,
    });
  const byStudio = (serviceId: string, json: object, t = a) =>
    call<SanctionBody>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: t.headers,
      json,
    });
  const seen = async (serviceId: string, t: Tenant, active = false) =>
    (
      await call<{ items: SanctionBody[] }>(
        api.url,
        'GET',
        `/v1/player/${serviceId}/sanctions${active ? '?active=true' : ''}`,
        { spec: '/v1/player/{serviceId}/sanctions', headers: t.headers },
      )
    ).body.items;
  const lookup = async (serviceIds: string[], t: Tenant) =>
    (
      await call<{
        players: { serviceId: string; trustScore: number; activeSanctions: { type: string }[] }[];
        notFound: string[];
      }>(api.url, 'POST', '/v1/players/lookup', {
        spec: '/v1/players/lookup',
        headers: t.headers,
        json: { serviceIds },
      })
    ).body;

  it('a moderator places every type; the rules of each period are enforced', async () => {
    const player = await sharedPlayer();
    for (const [type, extra] of [
      ['warning', {}],
      ['chat_restriction', { durationSeconds: 3600 }],
      ['matchmaking_restriction', { durationSeconds: 86_400 }],
      ['temporary_ban', { expiresAt: new Date(now + 7 * 86_400_000).toISOString() }],
      ['permanent_ban', {}],
    ] as const) {
      const res = await byModerator(player.serviceId, { type, reason: `${type} for cause`, ...extra });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ type, scope: 'global', active: true, revokedAt: null });
      expect(res.body.issuedBy).to.deep.equal({ kind: 'moderator', id: mod.id });
    }
    for (const bad of [
      { type: 'permanent_ban', reason: 'x', durationSeconds: 3600 },
      { type: 'temporary_ban', reason: 'x' },
      { type: 'chat_restriction', reason: 'x', durationSeconds: 3600, expiresAt: new Date().toISOString() },
      { type: 'chat_restriction', reason: 'x', expiresAt: new Date(now - 1000).toISOString() },
      { type: 'shadow_ban', reason: 'x' },
      { type: 'warning', reason: '' },
      { type: 'warning', reason: 'x', scope: '00000000-0000-4000-8000-000000000000' },
    ]) {
      const res = await byModerator(player.serviceId, bad);
      expect(res.status, JSON.stringify(bad)).to.equal(400);
    }
    expect((await byModerator('nobody-here', { type: 'warning', reason: 'x' })).status).to.equal(404);
    expect((await seen(player.serviceId, a)).map((s) => s.type)).to.have.length(5);
  });

  it('a studio sanctions its own players, scoped to itself; another studio neither sees nor revokes it', async () => {
    const player = await sharedPlayer();
    const stranger = await createTestPlayer(api.pool); // plays none of A's games
    const placed = await byStudio(player.serviceId, {
      type: 'chat_restriction',
      reason: 'spam in chat',
      durationSeconds: 3600,
    });
    expect(placed.status, placed.text).to.equal(201);
    expect(placed.body).to.include({ scope: a.studioId, active: true });
    expect((await byStudio(stranger.serviceId, { type: 'warning', reason: 'x' })).status).to.equal(404);
    expect(
      (await byStudio(player.serviceId, { type: 'warning', reason: 'x', scope: 'global' })).status,
    ).to.equal(400);
    const global = await byModerator(player.serviceId, {
      type: 'matchmaking_restriction',
      reason: 'smurfing',
      durationSeconds: 86_400,
    });

    expect((await seen(player.serviceId, a)).map((s) => s.id).sort()).to.deep.equal(
      [placed.body.id, global.body.id].sort(),
    );
    expect((await seen(player.serviceId, b)).map((s) => s.id)).to.deep.equal([global.body.id]);
    const profile = await call<{ activeSanctions: { id: string }[] }>(
      api.url,
      'GET',
      `/v1/player/${player.serviceId}`,
      {
        spec: '/v1/player/{serviceId}',
        headers: b.headers,
      },
    );
    expect(profile.body.activeSanctions.map((s) => s.id)).to.deep.equal([global.body.id]);
    expect(
      (await lookup([player.serviceId], b)).players[0]!.activeSanctions.map((s) => s.type),
    ).to.deep.equal(['matchmaking_restriction']);

    const revokeAs = (t: Tenant, id: string) =>
      call<SanctionBody>(api.url, 'POST', `/v1/player/${player.serviceId}/sanctions/${id}/revoke`, {
        spec: '/v1/player/{serviceId}/sanctions/{sanctionId}/revoke',
        headers: t.headers,
        json: { reason: 'appeal accepted' },
      });
    expect((await revokeAs(b, placed.body.id)).status).to.equal(404); // another studio's
    expect((await revokeAs(a, global.body.id)).status).to.equal(404); // a moderator's global one
    const revoked = await revokeAs(a, placed.body.id);
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.include({ active: false });
    expect(revoked.body.revokedAt).to.be.a('string');
    expect((await seen(player.serviceId, a, true)).map((s) => s.id)).to.deep.equal([global.body.id]);

    // Every placement and revocation is in the audit log, the studio's too.
    const audit = await call<{
      items: { action: string; studioId: string | null; details: { sanctionId: string } }[];
    }>(api.url, 'GET', '/v1/admin/audit?limit=100', { spec: '/v1/admin/audit', headers: admin.headers });
    const mine = audit.body.items.filter((e) =>
      [placed.body.id, global.body.id].includes(e.details.sanctionId),
    );
    expect(mine.map((e) => [e.action, e.studioId]).sort()).to.deep.equal(
      [
        ['place_sanction', a.studioId],
        ['place_sanction', null],
        ['revoke_sanction', a.studioId],
      ].sort(),
    );
  });

  it('expiry needs no job: active flips with the clock', async () => {
    const player = await sharedPlayer();
    const placed = await byModerator(player.serviceId, {
      type: 'temporary_ban',
      reason: 'cheating',
      durationSeconds: 86_400,
    });
    expect((await seen(player.serviceId, a, true)).map((s) => s.id)).to.deep.equal([placed.body.id]);
    now += 86_400_000 + 1000;
    try {
      expect(await seen(player.serviceId, a, true)).to.deep.equal([]);
      expect((await seen(player.serviceId, a))[0]).to.include({ id: placed.body.id, active: false });
      expect((await lookup([player.serviceId], a)).players[0]!.activeSanctions).to.deep.equal([]);
    } finally {
      now -= 86_400_000 + 1000;
    }
  });

  it('the lobby check reads 100 ids (found, missing, sanctioned) in one statement', async () => {
    // One after another: 60 password hashes at once fill libuv's thread pool, where a new database
    // connection's SCRAM handshake also waits, past the pool's 5 s connect timeout on a busy machine.
    const players: Awaited<ReturnType<typeof createTestPlayer>>[] = [];
    for (let i = 0; i < 60; i++) players.push(await createTestPlayer(api.pool));
    await byModerator(players[0]!.serviceId, { type: 'permanent_ban', reason: 'botting' });
    const ids = [...players.map((p) => p.serviceId), ...Array.from({ length: 40 }, (_, i) => `ghost-${i}`)];
    let statements = 0;
    const counted: Queryable = {
      query: ((...args: Parameters<Queryable['query']>) => {
        statements++;
        return (api.pool.query as (...a: unknown[]) => unknown)(...args);
      }) as Queryable['query'],
    };
    const found = await lookupPlayers(counted, ids, a.studioId, new Date(now));
    expect(statements).to.equal(1);
    expect(found).to.have.length(60);
    expect(
      found
        .find((p) => p.serviceId === players[0]!.serviceId)!
        .activeSanctions.map((s) => ({ ...s, id: '-' })),
    ).to.deep.equal([
      { id: '-', type: 'permanent_ban', scopeStudioId: null, expiresAt: null, matchesLeft: null },
    ]);
    const res = await lookup(ids, a);
    expect(res.players.map((p) => p.serviceId)).to.deep.equal(ids.slice(0, 60)); // in the order asked
    expect(res.notFound.sort()).to.deep.equal(ids.slice(60).sort());
    const tooMany = await call(api.url, 'POST', '/v1/players/lookup', {
      spec: '/v1/players/lookup',
      headers: a.headers,
      json: { serviceIds: Array.from({ length: 101 }, (_, i) => `p${i}`) },
    });
    expect(tooMany.status).to.equal(400);
  });

  it('upholding a case may place a sanction in the same transaction; dismissing may not', async () => {
    const player = await sharedPlayer();
    await call(api.url, 'POST', `/v1/anticheat/submitReport/${player.serviceId}`, {
      spec: '/v1/anticheat/submitReport/{serviceId}',
      headers: a.headers,
      json: { report: { isCheatDetected: true, severity: 'high' } },
    });
    const caseId = await caseOf(player.serviceId);
    await claim(caseId);
    const resolve = (json: object) =>
      call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: mod.headers,
        json,
      });
    const sanction = { type: 'temporary_ban', reason: 'aimbot confirmed', durationSeconds: 7 * 86_400 };
    expect((await resolve({ outcome: 'dismissed', note: 'no', sanction })).status).to.equal(400);
    expect((await resolve({ outcome: 'upheld', note: 'replay confirms', sanction })).status).to.equal(200);
    const [placed] = await seen(player.serviceId, b);
    expect(placed).to.include({ type: 'temporary_ban', caseId, active: true, scope: 'global' });
  });

  it('sanction.applied and sanction.revoked go to the studios that may see the sanction', async () => {
    const player = await sharedPlayer();
    for (const t of [a, b])
      await insertWebhook(api.pool, {
        studioId: t.studioId,
        url: 'https://hooks.example/pt',
        events: ['sanction.applied', 'sanction.revoked'],
        sealedSecret: Buffer.from('sealed'),
      });
    const scoped = await byStudio(player.serviceId, { type: 'warning', reason: 'language' });
    const global = await byModerator(player.serviceId, { type: 'warning', reason: 'language' });
    const { rows } = await api.pool.query<{ studio_id: string; sanction: string }>(
      `SELECT w.studio_id, d.payload->'data'->'sanction'->>'id' AS sanction
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.event_type = 'sanction.applied' AND d.payload->'data'->'sanction'->>'id' = ANY($1)`,
      [[scoped.body.id, global.body.id]],
    );
    const got = rows.map(
      (r) =>
        `${r.studio_id === a.studioId ? 'A' : 'B'}:${r.sanction === scoped.body.id ? 'scoped' : 'global'}`,
    );
    expect(got.sort()).to.deep.equal(['A:global', 'A:scoped', 'B:global']);
  });

  it('report.outcome tells each filing studio what became of its own reports, and no one else', async () => {
    const player = await sharedPlayer();
    const c = await createTenant(api.pool, 'C');
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: c.game.clientId });
    for (const t of [a, b, c])
      await insertWebhook(api.pool, {
        studioId: t.studioId,
        url: 'https://hooks.example/outcome',
        events: ['report.outcome'],
        sealedSecret: Buffer.from('sealed'),
      });
    for (const [t, reporterId] of [
      [a, 'ra'],
      [b, 'rb'],
    ] as const)
      await call(api.url, 'POST', `/v1/toxicity/submitReport/${player.serviceId}`, {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: t.headers,
        json: { report: { isToxic: true, reporterId, matchId: `m-${reporterId}` } },
      });
    const caseId = await eventually('the case with both reports', async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
          WHERE p.service_id = $1 AND c.reports_count = 2`,
        [player.serviceId],
      );
      return rows[0]?.id;
    });
    await claim(caseId);
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: {
        outcome: 'upheld',
        note: 'abusive chat',
        sanction: { type: 'chat_restriction', reason: 'abusive chat', durationSeconds: 86_400 },
      },
    });
    const { rows } = await api.pool.query<{ studio_id: string; data: Record<string, unknown> }>(
      `SELECT w.studio_id, d.payload->'data' AS data FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.event_type = 'report.outcome' AND d.payload->'data'->>'caseId' = $1`,
      [caseId],
    );
    const byStudio = new Map(rows.map((r) => [r.studio_id, r.data]));
    expect([...byStudio.keys()].sort()).to.deep.equal([a.studioId, b.studioId].sort());
    expect(byStudio.get(a.studioId)).to.deep.include({
      outcome: 'upheld',
      sanctionTypes: ['chat_restriction'],
    });
    expect(
      (byStudio.get(a.studioId)!.reports as { reporterId: string; matchId: string }[]).map((r) => [
        r.reporterId,
        r.matchId,
      ]),
    ).to.deep.equal([['ra', 'm-ra']]);
  });

  it('case deadlines: dueAt by highest severity, the overdue filter, the gauge and the review stats', async () => {
    const player = await sharedPlayer();
    await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
      spec: '/v1/afk/submitReport/{serviceId}',
      headers: a.headers,
      json: { report: { isAfk: true, severity: 'low' } },
    });
    const caseId = await caseOf(player.serviceId);
    const detail = async () =>
      (
        await call<{ dueAt: string; openedAt: string; overdue: boolean; reportsCount: number }>(
          api.url,
          'GET',
          `/v1/admin/cases/${caseId}`,
          { spec: '/v1/admin/cases/{caseId}', headers: mod.headers },
        )
      ).body;
    let c = await detail();
    expect(Date.parse(c.dueAt) - Date.parse(c.openedAt)).to.equal(168 * 3600_000); // low: 7 days
    // A critical report makes it due 4 h after opening.
    await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
      spec: '/v1/afk/submitReport/{serviceId}',
      headers: b.headers,
      json: { report: { isAfk: true, severity: 'critical' } },
    });
    c = await eventually('the second filing', async () => {
      const d = await detail();
      return d.reportsCount === 2 ? d : undefined;
    });
    expect(Date.parse(c.dueAt) - Date.parse(c.openedAt)).to.equal(4 * 3600_000);
    expect(c.overdue).to.equal(false);

    // Five hours later (the clock of the database moved: here, the case's dates do).
    await api.pool.query(
      `UPDATE review_cases SET opened_at = opened_at - interval '5 hours', due_at = due_at - interval '5 hours'
        WHERE id = $1`,
      [caseId],
    );
    expect((await detail()).overdue).to.equal(true);
    const overdue = await call<{ items: { id: string }[] }>(
      api.url,
      'GET',
      '/v1/admin/cases?overdue=true&limit=100',
      {
        spec: '/v1/admin/cases',
        headers: mod.headers,
      },
    );
    expect(overdue.body.items.map((i) => i.id)).to.include(caseId);
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(Number(/^player_trust_cases_overdue (\d+)$/m.exec(metrics)![1])).to.be.at.least(1);

    await claim(caseId);
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'dismissed', note: 'went AFK for a disconnect' },
    });
    const stats = await call<{
      open: number;
      overdue: number;
      days: { date: string; inbound: number; resolved: number; medianHandlingSeconds: number | null }[];
    }>(api.url, 'GET', '/v1/admin/stats?days=3', { spec: '/v1/admin/stats', headers: mod.headers });
    expect(stats.status).to.equal(200);
    expect(stats.body.days).to.have.length(3);
    const today = stats.body.days[0]!;
    expect(today.date).to.equal(new Date().toISOString().slice(0, 10));
    expect(today.resolved).to.be.at.least(1);
    expect(today.medianHandlingSeconds).to.be.a('number');
    expect(stats.body.overdue).to.be.a('number');
    expect(
      (
        await call(api.url, 'GET', '/v1/admin/stats?days=0', {
          spec: '/v1/admin/stats',
          headers: mod.headers,
        })
      ).status,
    ).to.equal(400);
  });

  it('sanction.expired comes from a delayed job written with the sanction, once, and never for a revoked one', async () => {
    const player = await sharedPlayer();
    await insertWebhook(api.pool, {
      studioId: a.studioId,
      url: 'https://hooks.example/expiry',
      events: ['sanction.expired'],
      sealedSecret: Buffer.from('sealed'),
    });
    const placed = await byModerator(player.serviceId, {
      type: 'chat_restriction',
      reason: 'x',
      durationSeconds: 600,
    });
    const revokedOne = await byModerator(player.serviceId, {
      type: 'chat_restriction',
      reason: 'y',
      durationSeconds: 600,
    });
    await call(
      api.url,
      'POST',
      `/v1/admin/players/${player.serviceId}/sanctions/${revokedOne.body.id}/revoke`,
      {
        spec: '/v1/admin/players/{serviceId}/sanctions/{sanctionId}/revoke',
        headers: mod.headers,
        json: { reason: 'mistake' },
      },
    );
    // The job is in the outbox with the sanction, for its expiry time, and BullMQ holds it delayed.
    const { rows } = await api.pool.query<{ payload: { runAt: string } }>(
      'SELECT payload FROM outbox WHERE job_id = $1',
      [`sanction-expiry-${placed.body.id}`],
    );
    expect(rows[0]!.payload.runAt).to.equal(placed.body.expiresAt);
    const queue = new Queue(QUEUES.review, {
      connection: { url: api.config.redisUrl! },
      prefix: api.config.queuePrefix,
    });
    try {
      const job = await eventually(
        'the delayed job',
        async () => (await queue.getJob(`sanction-expiry-${placed.body.id}`)) ?? undefined,
      );
      expect(await job.getState()).to.equal('delayed');
      // Held until the expiry: the delay is what was left of the sanction when the job was added.
      expect(job.opts.delay).to.be.closeTo(Date.parse(placed.body.expiresAt!) - job.timestamp, 2000);
      expect(job.opts.delay).to.be.greaterThan(0);
    } finally {
      await queue.close();
    }
    const at = new Date(Date.parse(placed.body.expiresAt!) + 1000);
    let early: unknown;
    await announceExpiry(api.pool, placed.body.id, new Date(Date.parse(placed.body.expiresAt!) - 1000)).catch(
      (e: unknown) => (early = e),
    );
    expect(early).to.be.instanceOf(Error);
    expect((await announceExpiry(api.pool, placed.body.id, at)).announced).to.equal(true);
    expect((await announceExpiry(api.pool, placed.body.id, at)).announced).to.equal(false);
    expect((await announceExpiry(api.pool, revokedOne.body.id, at)).announced).to.equal(false);
    const { rows: sent } = await api.pool.query(
      `SELECT d.payload->'data'->'sanction'->>'id' AS id FROM webhook_deliveries d WHERE d.event_type = 'sanction.expired'
          AND d.payload->'data'->'sanction'->>'id' = ANY($1)`,
      [[placed.body.id, revokedOne.body.id]],
    );
    expect(sent).to.deep.equal([{ id: placed.body.id }]);
  });

  it('strikes: each upheld case adds one; concurrent upholds cross each rung of the ladder exactly once', async () => {
    const laddered = await startTestApi({
      STRIKE_LADDER: '2=matchmaking_restriction/1d,3=temporary_ban/7d,4=permanent_ban',
    });
    const worker = await startWorker(
      laddered.config,
      QUEUES.review,
      reviewProcessor,
      createLogger('silent', 'w'),
    );
    try {
      const t = await createTenant(laddered.pool);
      const m = await createTestModerator(laddered);
      const player = await createTestPlayer(laddered.pool);
      const kinds = [
        ['anticheat', { isCheatDetected: true }],
        ['toxicity', { isToxic: true }],
        ['afk', { isAfk: true }],
        ['griefing', { isGriefing: true }],
      ] as const;
      for (const [kind, report] of kinds)
        await call(laddered.url, 'POST', `/v1/${kind}/submitReport/${player.serviceId}`, {
          spec: `/v1/${kind}/submitReport/{serviceId}` as never,
          headers: t.headers,
          json: { report },
        });
      const cases = await eventually('four cases', async () => {
        const { rows } = await laddered.pool.query<{ id: string }>(
          `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id WHERE p.service_id = $1`,
          [player.serviceId],
        );
        return rows.length === 4 ? rows.map((r) => r.id) : undefined;
      });
      for (const id of cases)
        await call(laddered.url, 'POST', `/v1/admin/cases/${id}/claim`, {
          spec: '/v1/admin/cases/{caseId}/claim',
          headers: m.headers,
        });
      const resolved = await Promise.all(
        cases.map((id) =>
          call(laddered.url, 'POST', `/v1/admin/cases/${id}/resolve`, {
            spec: '/v1/admin/cases/{caseId}/resolve',
            headers: m.headers,
            json: { outcome: 'upheld', note: 'confirmed' },
          }),
        ),
      );
      expect(resolved.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      const { rows: strikes } = await laddered.pool.query(
        'SELECT count(*)::int AS n FROM strikes s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1',
        [player.serviceId],
      );
      expect(strikes[0]).to.deep.equal({ n: 4 });
      const { rows } = await laddered.pool.query<{ type: string; reason: string }>(
        `SELECT s.type, s.reason FROM sanctions s JOIN players p ON p.id = s.player_id
          WHERE p.service_id = $1 ORDER BY s.created_at, s.type`,
        [player.serviceId],
      );
      expect(rows.map((r) => r.type).sort()).to.deep.equal([
        'matchmaking_restriction',
        'permanent_ban',
        'temporary_ban',
      ]);
      expect(rows.map((r) => r.reason).sort()).to.deep.equal([
        'Strike ladder: 2 active strikes.',
        'Strike ladder: 3 active strikes.',
        'Strike ladder: 4 active strikes.',
      ]);
      // The audit log says the ladder placed them (issue 49: they read as the moderator's own).
      const audit = await call<{ items: { action: string; summary: string }[] }>(
        laddered.url,
        'GET',
        `/v1/admin/audit?player=${player.serviceId}`,
        { spec: '/v1/admin/audit', headers: (await createTestModerator(laddered, 'admin')).headers },
      );
      expect(audit.status, audit.text).to.equal(200);
      const placements = audit.body.items.filter((i) => i.action === 'place_sanction').map((i) => i.summary);
      expect(placements).to.have.length(3);
      for (const said of placements) expect(said).to.match(/^The strike ladder placed a /);
    } finally {
      await worker.stop();
      await laddered.close();
    }
  });
});
