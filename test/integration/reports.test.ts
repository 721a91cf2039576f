import { Queue } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { JOB_NAMES, offenseBatchJobId, QUEUES, type QueueName } from '../../common/queues/index.js';
import { offenseJobRows } from '../helpers/reports.js';
import { linkPlayer, setGameLimits } from '../../common/usecases/provisioning.js';
import {
  createTenant,
  createTestPlayer,
  fileBatch,
  offenseCount,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { call, type Res } from '../helpers/http.js';
import { CuttableProxy } from '../../scripts/lib/cuttable-proxy.js';

type Submit = {
  message: string;
  playerId: string;
  gameId: string;
  trustScore: number;
  penaltyApplied: number;
  report: Record<string, unknown> & {
    _id: string;
    evidence: Record<string, unknown>[];
    details: Record<string, unknown>;
  };
  timestamp: string;
};

const KIND_PATHS = {
  anticheat: '/v1/anticheat/submitReport/{serviceId}',
  toxicity: '/v1/toxicity/submitReport/{serviceId}',
  afk: '/v1/afk/submitReport/{serviceId}',
  griefing: '/v1/griefing/submitReport/{serviceId}',
} as const;
type Kind = keyof typeof KIND_PATHS;

async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('reports and player profiles', () => {
  let api: TestApi;
  let tenant: Tenant;
  let queues: Record<string, Queue>;
  let redis: Redis;

  before(async () => {
    api = await startTestApi();
    tenant = await createTenant(api.pool, 'Reporter');
    redis = new Redis(api.config.redisUrl!, { maxRetriesPerRequest: null });
    queues = {
      [QUEUES.enrichment]: new Queue(QUEUES.enrichment, {
        connection: redis,
        prefix: api.config.queuePrefix,
      }),
      [QUEUES.review]: new Queue(QUEUES.review, { connection: redis, prefix: api.config.queuePrefix }),
    };
  });
  after(async () => {
    await Promise.all(Object.values(queues).map((q) => q.close()));
    redis.disconnect();
    await api.close();
  });

  const submit = (
    kind: Kind,
    serviceId: string,
    report: unknown,
    headers: Record<string, string> = tenant.headers,
    base = api.url,
  ) =>
    call<Submit>(base, 'POST', `/v1/${kind}/submitReport/${serviceId}`, {
      headers,
      json: { report },
      spec: KIND_PATHS[kind],
    });

  describe('POST /v1/{kind}/submitReport/{serviceId}', () => {
    it('anti-cheat: stores the normalised offense, applies the penalty and answers the spec 201 body', async () => {
      const player = await createTestPlayer(api.pool);
      const res = await submit('anticheat', player.serviceId, {
        isCheatDetected: 'yes',
        type: 'Aimbot',
        // Control characters are stripped (a NUL is refused outright: hardening.test.ts).
        description: 'snapped\u0007 through\u001b walls',
        severity: 'HIGH',
        confidence: '90%',
        logs: ['frame 1: snap', 'frame 2: snap'],
        evidence: [{ type: 'video', url: 'https://cdn.example/clip.mp4' }],
        matchId: 'match-1',
        source: 'anticheat_system',
      });
      expect(res.status).to.equal(201);
      const b = res.body;
      expect(b).to.include({
        message: 'Anti-cheat report submitted successfully',
        playerId: player.serviceId,
        gameId: tenant.game.id,
        trustScore: 86,
        penaltyApplied: 14,
      });
      expect(Date.parse(b.timestamp)).to.be.closeTo(Date.now(), 10_000);
      expect(b.report).to.include({
        player: player.serviceId,
        game: tenant.game.id,
        studio: tenant.studioId,
        type: 'cheating',
        description: 'snapped through walls',
        severity: 'high',
        penaltyPoints: 14,
        reviewedByAdmin: false,
        resolved: false,
        resolvedAt: null,
      });
      expect(b.report.evidence).to.have.length(2);
      expect(b.report.evidence[0]).to.include({ type: 'video', url: 'https://cdn.example/clip.mp4' });
      expect(b.report.evidence[1]).to.include({ type: 'text', content: 'frame 1: snap\nframe 2: snap' });
      expect(b.report.evidence[1]!.submittedAt).to.be.a('string');
      expect(b.report.details).to.deep.equal({ cheatType: 'aimbot', confidence: 0.9 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(86);
      const { rows } = await api.pool.query(
        'SELECT type, penalty_points, detected FROM offenses WHERE id = $1',
        [b.report._id],
      );
      expect(rows).to.deep.equal([{ type: 'cheating', penalty_points: 14, detected: true }]);
      const links = await api.pool.query(
        'SELECT 1 FROM player_games pg JOIN players p ON p.id = pg.player_id WHERE p.service_id = $1 AND pg.game_id = $2',
        [player.serviceId, tenant.game.id],
      );
      // Only the player's consent or the game's studio links a game; a report never does.
      expect(links.rowCount, 'the reporting game is not linked to the player').to.equal(0);
    });

    it("enqueues an enrichment and a review job for the report's batch, under ids from its first offense, after the commit", async () => {
      const player = await createTestPlayer(api.pool);
      const res = await submit('toxicity', player.serviceId, { isToxic: true });
      const id = res.body.report._id;
      // Alone in its batch: one row a queue, its jobs named after it.
      const rows = await waitFor(async () => {
        const found = await offenseJobRows(api.pool, [id]);
        return found.length === 2 && found.every((r) => r.sent) ? found : undefined;
      });
      expect(rows.map((r) => [r.queue, r.job_name, r.job_id])).to.deep.equal([
        [QUEUES.enrichment, JOB_NAMES.enrichOffenses, offenseBatchJobId(QUEUES.enrichment, id)],
        [QUEUES.review, JOB_NAMES.reviewOffenses, offenseBatchJobId(QUEUES.review, id)],
      ]);
      for (const name of [QUEUES.enrichment, QUEUES.review]) {
        const job = await waitFor(() => queues[name]!.getJob(offenseBatchJobId(name, id)));
        expect(job.data).to.deep.equal({ offenseIds: [id] });
      }
    });

    it('a bulk request of many players owes two jobs, each naming every offense in order', async () => {
      const players = await Promise.all(Array.from({ length: 6 }, () => createTestPlayer(api.pool)));
      const ids = await fileBatch(
        api.url,
        tenant,
        players.map((p, i) => ({
          kind: 'afk',
          serviceId: p.serviceId,
          report: { isAfk: i % 3 !== 0, severity: 'low' },
        })),
      );
      const rows = await waitFor(async () => {
        const found = await offenseJobRows(api.pool, ids);
        return found.every((r) => r.sent) ? found : undefined;
      });
      // Filed by one statement (the group commit takes the request's reports together): one job a
      // queue, recorded offenses (no finding) included, as each has its evidence and events.
      expect(rows.map((r) => r.queue)).to.deep.equal([QUEUES.enrichment, QUEUES.review]);
      for (const row of rows) {
        expect(row.payload).to.deep.equal({ offenseIds: ids });
        expect(row.job_id).to.equal(offenseBatchJobId(row.queue as QueueName, ids[0]!));
      }
    });

    const capCases: [Kind, Record<string, unknown>, number][] = [
      ['anticheat', { isCheatDetected: true, severity: 'critical', confidence: 1 }, 20],
      [
        'griefing',
        {
          isGriefing: true,
          severity: 'critical',
          affectedPlayers: 30,
          incidents: [
            { severity: 'critical' },
            { severity: 'high' },
            { severity: 'high' },
            { severity: 'low' },
            { severity: 'low' },
          ],
        },
        15,
      ],
      [
        'toxicity',
        { isToxic: true, severity: 'critical', category: 'threats', messages: ['I will find you'] },
        10,
      ],
      ['afk', { isAfk: 1, afkDurationSeconds: 1700, matchDurationSeconds: 1800, occurrences: 9 }, 5],
    ];
    for (const [kind, report, cap] of capCases) {
      it(`${kind}: the heaviest report is capped at ${cap} points`, async () => {
        const player = await createTestPlayer(api.pool);
        const res = await submit(kind, player.serviceId, report);
        expect(res.status).to.equal(201);
        expect(res.body.penaltyApplied).to.equal(cap);
        expect(res.body.trustScore).to.equal(100 - cap);
        expect(await trustScore(api.pool, player.serviceId)).to.equal(100 - cap);
      });
    }

    for (const [kind, flagField] of [
      ['anticheat', 'isCheatDetected'],
      ['toxicity', 'isToxic'],
      ['afk', 'isAfk'],
      ['griefing', 'isGriefing'],
    ] as const) {
      it(`${kind}: a report whose flag is false is stored with penalty 0`, async () => {
        const player = await createTestPlayer(api.pool);
        const res = await submit(kind, player.serviceId, { [flagField]: 'false', severity: 'critical' });
        expect(res.status).to.equal(201);
        expect(res.body.penaltyApplied).to.equal(0);
        expect(res.body.report.penaltyPoints).to.equal(0);
        expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
        expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
      });
    }

    it('never takes the trust score below 0, and penaltyApplied is what was actually deducted', async () => {
      const player = await createTestPlayer(api.pool);
      await api.pool.query('UPDATE players SET trust_score = 7 WHERE service_id = $1', [player.serviceId]);
      const res = await submit('anticheat', player.serviceId, {
        isCheatDetected: true,
        severity: 'critical',
      });
      expect(res.body).to.include({ trustScore: 0, penaltyApplied: 7 });
      expect(res.body.report.penaltyPoints).to.equal(7);
      const again = await submit('anticheat', player.serviceId, {
        isCheatDetected: true,
        severity: 'critical',
      });
      expect(again.body).to.include({ trustScore: 0, penaltyApplied: 0 });
    });

    it('400 names the offending fields and stores nothing', async () => {
      const player = await createTestPlayer(api.pool);
      const res = await submit('griefing', player.serviceId, {
        isGriefing: 'perhaps',
        severity: 'apocalyptic',
        trustScore: 100,
      });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ code: 'validation_failed' });
      const fields = (res.body as unknown as { errors: { field: string }[] }).errors.map((e) => e.field);
      expect(fields).to.have.members(['report.isGriefing', 'report.severity', 'report.trustScore']);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
    });

    it('400 for a missing body', async () => {
      const player = await createTestPlayer(api.pool);
      const res = await call(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
        headers: tenant.headers,
        spec: KIND_PATHS.afk,
      });
      expect(res.status).to.equal(400);
      expect((res.body as { errors: { field: string }[] }).errors[0]!.field).to.equal('report');
    });

    it('401 with the same body whether the client_id is missing, unknown or the secret wrong', async () => {
      const player = await createTestPlayer(api.pool);
      const attempts: Record<string, string>[] = [
        {},
        { client_id: tenant.game.clientId },
        { client_id: 'gm_doesnotexist', client_secret: tenant.game.clientSecret },
        { client_id: tenant.game.clientId, client_secret: 'wrong-secret' },
      ];
      const bodies = [];
      for (const headers of attempts) {
        const res = await submit('anticheat', player.serviceId, { isCheatDetected: true }, headers);
        expect(res.status).to.equal(401);
        const { requestId: _ignored, ...rest } = res.body as unknown as Record<string, unknown>;
        bodies.push(rest);
      }
      for (const body of bodies) expect(body).to.deep.equal(bodies[0]);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
    });

    it('404 for an unknown player, with nothing written', async () => {
      const before = await api.pool.query<{ o: number; x: number }>(
        'SELECT (SELECT count(*) FROM offenses)::int AS o, (SELECT count(*) FROM outbox)::int AS x',
      );
      const res = await submit('anticheat', 'no-such-player', { isCheatDetected: true });
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 'not_found' });
      const after = await api.pool.query(
        'SELECT (SELECT count(*) FROM offenses)::int AS o, (SELECT count(*) FROM outbox)::int AS x',
      );
      expect(after.rows[0]).to.deep.equal(before.rows[0]);
    });
  });

  describe('Idempotency-Key', () => {
    it('the same key and body replays the first response and applies nothing again', async () => {
      const player = await createTestPlayer(api.pool);
      const headers = { ...tenant.headers, 'idempotency-key': `k-${player.serviceId}` };
      const first = await submit(
        'griefing',
        player.serviceId,
        { isGriefing: true, severity: 'high', affectedPlayers: 2 },
        headers,
      );
      // Same body, keys in another order: still the same request.
      const second = await submit(
        'griefing',
        player.serviceId,
        { affectedPlayers: 2, severity: 'high', isGriefing: true },
        headers,
      );
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100 - first.body.penaltyApplied);
    });

    it('the same key with another body gets 422 and changes nothing', async () => {
      const player = await createTestPlayer(api.pool);
      const headers = { ...tenant.headers, 'idempotency-key': `k2-${player.serviceId}` };
      await submit('afk', player.serviceId, { isAfk: true, severity: 'low' }, headers);
      const res = await submit('afk', player.serviceId, { isAfk: true, severity: 'critical' }, headers);
      expect(res.status).to.equal(422);
      expect(res.body).to.include({ code: 'idempotency_key_reused' });
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
    });

    it('a duplicate still in flight gets 409; concurrent duplicates apply exactly once', async () => {
      const player = await createTestPlayer(api.pool);
      const headers = { ...tenant.headers, 'idempotency-key': `k3-${player.serviceId}` };
      const results = await Promise.all(
        Array.from({ length: 10 }, () => submit('toxicity', player.serviceId, { isToxic: true }, headers)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 201 || s === 409)).to.equal(true);
      expect(statuses).to.include(201);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(1);
      const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.report._id));
      expect(ids.size).to.equal(1);
      const conflict = results.find((r) => r.status === 409);
      if (conflict) expect(conflict.body).to.include({ code: 'idempotency_key_in_flight' });
    });

    it('answers 409 while the first request holds the key', async () => {
      const player = await createTestPlayer(api.pool);
      const body = { report: { isToxic: true } };
      const key = `k4-${player.serviceId}`;
      // Claim the key as an in-flight request would, with the hash of the same request.
      const crypto = await import('node:crypto');
      const hash = crypto
        .createHash('sha256')
        .update(`toxicity\n${player.serviceId}\n{"report":{"isToxic":true}}`)
        .digest();
      await api.pool.query(
        `INSERT INTO idempotency_keys (game_id, key, request_hash, state, expires_at) VALUES ($1, $2, $3, 'pending', now() + interval '1 day')`,
        [tenant.game.id, key, hash],
      );
      const res = await call(api.url, 'POST', `/v1/toxicity/submitReport/${player.serviceId}`, {
        headers: { ...tenant.headers, 'idempotency-key': key },
        json: body,
        spec: KIND_PATHS.toxicity,
      });
      expect(res.status).to.equal(409);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(0);
    });

    it('keys are scoped to the client: another game may use the same key', async () => {
      const player = await createTestPlayer(api.pool);
      const other = await createTenant(api.pool, 'Other');
      const key = `shared-${player.serviceId}`;
      const a = await submit(
        'afk',
        player.serviceId,
        { isAfk: true },
        { ...tenant.headers, 'idempotency-key': key },
      );
      const b = await submit(
        'afk',
        player.serviceId,
        { isAfk: true },
        { ...other.headers, 'idempotency-key': key },
      );
      expect(a.status).to.equal(201);
      expect(b.status).to.equal(201);
      expect(b.body.report._id).to.not.equal(a.body.report._id);
      expect(await offenseCount(api.pool, player.serviceId)).to.equal(2);
    });

    it('a 404 does not burn the key', async () => {
      const headers = { ...tenant.headers, 'idempotency-key': 'k-missing-player' };
      expect((await submit('afk', 'ghost-player', { isAfk: true }, headers)).status).to.equal(404);
      const { rowCount } = await api.pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [
        'k-missing-player',
      ]);
      expect(rowCount).to.equal(0);
    });
  });

  describe('a hot player', () => {
    // What these prove is the row lock's serialisation, so their studios may take the whole score:
    // the daily budget that would hold points beyond 50 is tested in trust-integrity.test.ts.
    let hot: Tenant[];
    before(async () => {
      hot = [await createTenant(api.pool, 'Hot A'), await createTenant(api.pool, 'Hot B')];
      for (const t of hot)
        await setGameLimits(api.pool, { clientId: t.game.clientId, limits: { studioBudget: 100 } });
    });

    it('120 concurrent reports over HTTP all succeed and the final score is exactly the start minus the applied penalties', async () => {
      const player = await createTestPlayer(api.pool);
      const tenants = hot;
      // 1 point each (AFK, low): 100 of them take the score to 0, the last 20 apply nothing.
      const results = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          submit('afk', player.serviceId, { isAfk: true, severity: 'low' }, tenants[i % 2]!.headers),
        ),
      );
      expect(results.map((r) => r.status).filter((s) => s !== 201)).to.deep.equal([]);
      const applied = results.map((r) => r.body.penaltyApplied);
      expect(applied.reduce((a, b) => a + b, 0)).to.equal(100);
      expect(applied.filter((p) => p === 1)).to.have.length(100);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(0);
      // Each answer saw a distinct score on the way down: the row lock serialised them.
      const scores = results.map((r) => r.body.trustScore).filter((s) => s > 0);
      expect(new Set(scores).size).to.equal(scores.length);
      const { rows } = await api.pool.query<{ total: number; n: number }>(
        'SELECT sum(penalty_points)::int AS total, count(*)::int AS n FROM offenses o JOIN players p ON p.id = o.player_id WHERE p.service_id = $1',
        [player.serviceId],
      );
      expect(rows[0]).to.deep.equal({ total: 100, n: 120 });
    });

    it('mixed kinds at once: the final score is exactly 100 minus the sum of penaltyApplied', async () => {
      const player = await createTestPlayer(api.pool);
      const kinds: [Kind, Record<string, unknown>][] = [
        ['anticheat', { isCheatDetected: true, severity: 'low', confidence: 0.5 }],
        ['toxicity', { isToxic: true, severity: 'low' }],
        ['afk', { isAfk: true, severity: 'low' }],
        ['griefing', { isGriefing: true, severity: 'low' }],
      ];
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          submit(kinds[i % 4]![0], player.serviceId, kinds[i % 4]![1], hot[0]!.headers),
        ),
      );
      expect(results.every((r) => r.status === 201)).to.equal(true);
      const sum = results.reduce((a, r) => a + r.body.penaltyApplied, 0);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(Math.max(100 - sum, 0));
      // Ten of each: anti-cheat round(5 x 0.5) = 3, toxicity 2, AFK 1, griefing 3.
      expect(sum).to.equal(90);
    });
  });

  describe('GET /v1/player/{serviceId}', () => {
    it('returns the profile with games and offenses populated', async () => {
      const player = await createTestPlayer(api.pool, { kyc: true });
      // The player approved the game (the games list is the player's consent, not the reports).
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: tenant.game.clientId });
      await submit('toxicity', player.serviceId, {
        isToxic: true,
        category: 'spam',
        description: 'spammed links',
      });
      const res = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
        headers: tenant.headers,
        spec: '/v1/player/{serviceId}',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        serviceId: player.serviceId,
        fullName: player.fullName,
        gamerTag: player.gamerTag,
        trustScore: 96,
        isKycVerified: true,
        offenseCount: 1,
        offensesNextCursor: null,
      });
      expect((res.body.games as { gameTitle: string }[]).map((g) => g.gameTitle)).to.deep.equal([
        tenant.game.title,
      ]);
      const [offense] = res.body.offenses as Record<string, unknown>[];
      expect(offense).to.include({
        type: 'toxicity',
        description: 'spammed links',
        visibility: 'full',
        studio: tenant.studioId,
      });
    });

    it("shows another studio's offenses as a summary: the weight but not the content or the reporter", async () => {
      const player = await createTestPlayer(api.pool);
      const other = await createTenant(api.pool, 'Foreign');
      await submit(
        'anticheat',
        player.serviceId,
        {
          isCheatDetected: true,
          severity: 'high',
          description: 'private note',
          evidence: [{ type: 'screenshot', url: 'https://cdn.example/a.png' }],
        },
        other.headers,
      );
      const res = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
        headers: tenant.headers,
        spec: '/v1/player/{serviceId}',
      });
      const [offense] = res.body.offenses as Record<string, unknown>[];
      expect(offense).to.include({
        type: 'cheating',
        severity: 'high',
        penaltyPoints: 15,
        visibility: 'summary',
      });
      for (const hidden of ['description', 'evidence', 'details', 'context', 'game', 'studio'])
        expect(offense).to.not.have.property(hidden);
      expect(res.text).to.not.include('private note');
      expect(res.body.trustScore, 'the trust score is global').to.equal(85);
    });

    it('embeds the newest 20 offenses and pages through the rest with a cursor', async () => {
      const player = await createTestPlayer(api.pool);
      for (let i = 0; i < 25; i++)
        await submit('afk', player.serviceId, { isAfk: false, description: `afk ${i}` });
      const profile = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
        headers: tenant.headers,
        spec: '/v1/player/{serviceId}',
      });
      const embedded = profile.body.offenses as { description: string; _id: string }[];
      expect(embedded).to.have.length(20);
      expect(embedded[0]!.description).to.equal('afk 24');
      expect(profile.body.offenseCount).to.equal(25);
      const cursor = profile.body.offensesNextCursor as string;
      expect(cursor).to.be.a('string');
      const rest = await call<{ items: { description: string }[]; nextCursor: string | null }>(
        api.url,
        'GET',
        `/v1/player/${player.serviceId}/offenses?cursor=${cursor}&limit=20`,
        { headers: tenant.headers, spec: '/v1/player/{serviceId}/offenses' },
      );
      expect(rest.body.items.map((o) => o.description)).to.deep.equal([
        'afk 4',
        'afk 3',
        'afk 2',
        'afk 1',
        'afk 0',
      ]);
      expect(rest.body.nextCursor).to.equal(null);

      const all: string[] = [];
      let next: string | null = '';
      do {
        const page: Res<{ items: { description: string }[]; nextCursor: string | null }> = await call(
          api.url,
          'GET',
          `/v1/player/${player.serviceId}/offenses?limit=7${next ? `&cursor=${next}` : ''}`,
          { headers: tenant.headers, spec: '/v1/player/{serviceId}/offenses' },
        );
        all.push(...page.body.items.map((o) => o.description));
        next = page.body.nextCursor;
      } while (next);
      expect(all).to.deep.equal(Array.from({ length: 25 }, (_, i) => `afk ${24 - i}`));
    });

    it('rejects a forged cursor and a bad limit with 400', async () => {
      const player = await createTestPlayer(api.pool);
      const bad = await call(api.url, 'GET', `/v1/player/${player.serviceId}/offenses?cursor=not-a-cursor`, {
        headers: tenant.headers,
        spec: '/v1/player/{serviceId}/offenses',
      });
      expect(bad.status).to.equal(400);
      const limit = await call(api.url, 'GET', `/v1/player/${player.serviceId}/offenses?limit=1000`, {
        headers: tenant.headers,
        spec: '/v1/player/{serviceId}/offenses',
      });
      expect(limit.status).to.equal(400);
      expect((limit.body as { errors: { field: string }[] }).errors[0]!.field).to.equal('limit');
    });

    it('404 for an unknown player, 401 without credentials', async () => {
      expect(
        (
          await call(api.url, 'GET', '/v1/player/nobody-here', {
            headers: tenant.headers,
            spec: '/v1/player/{serviceId}',
          })
        ).status,
      ).to.equal(404);
      expect(
        (
          await call(api.url, 'GET', '/v1/player/nobody-here/offenses', {
            headers: tenant.headers,
            spec: '/v1/player/{serviceId}/offenses',
          })
        ).status,
      ).to.equal(404);
      expect(
        (await call(api.url, 'GET', '/v1/player/nobody-here', { spec: '/v1/player/{serviceId}' })).status,
      ).to.equal(401);
    });
  });

  describe('GET /v1/openapi.json', () => {
    it('serves the OpenAPI 3.1 document', async () => {
      const res = await call(api.url, 'GET', '/v1/openapi.json', { spec: false });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ openapi: '3.1.0' });
      expect(Object.keys(res.body.paths as object)).to.include.members(Object.values(KIND_PATHS));
    });
  });
});

