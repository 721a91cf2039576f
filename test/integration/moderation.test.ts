import crypto from 'node:crypto';
import { expect } from 'chai';
import { provisionPlayer } from '../../common/usecases/provisioning.js';
import { startTestWorker } from '../helpers/workers.js';
import { type RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  oauthDeps,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';

interface CaseBody {
  id: string;
  status: string;
  priority: number;
  reportsCount: number;
  totalPenalty: number;
  claim: { username: string; expiresAt: string } | null;
  resolution: { outcome: string; pointsRestored: number; note: string; username: string } | null;
  player: { serviceId: string; trustScore: number };
}

describe('moderation: the review queue and moderator API', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let modA: TestModerator;
  let modB: TestModerator;
  let admin: TestModerator;
  let tenant: Tenant;

  before(async () => {
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    [modA, modB, admin] = await Promise.all([
      createTestModerator(api),
      createTestModerator(api),
      createTestModerator(api, 'admin'),
    ]);
    tenant = await createTenant(api.pool);
  });
  after(async () => {
    await review.stop();
    await api.close();
  });

  const submit = async (serviceId: string, kind: string, report: object, headers = tenant.headers) => {
    const res = await call(api.url, 'POST', `/v1/${kind}/submitReport/${serviceId}`, {
      spec: `/v1/${kind}/submitReport/{serviceId}` as never,
      headers,
      json: { report },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body as { penaltyApplied: number; report: { _id: string } };
  };

  /** Waits until the review worker filed `count` offenses of the player into one open case. */
  const openCase = (serviceId: string, count: number) =>
    eventually(`a case of ${serviceId} with ${count} reports`, async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
          WHERE p.service_id = $1 AND c.status = 'open' AND c.reports_count = $2`,
        [serviceId, count],
      );
      return rows[0]?.id;
    });

  /** Every open case, following nextCursor with pages of `limit`. */
  async function wholeQueue(limit: number): Promise<CaseBody[]> {
    const all: CaseBody[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 2000; page++) {
      const res: { body: { items: CaseBody[]; nextCursor: string | null }; status: number } = await call(
        api.url,
        'GET',
        `/v1/admin/cases?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        { spec: '/v1/admin/cases', headers: modA.headers },
      );
      expect(res.status).to.equal(200);
      all.push(...res.body.items);
      cursor = res.body.nextCursor;
      if (!cursor) return all;
    }
    throw new Error('the queue did not end within 2000 pages');
  }

  const act = (mod: TestModerator, caseId: string, action: string, json?: object) =>
    call<CaseBody & { code?: string; claimedBy?: string }>(
      api.url,
      'POST',
      `/v1/admin/cases/${caseId}/${action}`,
      {
        spec: `/v1/admin/cases/{caseId}/${action}` as never,
        headers: mod.headers,
        ...(json ? { json } : {}),
      },
    );

  describe('sign-in and tokens', () => {
    it('signs a moderator in with a short-lived bearer token', async () => {
      const res = await call(api.url, 'POST', '/v1/admin/session', {
        json: { username: modA.username, password: modA.password },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ token_type: 'Bearer', expires_in: 900 });
      expect(res.body.moderator).to.include({ username: modA.username, role: 'moderator' });
    });

    it('refuses a wrong password and an unknown username alike, and a disabled account', async () => {
      const wrong = await call(api.url, 'POST', '/v1/admin/session', {
        json: { username: modA.username, password: 'not the password' },
      });
      const unknown = await call(api.url, 'POST', '/v1/admin/session', {
        json: { username: 'nobody-here', password: 'whatever password' },
      });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.body.code).to.equal('invalid_credentials');
      expect(unknown.body.detail).to.equal(wrong.body.detail);
      const temp = await createTestModerator(api);
      await api.pool.query('UPDATE moderators SET disabled_at = now() WHERE username = $1', [temp.username]);
      const disabled = await call(api.url, 'POST', '/v1/admin/session', {
        json: { username: temp.username, password: temp.password },
      });
      expect(disabled.status).to.equal(401);
      // A token issued before the account was disabled stops working at once.
      const stale = await call(api.url, 'GET', '/v1/admin/cases', { headers: temp.headers });
      expect(stale.status).to.equal(401);
    });

    it('locks an account after repeated failures (429 with Retry-After)', async () => {
      const temp = await createTestModerator(api);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await call(api.url, 'POST', '/v1/admin/session', {
          json: { username: temp.username, password: `wrong ${i}` },
        });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
      }
      expect(statuses.slice(0, 5)).to.deep.equal([401, 401, 401, 401, 401]);
      expect(statuses).to.include(429);
    });

    it('400 for a body without a password, 401 without or with a foreign token', async () => {
      const res = await call(api.url, 'POST', '/v1/admin/session', { json: { username: 'x' } });
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
      const none = await call(api.url, 'GET', '/v1/admin/cases');
      expect(none.status).to.equal(401);
      expect(none.body.code).to.equal('missing_token');
      // A player access token (audience: a game's client_id) is not a moderator token.
      const { tokens } = await oauthDeps(api.config, api.pool);
      const player = await tokens.sign({
        serviceId: 'someone',
        clientId: tenant.game.clientId,
        scope: 'profile',
      });
      const foreign = await call(api.url, 'GET', '/v1/admin/cases', {
        headers: { authorization: `Bearer ${player.token}` },
      });
      expect(foreign.status).to.equal(401);
      expect(foreign.body.code).to.equal('invalid_token');
    });
  });

  describe('the queue', () => {
    it('lists open cases by priority, filters them, and pages with a cursor', async () => {
      const heavy = await createTestPlayer(api.pool);
      const light = await createTestPlayer(api.pool);
      const other = await createTenant(api.pool);
      await submit(heavy.serviceId, 'anticheat', {
        isCheatDetected: true,
        severity: 'critical',
        confidence: 0.95,
      });
      await submit(heavy.serviceId, 'anticheat', { isCheatDetected: true, severity: 'high' }, other.headers);
      await submit(light.serviceId, 'afk', { isAfk: true, severity: 'low' });
      const heavyCase = await openCase(heavy.serviceId, 2);
      const lightCase = await openCase(light.serviceId, 1);

      // The database is shared with the whole run: read the entire queue, page by page.
      const queue = await wholeQueue(100);
      const ids = queue.map((c) => c.id);
      expect(ids).to.include.members([heavyCase, lightCase]);
      expect(ids.indexOf(heavyCase)).to.be.lessThan(ids.indexOf(lightCase));
      const priorities = queue.map((c) => c.priority);
      expect(priorities).to.deep.equal([...priorities].sort((a, b) => b - a));
      const heavyBody = queue.find((c) => c.id === heavyCase)!;
      expect(heavyBody).to.deep.include({ reportsCount: 2, status: 'open', claim: null, resolution: null });

      const afkOnly = await call<{ items: CaseBody[] }>(
        api.url,
        'GET',
        `/v1/admin/cases?type=afk&serviceId=${light.serviceId}`,
        {
          spec: '/v1/admin/cases',
          headers: modA.headers,
        },
      );
      expect(afkOnly.body.items.map((c) => c.id)).to.deep.equal([lightCase]);

      // Small pages give the very same sequence: each case once, none skipped, same order.
      expect((await wholeQueue(7)).map((c) => c.id)).to.deep.equal(ids);
    });

    it("filters the queue by the start of a player's serviceId or gamer tag (any case); % and _ match only themselves", async () => {
      const stamp = crypto.randomBytes(4).toString('hex');
      const make = (serviceId: string, gamerTag: string) =>
        provisionPlayer(api.pool, {
          serviceId,
          gamerTag,
          fullName: 'Prefix',
          password: 'correct horse battery',
        });
      const zed = await make(`zed_${stamp}-1`, `Zephyr${stamp}`);
      const zoe = await make(`zoe-${stamp}`, `zed_${stamp}x`); // a gamer tag starting like zed's serviceId
      const pct = await make(`pct${stamp}`, `Zed%${stamp}`);
      const zedy = await make(`zedy${stamp}`, `Y${stamp}`); // what zed_ would match were _ a wildcard
      for (const p of [zed, zoe, pct, zedy])
        await submit(p.serviceId, 'afk', { isAfk: true, severity: 'low' });
      const cases = Object.fromEntries(
        await Promise.all(
          [zed, zoe, pct, zedy].map(async (p) => [p.serviceId, await openCase(p.serviceId, 1)]),
        ),
      ) as Record<string, string>;
      const filtered = async (player: string) => {
        const res = await call<{ items: CaseBody[] }>(
          api.url,
          'GET',
          `/v1/admin/cases?player=${encodeURIComponent(player)}&limit=100`,
          { spec: '/v1/admin/cases', headers: modA.headers },
        );
        expect(res.status, res.text).to.equal(200);
        return res.body.items.map((c) => c.id).sort();
      };
      // By serviceId or by gamer tag, either one matching.
      expect(await filtered(`zed_${stamp}`)).to.deep.equal(
        [cases[zed.serviceId], cases[zoe.serviceId]].sort(),
      );
      // Gamer tags ignore case; serviceIds do not.
      expect(await filtered(`ZEPHYR${stamp}`)).to.deep.equal([cases[zed.serviceId]]);
      expect(await filtered(`ZED_${stamp}`)).to.deep.equal([cases[zoe.serviceId]]);
      // _ and % are not wildcards.
      expect(await filtered(`zed%`)).to.deep.equal([cases[pct.serviceId]]);
      // One character is too broad to be a search.
      const short = await call(api.url, 'GET', '/v1/admin/cases?player=z', {
        spec: '/v1/admin/cases',
        headers: modA.headers,
      });
      expect(short.status).to.equal(400);
    });

    it("a case escalated with a note leaves the moderators' queue for the admins'; an admin assigns it, and the assignee finds it", async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'afk', { isAfk: true, severity: 'low' });
      const id = await openCase(player.serviceId, 1);
      const post = (by: TestModerator, action: string, json: object) =>
        call<
          CaseBody & {
            code?: string;
            escalation: { note: string } | null;
            assignedTo: { username: string } | null;
          }
        >(api.url, 'POST', `/v1/admin/cases/${id}/${action}`, {
          spec: `/v1/admin/cases/{caseId}/${action}` as never,
          headers: by.headers,
          json,
        });
      const queue = async (by: TestModerator, query: string) => {
        const res = await call<{ items: CaseBody[] }>(
          api.url,
          'GET',
          `/v1/admin/cases?player=${player.serviceId}&${query}`,
          {
            spec: '/v1/admin/cases',
            headers: by.headers,
          },
        );
        return { status: res.status, ids: (res.body.items ?? []).map((c) => c.id) };
      };
      await post(modA, 'claim', {});
      const escalated = await post(modA, 'escalate', { note: 'Possible account sharing; needs an admin.' });
      expect(escalated.status, escalated.text).to.equal(200);
      expect(escalated.body.escalation!.note).to.equal('Possible account sharing; needs an admin.');
      expect(escalated.body.claim).to.equal(null);
      expect((await queue(modB, 'status=open')).ids).to.deep.equal([]);
      expect((await queue(modB, 'escalated=only')).status).to.equal(403);
      expect((await queue(admin, 'escalated=only')).ids).to.deep.equal([id]);
      expect((await post(modB, 'claim', {})).body.code).to.equal('case_escalated');
      expect((await post(modA, 'escalate', { note: 'again' })).body.code).to.equal('case_escalated');
      // Assigning: admins only; an escalated case to an admin only.
      expect((await post(modA, 'assign', { username: admin.username })).status).to.equal(403);
      expect((await post(admin, 'assign', { username: modB.username })).body.code).to.equal('case_escalated');
      expect((await post(admin, 'assign', { username: 'nobody-at-all' })).status).to.equal(400);
      const assigned = await post(admin, 'assign', { username: admin.username.toUpperCase() });
      expect(assigned.status, assigned.text).to.equal(200);
      expect(assigned.body.assignedTo!.username).to.equal(admin.username);
      expect((await queue(admin, 'assigned=mine&escalated=include')).ids).to.deep.equal([id]);
      expect((await post(admin, 'claim', {})).status).to.equal(200);
      const audit = await api.pool.query<{ action: string; note: string | null }>(
        `SELECT action, note FROM moderation_audit WHERE case_id = $1 AND action IN ('escalate', 'assign') ORDER BY id`,
        [id],
      );
      expect(audit.rows).to.deep.equal([
        { action: 'escalate', note: 'Possible account sharing; needs an admin.' },
        { action: 'assign', note: null },
      ]);
    });

    it("keeps a case's figures: count, total, highest severity, distinct games and reporters, and the priority", async () => {
      const player = await createTestPlayer(api.pool);
      const other = await createTenant(api.pool);
      // An earlier offense of another kind: part of the player's history for the cheating case.
      await submit(player.serviceId, 'afk', { isAfk: true });
      const penalties = [
        await submit(player.serviceId, 'anticheat', {
          isCheatDetected: true,
          severity: 'low',
          confidence: 0.5,
          reporterId: 'r1',
        }),
        await submit(player.serviceId, 'anticheat', {
          isCheatDetected: true,
          severity: 'high',
          confidence: 0.9,
          reporterId: 'r2',
        }),
        await submit(
          player.serviceId,
          'anticheat',
          { isCheatDetected: true, severity: 'medium' },
          other.headers,
        ),
      ].map((r) => r.penaltyApplied);
      const caseId = await openCase(player.serviceId, 3);
      await openCase(player.serviceId, 1); // the AFK case is filed too
      const res = await call<
        CaseBody & { highestSeverity: string; distinctGames: number; distinctReporters: number }
      >(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
        spec: '/v1/admin/cases/{caseId}',
        headers: modA.headers,
      });
      expect(res.body).to.deep.include({
        type: 'cheating',
        reportsCount: 3,
        totalPenalty: penalties.reduce((a, b) => a + b, 0),
        highestSeverity: 'high',
        distinctGames: 2,
        // r1, r2, and the other studio's game (a report without reporterId counts its game)
        distinctReporters: 3,
      });
      // 25 x high (2) + 10 x 0.9 + 5 x 2 games + 3 x 3 reporters + 2 x 1 earlier offense
      expect(res.body.priority).to.equal(50 + 9 + 10 + 9 + 2);
    });

    it('concurrent filings into one case add up exactly', async () => {
      const player = await createTestPlayer(api.pool);
      const studios = [tenant, await createTenant(api.pool), await createTenant(api.pool)];
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          submit(
            player.serviceId,
            'griefing',
            { isGriefing: true, severity: ['low', 'medium', 'high'][i % 3] },
            studios[i % 3]!.headers,
          ),
        ),
      );
      const caseId = await openCase(player.serviceId, 25);
      const { rows } = await api.pool.query(
        'SELECT reports_count, total_penalty, highest_severity, distinct_games, distinct_reporters FROM review_cases WHERE id = $1',
        [caseId],
      );
      expect(rows[0]).to.deep.equal({
        reports_count: 25,
        total_penalty: results.reduce((sum, r) => sum + r.penaltyApplied, 0),
        highest_severity: 'high',
        distinct_games: 3,
        distinct_reporters: 3,
      });
    });

    it('400 for a bad filter or a forged cursor', async () => {
      for (const q of [
        'status=closed',
        'limit=0',
        'claimed=yours',
        `cursor=${Buffer.from('["open","x"]').toString('base64url')}`,
      ]) {
        const res = await call(api.url, 'GET', `/v1/admin/cases?${q}`, {
          spec: '/v1/admin/cases',
          headers: modA.headers,
        });
        expect(res.status, q).to.equal(400);
      }
    });

    it('shows a case with its offenses in full and its audit trail; 404 for an unknown case', async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'toxicity', { isToxic: true, messages: ['gg ez noob'] });
      const caseId = await openCase(player.serviceId, 1);
      await act(modA, caseId, 'claim');
      const res = await call<
        CaseBody & {
          offenses: { description?: string; evidence?: unknown[]; visibility: string }[];
          audit: { action: string }[];
        }
      >(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
        spec: '/v1/admin/cases/{caseId}',
        headers: modB.headers,
      });
      expect(res.status).to.equal(200);
      expect(res.body.offenses).to.have.length(1);
      expect(res.body.offenses[0]!.visibility).to.equal('full');
      expect(res.body.offenses[0]!.evidence).to.have.length(1);
      expect(res.body.audit.map((a) => a.action)).to.deep.equal(['claim']);
      const missing = await call(api.url, 'GET', `/v1/admin/cases/${crypto.randomUUID()}`, {
        spec: '/v1/admin/cases/{caseId}',
        headers: modA.headers,
      });
      expect(missing.status).to.equal(404);
    });
  });

  describe('claims', () => {
    it('a claim is exclusive: another moderator can neither claim, release nor resolve it', async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'griefing', { isGriefing: true, severity: 'high' });
      const caseId = await openCase(player.serviceId, 1);

      const claimed = await act(modA, caseId, 'claim');
      expect(claimed.status).to.equal(200);
      expect(claimed.body.claim!.username).to.equal(modA.username);
      for (const [action, json] of [
        ['claim', undefined],
        ['release', undefined],
        ['resolve', { outcome: 'dismissed', note: 'not mine to judge' }],
      ] as const) {
        const res = await act(modB, caseId, action, json);
        expect(res.status, action).to.equal(409);
        expect(res.body.code).to.equal('case_claimed');
        expect(res.body.claimedBy).to.equal(modA.username);
      }
      // Nothing changed: still A's claim, still open, score untouched.
      const score = await trustScore(api.pool, player.serviceId);
      const after = await call<CaseBody>(api.url, 'GET', `/v1/admin/cases/${caseId}`, {
        spec: '/v1/admin/cases/{caseId}',
        headers: modA.headers,
      });
      expect(after.body.claim!.username).to.equal(modA.username);
      expect(after.body.status).to.equal('open');
      expect(score).to.equal(100 - 10);

      // Claiming again renews A's lease; releasing frees it for B.
      const renewed = await act(modA, caseId, 'claim');
      expect(new Date(renewed.body.claim!.expiresAt).getTime()).to.be.at.least(
        new Date(claimed.body.claim!.expiresAt).getTime(),
      );
      expect((await act(modA, caseId, 'release')).body.claim).to.equal(null);
      expect((await act(modB, caseId, 'claim')).body.claim!.username).to.equal(modB.username);
    });

    it('an expired lease lets another moderator take the case over', async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'afk', { isAfk: true });
      const caseId = await openCase(player.serviceId, 1);
      await act(modA, caseId, 'claim');
      // The lease running out: time moved past claim_expires_at.
      await api.pool.query(
        `UPDATE review_cases SET claim_expires_at = now() - interval '1 second' WHERE id = $1`,
        [caseId],
      );
      const unclaimed = await call<{ items: CaseBody[] }>(
        api.url,
        'GET',
        `/v1/admin/cases?claimed=unclaimed&serviceId=${player.serviceId}`,
        {
          spec: '/v1/admin/cases',
          headers: modB.headers,
        },
      );
      expect(unclaimed.body.items.map((c) => c.id)).to.deep.equal([caseId]);
      expect(unclaimed.body.items[0]!.claim).to.equal(null);
      const takeover = await act(modB, caseId, 'claim');
      expect(takeover.status).to.equal(200);
      expect(takeover.body.claim!.username).to.equal(modB.username);
      // A's late resolution is refused.
      const late = await act(modA, caseId, 'resolve', { outcome: 'upheld', note: 'late' });
      expect(late.status).to.equal(409);
    });

    it('an admin may release a claim someone else holds', async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'afk', { isAfk: true });
      const caseId = await openCase(player.serviceId, 1);
      await act(modA, caseId, 'claim');
      const res = await act(admin, caseId, 'release');
      expect(res.status).to.equal(200);
      expect(res.body.claim).to.equal(null);
    });
  });

  describe('resolution', () => {
    it('resolving needs a live claim and a note; a bad body changes nothing', async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'low' });
      const caseId = await openCase(player.serviceId, 1);
      const unclaimed = await act(modA, caseId, 'resolve', { outcome: 'upheld', note: 'x' });
      expect(unclaimed.status).to.equal(409);
      expect(unclaimed.body.code).to.equal('case_not_claimed');
      await act(modA, caseId, 'claim');
      for (const body of [
        { outcome: 'upheld' },
        { outcome: 'maybe', note: 'x' },
        { outcome: 'upheld', note: '   ' },
      ]) {
        const res = await act(modA, caseId, 'resolve', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.code).to.equal('validation_failed');
      }
      const { rows } = await api.pool.query('SELECT status FROM review_cases WHERE id = $1', [caseId]);
      expect(rows[0].status).to.equal('open');
    });

    it('dismissal gives back exactly the points the offenses deducted, and flags every offense', async () => {
      const player = await createTestPlayer(api.pool);
      const penalties: number[] = [];
      for (const severity of ['high', 'medium', 'critical'])
        penalties.push(
          (await submit(player.serviceId, 'anticheat', { isCheatDetected: true, severity })).penaltyApplied,
        );
      // Another kind's offense stays: it is another case.
      const afk = await submit(player.serviceId, 'afk', { isAfk: true, severity: 'critical' });
      const caseId = await openCase(player.serviceId, 3);
      const before = await trustScore(api.pool, player.serviceId);
      expect(before).to.equal(Math.max(0, 100 - penalties.reduce((a, b) => a + b, 0) - afk.penaltyApplied));

      await act(modA, caseId, 'claim');
      const res = await act(modA, caseId, 'resolve', {
        outcome: 'dismissed',
        note: 'Replay shows a legit flick.',
      });
      expect(res.status).to.equal(200);
      const deducted = penalties.reduce((a, b) => a + b, 0);
      expect(res.body.status).to.equal('resolved');
      expect(res.body.resolution).to.deep.include({
        outcome: 'dismissed',
        pointsRestored: deducted,
        note: 'Replay shows a legit flick.',
        username: modA.username,
      });
      expect(res.body.claim).to.equal(null);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(before + deducted);

      const { rows } = await api.pool.query<{
        type: string;
        reviewed_by_admin: boolean;
        resolved: boolean;
        resolved_at: Date | null;
      }>(
        `SELECT o.type, o.reviewed_by_admin, o.resolved, o.resolved_at FROM offenses o JOIN players p ON p.id = o.player_id
          WHERE p.service_id = $1`,
        [player.serviceId],
      );
      for (const o of rows.filter((r) => r.type === 'cheating'))
        expect(o)
          .to.deep.include({ reviewed_by_admin: true, resolved: true })
          .and.property('resolved_at')
          .not.equal(null);
      expect(rows.find((r) => r.type === 'afk')).to.deep.include({ resolved: false, resolved_at: null });

      // The audit log keeps who, the outcome and the score before and after.
      const audit = await call<{
        items: {
          action: string;
          outcome: string;
          trustScoreBefore: number;
          trustScoreAfter: number;
          moderator: { username: string };
        }[];
      }>(api.url, 'GET', `/v1/admin/audit?caseId=${caseId}`, {
        spec: '/v1/admin/audit',
        headers: admin.headers,
      });
      expect(audit.status).to.equal(200);
      expect(audit.body.items.map((a) => a.action)).to.deep.equal(['resolve', 'claim']);
      expect(audit.body.items[0]).to.deep.include({
        outcome: 'dismissed',
        trustScoreBefore: before,
        trustScoreAfter: before + deducted,
      });
      expect(audit.body.items[0]!.moderator.username).to.equal(modA.username);

      // A resolved case takes no more actions; the next report opens a new case.
      expect((await act(modA, caseId, 'claim')).body.code).to.equal('case_resolved');
      await submit(player.serviceId, 'anticheat', { isCheatDetected: true });
      const next = await openCase(player.serviceId, 1);
      expect(next).to.not.equal(caseId);
    });

    it('restores what was actually deducted at the floor, and never above 100', async () => {
      const floored = await createTestPlayer(api.pool);
      await api.pool.query('UPDATE players SET trust_score = 4 WHERE service_id = $1', [floored.serviceId]);
      const r = await submit(floored.serviceId, 'anticheat', { isCheatDetected: true, severity: 'critical' });
      expect(r.penaltyApplied).to.equal(4); // a 20-point penalty, but only 4 were there to take
      const flooredCase = await openCase(floored.serviceId, 1);
      await act(modA, flooredCase, 'claim');
      const res = await act(modA, flooredCase, 'resolve', { outcome: 'dismissed', note: 'false positive' });
      expect(res.body.resolution!.pointsRestored).to.equal(4);
      expect(await trustScore(api.pool, floored.serviceId)).to.equal(4);

      const capped = await createTestPlayer(api.pool);
      await submit(capped.serviceId, 'anticheat', { isCheatDetected: true, severity: 'critical' });
      const cappedCase = await openCase(capped.serviceId, 1);
      // Meanwhile the score went back up (an operator's correction): the refund stops at 100.
      await api.pool.query('UPDATE players SET trust_score = 95 WHERE service_id = $1', [capped.serviceId]);
      await act(modA, cappedCase, 'claim');
      const cappedRes = await act(modA, cappedCase, 'resolve', {
        outcome: 'dismissed',
        note: 'false positive',
      });
      expect(cappedRes.body.resolution!.pointsRestored).to.equal(5);
      expect(await trustScore(api.pool, capped.serviceId)).to.equal(100);
    });

    it('upheld keeps the score and flags the offenses', async () => {
      const player = await createTestPlayer(api.pool);
      await submit(player.serviceId, 'toxicity', { isToxic: true, severity: 'high', category: 'threats' });
      const caseId = await openCase(player.serviceId, 1);
      const before = await trustScore(api.pool, player.serviceId);
      await act(modB, caseId, 'claim');
      const res = await act(modB, caseId, 'resolve', { outcome: 'upheld', note: 'Clear threats in chat.' });
      expect(res.body.resolution).to.deep.include({ outcome: 'upheld', pointsRestored: 0 });
      expect(await trustScore(api.pool, player.serviceId)).to.equal(before);
      const profile = await call<{
        offenses: { reviewedByAdmin: boolean; resolved: boolean; resolvedAt: string | null }[];
      }>(api.url, 'GET', `/v1/player/${player.serviceId}`, {
        spec: '/v1/player/{serviceId}',
        headers: tenant.headers,
      });
      expect(profile.body.offenses[0]).to.include({ reviewedByAdmin: true, resolved: true });
      expect(profile.body.offenses[0]!.resolvedAt).to.be.a('string');
    });

    it('of two conflicting resolutions sent at once, exactly one wins', async () => {
      const player = await createTestPlayer(api.pool);
      const r = await submit(player.serviceId, 'anticheat', { isCheatDetected: true, severity: 'high' });
      const caseId = await openCase(player.serviceId, 1);
      await act(modA, caseId, 'claim');
      const results = await Promise.all([
        act(modA, caseId, 'resolve', { outcome: 'dismissed', note: 'no' }),
        act(modA, caseId, 'resolve', { outcome: 'upheld', note: 'yes' }),
        act(modA, caseId, 'resolve', { outcome: 'dismissed', note: 'no again' }),
      ]);
      const won = results.filter((x) => x.status === 200);
      expect(won).to.have.length(1);
      expect(results.filter((x) => x.status === 409 && x.body.code === 'case_resolved')).to.have.length(2);
      const restored = won[0]!.body.resolution!.outcome === 'dismissed' ? r.penaltyApplied : 0;
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100 - r.penaltyApplied + restored);
      const { rows } = await api.pool.query(
        `SELECT count(*)::int AS n FROM moderation_audit WHERE case_id = $1 AND action = 'resolve'`,
        [caseId],
      );
      expect(rows[0].n).to.equal(1);
    });

    it('the audit log is for admins only', async () => {
      const res = await call(api.url, 'GET', '/v1/admin/audit', { headers: modA.headers });
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('forbidden');
    });
  });
});
