import { expect } from 'chai';
import { Redis } from 'ioredis';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appendTombstones, readTombstones } from '../../common/data/erasure-ledger.js';
import { linkPlayer, provisionPlayer } from '../../common/usecases/provisioning.js';
import { reapplyErasures, runErasure } from '../../common/usecases/erasure.js';
import { signIn } from '../../common/usecases/sign-in.js';
import type { RunningWorker } from '../../worker/run.js';
import {
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  TEST_PEPPER,
  trustScore,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';
import { startTestWorker } from '../helpers/workers.js';

interface ErasureView {
  id: string;
  state: string;
  playerRecordId: string;
  requestedBy: string;
  receipt: Record<string, number> | null;
  receiptWords: string[] | null;
}

/**
 * Issue 36: erasure. Markers planted in every place a player's personal data goes (name, gamer tag,
 * service id, a report's words, chat lines, logs, evidence link, match id, the reporter the studio
 * named, the appeal's words, a sanction's reason, a note, a replayed answer) must be nowhere after the
 * erasure: not in any text or JSON column of any table (read from the catalogue, so a new column is
 * covered), not in any answer about the player or their cases; everyone else's record stays exact.
 */
describe('erasure (GDPR Art. 17)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let enrichment: RunningWorker;
  let a: Tenant;
  let b: Tenant;
  let admin: TestModerator;
  let mod: TestModerator;
  let ledger: string;
  const m = `mk${crypto.randomBytes(6).toString('hex')}`;
  const serviceId = `p-${m}`;
  const gamerTag = `tag-${m}`;
  let other: { serviceId: string };
  let caseId: string;
  let erasure: ErasureView;

  before(async () => {
    ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pt-ledger-')), 'erasure-ledger.jsonl');
    api = await startTestApi({ ERASURE_LEDGER: ledger });
    review = await startTestWorker(api.config, 'review');
    // The evidence link does not resolve: its job fails and is retried, its reason kept in Redis.
    enrichment = await startTestWorker(api.config, 'enrichment');
    [a, b] = [await createTenant(api.pool, 'EraseA'), await createTenant(api.pool, 'EraseB')];
    [admin, mod] = [await createTestModerator(api, 'admin'), await createTestModerator(api)];
    await provisionPlayer(api.pool, {
      serviceId,
      fullName: `Name ${m}`,
      gamerTag,
      password: 'correct horse battery',
      kyc: true,
    });
    await linkPlayer(api.pool, { serviceId, clientId: a.game.clientId });
    await linkPlayer(api.pool, { serviceId, clientId: b.game.clientId });
    other = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: other.serviceId, clientId: a.game.clientId });

    const report = (kind: 'toxicity' | 'anticheat', t: Tenant, who: string, body: object, key?: string) =>
      call(api.url, 'POST', `/v1/${kind}/submitReport/${who}`, {
        spec: `/v1/${kind}/submitReport/{serviceId}`,
        headers: { ...t.headers, ...(key ? { 'Idempotency-Key': key } : {}) },
        json: { report: body },
      });
    const r1 = await report(
      'toxicity',
      a,
      serviceId,
      {
        isToxic: true,
        severity: 'high',
        description: `desc ${m}`,
        messages: [`chat line ${m}`],
        reporterId: `rep-${m}`,
        matchId: `match-${m}`,
        evidence: [{ type: 'screenshot', url: `https://evidence.example/${m}.png` }],
      },
      `key-${m}`,
    );
    expect(r1.status, r1.text).to.equal(201);
    const r2 = await report('anticheat', b, serviceId, {
      isCheatDetected: true,
      severity: 'medium',
      confidence: 0.9,
      logs: [`log ${m}`],
    });
    expect(r2.status, r2.text).to.equal(201);
    const r3 = await report('toxicity', a, other.serviceId, {
      isToxic: true,
      severity: 'low',
      description: 'the other player keeps this',
    });
    expect(r3.status, r3.text).to.equal(201);

    const sanction = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: a.headers,
      json: { type: 'chat_restriction', reason: `reason ${m}`, durationSeconds: 3600 },
    });
    expect(sanction.status, sanction.text).to.equal(201);
    const appeal = await call(api.url, 'POST', `/v1/player/${serviceId}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: a.headers,
      json: { sanctionId: sanction.body.id, reason: 'unfair', statement: `appeal ${m}` },
    });
    expect(appeal.status, appeal.text).to.equal(201);
    await call(api.url, 'POST', `/v1/admin/players/${serviceId}/notes`, {
      spec: '/v1/admin/players/{serviceId}/notes',
      headers: mod.headers,
      json: { body: `note ${m}` },
    });
    await call(api.url, 'POST', `/v1/admin/players/${serviceId}/tags`, {
      spec: '/v1/admin/players/{serviceId}/tags',
      headers: mod.headers,
      json: { tag: 'watch' },
    });
    await eventually('the cases filed', async () => {
      const { rows } = await api.pool.query<{ case_id: string }>(
        `SELECT co.case_id FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
           JOIN players p ON p.id = o.player_id WHERE p.service_id = $1`,
        [serviceId],
      );
      caseId = rows[0]?.case_id ?? '';
      return rows.length === 2;
    });
    // A moderator's tag on the player's case: a word about the player too.
    const caseTag = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/tags`, {
      spec: '/v1/admin/cases/{caseId}/tags',
      headers: mod.headers,
      json: { tag: 'cheater-ring' },
    });
    expect(caseTag.status, caseTag.text).to.equal(200);
    // The enrichment job has met the link it cannot reach (its reason is what Redis keeps).
    await eventually('the evidence job tried and retried', async () =>
      (await redisValues()).some((v) => v.includes('evidence not reachable yet')),
    );
    // Nothing would prove anything if the markers were not there to begin with.
    expect(await markersFound(), 'planted').to.include.members([
      'players.full_name',
      'offenses.description',
      'appeals.statement',
      'notes.body',
      'idempotency_keys.response_body',
    ]);
  });
  after(async () => {
    await enrichment?.stop();
    await review?.stop();
    await api?.close();
  });

  /** Every value Redis holds under this API's queue prefix (job data, reasons, stacks, events). */
  async function redisValues(): Promise<string[]> {
    const redis = new Redis(api.config.redisUrl!);
    try {
      const keys = await redis.keys(`${api.config.queuePrefix}*`);
      const values: string[] = [];
      for (const key of keys) {
        const type = await redis.type(key);
        if (type === 'hash') values.push(...Object.values(await redis.hgetall(key)));
        else if (type === 'string') values.push((await redis.get(key)) ?? '');
        else if (type === 'list') values.push(...(await redis.lrange(key, '0', '-1')));
        else if (type === 'zset' || type === 'set')
          values.push(
            ...(type === 'set'
              ? await redis.smembers(key)
              : (await redis.zrange(key, '0', '-1')).map(String)),
          );
        else if (type === 'stream')
          values.push(...(await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields));
        values.push(key);
      }
      return values;
    } finally {
      redis.disconnect();
    }
  }

  /** Every table.column of the public schema holding text (text, varchar, json, jsonb, arrays) where a marker is. */
  async function markersFound(): Promise<string[]> {
    const { rows: columns } = await api.pool.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
          AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`,
    );
    expect(columns.length, 'the catalogue lists the columns').to.be.greaterThan(50);
    const found: string[] = [];
    for (const { table_name: t, column_name: c } of columns) {
      const { rows } = await api.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${t}" WHERE "${c}"::text LIKE '%' || $1 || '%'`,
        [m],
      );
      if (rows[0]!.n > 0) found.push(`${t}.${c}`);
    }
    return found;
  }

  it('a studio asks for a player who plays another studio’s games too: it awaits an admin, who confirms', async () => {
    const asked = await call<ErasureView>(api.url, 'POST', `/v1/player/${serviceId}/erasure`, {
      spec: '/v1/player/{serviceId}/erasure',
      headers: a.headers,
    });
    expect(asked.status, asked.text).to.equal(202);
    expect(asked.body.state).to.equal('awaiting_confirmation');
    expect(asked.headers.get('location')).to.equal(`/v1/erasures/${asked.body.id}`);
    expect(
      readTombstones(ledger).map((t) => t.erasureId),
      'not decided: not in the ledger',
    ).to.not.include(asked.body.id);
    // Asking again answers the open request; the other studio cannot read it; nothing erased yet.
    const again = await call<ErasureView>(api.url, 'POST', `/v1/player/${serviceId}/erasure`, {
      spec: '/v1/player/{serviceId}/erasure',
      headers: a.headers,
    });
    expect([again.status, again.body.id]).to.deep.equal([200, asked.body.id]);
    const byB = await call(api.url, 'GET', `/v1/erasures/${asked.body.id}`, {
      spec: '/v1/erasures/{erasureId}',
      headers: b.headers,
    });
    expect(byB.status).to.equal(404);
    expect(
      (
        await call(api.url, 'GET', `/v1/player/${serviceId}`, {
          spec: '/v1/player/{serviceId}',
          headers: a.headers,
        })
      ).status,
    ).to.equal(200);

    const forbidden = await call(api.url, 'POST', `/v1/admin/erasures/${asked.body.id}/confirm`, {
      spec: '/v1/admin/erasures/{erasureId}/confirm',
      headers: mod.headers,
    });
    expect(forbidden.status).to.equal(403);
    const confirmed = await call<ErasureView>(
      api.url,
      'POST',
      `/v1/admin/erasures/${asked.body.id}/confirm`,
      {
        spec: '/v1/admin/erasures/{erasureId}/confirm',
        headers: admin.headers,
      },
    );
    expect(confirmed.status, confirmed.text).to.equal(202);
    expect(confirmed.body.state).to.equal('pending');
    expect(
      readTombstones(ledger).map((t) => t.erasureId),
      'decided: in the ledger',
    ).to.include(asked.body.id);
    const twice = await call(api.url, 'POST', `/v1/admin/erasures/${asked.body.id}/cancel`, {
      spec: '/v1/admin/erasures/{erasureId}/cancel',
      headers: admin.headers,
    });
    expect([twice.status, twice.body.code]).to.deep.equal([409, 'erasure_not_awaiting']);

    await eventually('the erasure done', async () => {
      const r = await call<ErasureView>(api.url, 'GET', `/v1/erasures/${asked.body.id}`, {
        spec: '/v1/erasures/{erasureId}',
        headers: a.headers,
      });
      erasure = r.body;
      return r.body.state === 'done';
    });
    expect(erasure.requestedBy).to.equal('studio');
    expect(erasure.receipt).to.include({ player: 1, offenses: 2, appeals: 1, notes: 1, tags: 2, games: 2 });
    expect(erasure.receipt!.replayedAnswers).to.equal(1);
  });

  it('no marker is left in any text column of any table (the reporter’s own quota row aside)', async () => {
    // reporter_quota counts the reporter's reports of the day, keyed by the studio's id for the
    // reporter: the reporter's record, not the player's, gone within 24 hours (docs/compliance.md "Personal data").
    expect((await markersFound()).filter((c) => c !== 'reporter_quota.reporter_id')).to.deep.equal([]);
  });

  it('no tag is left on the player or on their cases (the skeleton keeps none); the receipt says so in words', async () => {
    const { rows } = await api.pool.query(
      `SELECT 1 FROM tags WHERE subject_id = $1 OR subject_id IN (
         SELECT c.id FROM review_cases c WHERE c.player_id = $1)`,
      [erasure.playerRecordId],
    );
    expect(rows).to.deep.equal([]);
    expect(erasure.receipt!.tags).to.equal(2);
    expect(erasure.receiptWords).to.include('2 tag(s) on the player or their cases deleted');
    expect(erasure.receiptWords![0]).to.match(/^the player's name, gamer tag, password and KYC flag removed/);
  });

  it('no marker is left in Redis either: jobs, their failed reasons and stacks hold ids only', async () => {
    const values = await redisValues();
    expect(values.length, 'the queues hold something to look at').to.be.greaterThan(0);
    expect(values.filter((v) => v.includes(m))).to.deep.equal([]);
  });

  it('no answer about the player or their case holds a marker; the player cannot sign in; lookups answer 404', async () => {
    for (const [path, spec, headers] of [
      [`/v1/player/${serviceId}`, '/v1/player/{serviceId}', a.headers],
      [`/v1/player/${serviceId}/offenses`, '/v1/player/{serviceId}/offenses', a.headers],
      [`/v1/admin/players/${serviceId}`, '/v1/admin/players/{serviceId}', admin.headers],
    ] as const) {
      const res = await call(api.url, 'GET', path, { spec, headers });
      expect(res.status, path).to.equal(404);
    }
    const skeleton = `erased-${erasure.playerRecordId}`;
    for (const [path, spec] of [
      [`/v1/admin/cases/${caseId}`, '/v1/admin/cases/{caseId}'],
      [`/v1/admin/players/${skeleton}`, '/v1/admin/players/{serviceId}'],
      [`/v1/admin/players/${skeleton}/timeline`, '/v1/admin/players/{serviceId}/timeline'],
      [`/v1/admin/players/${skeleton}/export`, '/v1/admin/players/{serviceId}/export'],
      ['/v1/admin/appeals', '/v1/admin/appeals'],
    ] as const) {
      const res = await call(api.url, 'GET', path, { spec, headers: admin.headers });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).to.equal(200);
      expect(res.text, path).to.not.include(m);
    }
    const signedIn = await signIn(api.pool, {
      gamerTag,
      password: 'correct horse battery',
      address: '192.0.2.7',
      now: new Date(),
    });
    expect(signedIn.ok).to.equal(false);
    const { rows } = await api.pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM access_tokens WHERE player_id = $1) + (SELECT count(*) FROM token_families WHERE player_id = $1)
              + (SELECT count(*) FROM player_games WHERE player_id = $1) AS n`,
      [erasure.playerRecordId],
    );
    expect(Number(rows[0]!.n)).to.equal(0);
  });

  it('a standing page session from before the erasure ends: no page, no export, no appeal', async () => {
    // The session and CSRF cookies the standing page would have set before the erasure (the page
    // signs them with the server secret; the test knows the test secret).
    const mac = (what: string) => crypto.createHmac('sha256', TEST_PEPPER).update(what).digest('base64url');
    const value = `${erasure.playerRecordId}.${Date.now() + 600_000}`;
    const csrf = crypto.randomBytes(32).toString('base64url');
    const cookie = `pt_standing=${value}.${mac(`standing:${value}`)}; pt_standing_csrf=${csrf}`;
    const page = await fetch(`${api.url}/standing`, { headers: { cookie } });
    expect(await page.text()).to.include('This account no longer exists.');
    const exported = await fetch(`${api.url}/standing/export`, { headers: { cookie }, redirect: 'manual' });
    expect([exported.status, exported.headers.get('location')]).to.deep.equal([302, '/standing']);
    const appealed = await fetch(`${api.url}/standing/appeal`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: mac(`standing-csrf:${csrf}`),
        offenseId: crypto.randomUUID(),
        reason: 'unfair',
        statement: `appeal after erasure ${m}`,
      }).toString(),
    });
    expect(appealed.status).to.equal(401);
    const { rows } = await api.pool.query('SELECT 1 FROM appeals WHERE statement LIKE $1', [`%${m}%`]);
    expect(rows).to.deep.equal([]);
  });

  it('keeps the counts and the decisions’ skeleton, and leaves the other player exact', async () => {
    const { rows } = await api.pool.query<{
      offenses: number;
      sanctions: number;
      appeals: number;
      kyc: boolean;
    }>(
      `SELECT (SELECT count(*)::int FROM offenses WHERE player_id = p.id) AS offenses,
              (SELECT count(*)::int FROM sanctions WHERE player_id = p.id) AS sanctions,
              (SELECT count(*)::int FROM appeals WHERE player_id = p.id) AS appeals, p.is_kyc_verified AS kyc
         FROM players p WHERE p.id = $1`,
      [erasure.playerRecordId],
    );
    expect(rows[0]).to.deep.equal({ offenses: 2, sanctions: 1, appeals: 1, kyc: false });
    // The audit log still says what the decision was and where it applies (it said "every game" for
    // a studio's sanction once the details were erased), and nothing of whom or why.
    const audit = await call<{ items: { summary: string; action: string; details: object }[] }>(
      api.url,
      'GET',
      `/v1/admin/audit?player=erased-${erasure.playerRecordId}`,
      { spec: '/v1/admin/audit', headers: admin.headers },
    );
    expect(audit.status, audit.text).to.equal(200);
    const placed = audit.body.items.find((i) => i.action === 'place_sanction')!;
    const studioA = (
      await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [a.studioId])
    ).rows[0]!.name;
    expect(placed.summary).to.equal(`Placed a chat restriction in the games of ${studioA}`);
    expect(JSON.stringify(audit.body)).to.not.include(m);
    const o = await call<{ items: { description: string }[] }>(
      api.url,
      'GET',
      `/v1/player/${other.serviceId}/offenses`,
      { spec: '/v1/player/{serviceId}/offenses', headers: a.headers },
    );
    expect(o.body.items.map((i) => i.description)).to.deep.equal(['the other player keeps this']);
    expect(await trustScore(api.pool, other.serviceId)).to.be.below(100);
  });

  it('is idempotent: the job again, or a second request, changes nothing', async () => {
    const before = await api.pool.query('SELECT receipt, completed_at FROM erasures WHERE id = $1', [
      erasure.id,
    ]);
    const again = await runErasure(api.pool, ledger, erasure.id, new Date());
    expect(again).to.deep.equal({ state: 'done', applied: false });
    const after = await api.pool.query('SELECT receipt, completed_at FROM erasures WHERE id = $1', [
      erasure.id,
    ]);
    expect(after.rows).to.deep.equal(before.rows);
    const asked = await call(api.url, 'POST', `/v1/admin/players/${serviceId}/erasure`, {
      spec: '/v1/admin/players/{serviceId}/erasure',
      headers: admin.headers,
    });
    expect(asked.status).to.equal(404);
  });

  it('a database behind the ledger (a restore) is erased again, the request recreated as done', async () => {
    const player = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: b.game.clientId });
    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
      player.serviceId,
    ]);
    // As a restored database looks: the ledger holds an erasure it has never heard of.
    const erasureId = crypto.randomUUID();
    appendTombstones(ledger, [{ erasureId, playerId: rows[0]!.id, at: new Date().toISOString() }]);
    expect(await reapplyErasures(api.pool, readTombstones(ledger))).to.equal(1);
    expect(await reapplyErasures(api.pool, readTombstones(ledger)), 'once').to.equal(0);
    const done = await call<ErasureView>(api.url, 'GET', `/v1/admin/erasures/${erasureId}`, {
      spec: '/v1/admin/erasures/{erasureId}',
      headers: admin.headers,
    });
    expect([done.body.state, done.body.requestedBy]).to.deep.equal(['done', 'restore']);
    const lookup = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
      spec: '/v1/player/{serviceId}',
      headers: b.headers,
    });
    expect(lookup.status).to.equal(404);
  });

  it('a studio’s request for a player of its games alone is decided at once; an admin can cancel one awaiting', async () => {
    const only = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: only.serviceId, clientId: b.game.clientId });
    const outsider = await call(api.url, 'POST', `/v1/player/${only.serviceId}/erasure`, {
      spec: '/v1/player/{serviceId}/erasure',
      headers: a.headers,
    });
    expect(outsider.status, 'not a player of its games').to.equal(404);
    const asked = await call<ErasureView>(api.url, 'POST', `/v1/player/${only.serviceId}/erasure`, {
      spec: '/v1/player/{serviceId}/erasure',
      headers: b.headers,
    });
    expect([asked.status, asked.body.state]).to.deep.equal([202, 'pending']);

    const shared = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: shared.serviceId, clientId: a.game.clientId });
    await linkPlayer(api.pool, { serviceId: shared.serviceId, clientId: b.game.clientId });
    const awaiting = await call<ErasureView>(api.url, 'POST', `/v1/player/${shared.serviceId}/erasure`, {
      spec: '/v1/player/{serviceId}/erasure',
      headers: b.headers,
    });
    expect(awaiting.body.state).to.equal('awaiting_confirmation');
    const list = await call<{ items: ErasureView[]; awaitingConfirmation: number }>(
      api.url,
      'GET',
      '/v1/admin/erasures?state=awaiting_confirmation',
      { spec: '/v1/admin/erasures', headers: admin.headers },
    );
    expect(list.body.items.map((i) => i.id)).to.include(awaiting.body.id);
    expect(list.body.awaitingConfirmation).to.be.at.least(1);
    const cancelled = await call<ErasureView>(
      api.url,
      'POST',
      `/v1/admin/erasures/${awaiting.body.id}/cancel`,
      {
        spec: '/v1/admin/erasures/{erasureId}/cancel',
        headers: admin.headers,
      },
    );
    expect([cancelled.status, cancelled.body.state]).to.deep.equal([200, 'cancelled']);
    const still = await call(api.url, 'GET', `/v1/player/${shared.serviceId}`, {
      spec: '/v1/player/{serviceId}',
      headers: a.headers,
    });
    expect(still.status).to.equal(200);
    const bad = await call(api.url, 'GET', '/v1/admin/erasures?state=gone', {
      spec: '/v1/admin/erasures',
      headers: admin.headers,
    });
    expect(bad.status).to.equal(400);
    expect(
      (
        await call(api.url, 'GET', '/v1/admin/erasures/not-a-uuid', {
          spec: '/v1/admin/erasures/{erasureId}',
          headers: admin.headers,
        })
      ).status,
    ).to.equal(404);
  });
});