describe('reports while Redis is down', () => {
  it('are still accepted, and the relay sends every outbox row once Redis is back, each job once', async () => {
    const { testServices } = await import('../helpers/services.js');
    const services = await testServices();
    const proxy = CuttableProxy.forUrl(services.redisUrl);
    await proxy.open();
    const api = await startTestApi({ REDIS_URL: proxy.url() });
    const tenant = await createTenant(api.pool);
    const player = await createTestPlayer(api.pool);
    const redis = new Redis(services.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUES.review, { connection: redis, prefix: api.config.queuePrefix });
    try {
      await proxy.cut();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await call<Submit>(api.url, 'POST', `/v1/afk/submitReport/${player.serviceId}`, {
          headers: tenant.headers,
          json: { report: { isAfk: true, severity: 'low' } },
          spec: KIND_PATHS.afk,
        });
        expect(res.status).to.equal(201);
        ids.push(res.body.report._id);
      }
      expect(await trustScore(api.pool, player.serviceId)).to.equal(95);
      await new Promise((r) => setTimeout(r, 500));
      const unsent = await offenseJobRows(api.pool, ids);
      // One report at a time: each its own batch, with its two jobs.
      expect(
        unsent.filter((r) => !r.sent),
        'nothing could be sent while Redis was down',
      ).to.have.length(10);

      await proxy.open();
      const rows = await waitFor(async () => {
        const found = await offenseJobRows(api.pool, ids);
        return found.every((r) => r.sent) ? found : undefined;
      }, 15_000);
      const reviews = rows.filter((r) => r.queue === QUEUES.review);
      expect(reviews.flatMap((r) => r.payload.offenseIds)).to.have.members(ids);
      for (const row of reviews)
        expect(await queue.getJob(row.job_id), `job ${row.job_id}`).to.not.equal(undefined);
      const counts = await queue.getJobCounts(
        'waiting',
        'active',
        'completed',
        'failed',
        'delayed',
        'prioritized',
      );
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).to.equal(5);
    } finally {
      await queue.close();
      redis.disconnect();
      await api.close();
      await proxy.cut();
    }
  });
});

describe('a report with an Idempotency-Key whose database went away mid-request', () => {
  it('leaves the key free: the retry with the same key is filed at once, exactly once', async () => {
    const { testServices } = await import('../helpers/services.js');
    const { createPool } = await import('../../common/data/db.js');
    const services = await testServices();
    const direct = createPool(services.databaseUrl, 3);
    const proxy = CuttableProxy.forUrl(services.databaseUrl);
    await proxy.open();
    const api = await startTestApi({ DATABASE_URL: proxy.url(services.databaseUrl) });
    const tenant = await createTenant(direct);
    const player = await createTestPlayer(direct);
    const holder = await direct.connect();
    const send = () =>
      call<Submit>(api.url, 'POST', `/v1/toxicity/submitReport/${player.serviceId}`, {
        headers: { ...tenant.headers, 'idempotency-key': `gone-${player.serviceId}` },
        json: { report: { isToxic: true, severity: 'high' } },
        spec: KIND_PATHS.toxicity,
      });
    let reopened = false;
    try {
      // Hold the player's row so that the report is certainly inside its transaction, waiting,
      // when PostgreSQL becomes unreachable.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM players WHERE service_id = $1 FOR UPDATE', [player.serviceId]);
      const first = send();
      await waitFor(async () => {
        const { rows } = await direct.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> $1`,
          [(await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid],
        );
        return rows.length ? true : undefined;
      }, 10_000);
      await proxy.cut();
      expect((await first).status).to.equal(503);
      await holder.query('ROLLBACK');
      await proxy.open();
      reopened = true;
      // The API reconnects on its own; a 503 while it does is fine, a 409 (the key held by a request
      // that is gone) is the defect.
      let retry = await send();
      for (let i = 0; retry.status === 503 && i < 20; i++) {
        await new Promise((r) => setTimeout(r, 250));
        retry = await send();
      }
      expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
      const again = await send();
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.report._id).to.equal(retry.body.report._id);
      expect(await offenseCount(direct, player.serviceId)).to.equal(1);
      expect(await trustScore(direct, player.serviceId)).to.equal(100 - retry.body.penaltyApplied);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      if (!reopened) await proxy.open();
      await api.close();
      await proxy.cut();
      await direct.end();
    }
  });
});
