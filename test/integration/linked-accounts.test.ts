import crypto from 'node:crypto';
import { expect } from 'chai';
import { withTransaction } from '../../common/data/db.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import { applyErasure } from '../../common/lifecycles/erasure.js';
import { expireSignalsDue } from '../../common/lifecycles/signals.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
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

interface SignInAnswer {
  serviceId: string;
  added: number;
  seenAgain: number;
  evasionSuspected: boolean;
  evasion: { suspicionId: string; linkedTo: string; sanctionId: string; kinds: string[]; strength: number }[];
  code?: string;
  errors?: { field: string; message: string }[];
}
interface Link {
  serviceId: string;
  kinds: string[];
  strength: number;
  since: string;
  studioId: string;
  evasionSuspected: boolean;
  activeSanctions: { type: string }[];
}

/**
 * Issue 53: linked accounts and ban evasion, against a real API, PostgreSQL and the outbox. A
 * household, an internet café, a ring of alts, a value over its cap, another studio's signals, an
 * erasure, retention and a key rotation.
 */
describe('linked accounts: signals, links and ban evasion (issue 53)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let now = Date.now();
  let a: Tenant;
  let b: Tenant;
  let mod: TestModerator;

  before(async () => {
    now = Date.now();
    api = await startTestApi({}, { clock: () => new Date(now) });
    [a, b] = [await createTenant(api.pool, 'A'), await createTenant(api.pool, 'B')];
    mod = await createTestModerator(api);
  });
  after(async () => {
    await api.close();
  });

  /** A player of a studio's game. */
  async function playerOf(t: Tenant) {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: t.game.clientId });
    return p.serviceId;
  }
  const signIn = (serviceId: string, signals: { kind: string; value: string }[], t = a, extra: object = {}) =>
    call<SignInAnswer>(api.url, 'POST', `/v1/player/${serviceId}/signals`, {
      spec: '/v1/player/{serviceId}/signals',
      headers: t.headers,
      json: { signals, ...extra },
    });
  const links = async (serviceId: string, t = a) =>
    (
      await call<{ links: Link[] }>(api.url, 'GET', `/v1/player/${serviceId}/links`, {
        spec: '/v1/player/{serviceId}/links',
        headers: t.headers,
      })
    ).body.links;
  const ban = (serviceId: string, scope = 'global') =>
    call<{ id: string }>(api.url, 'POST', `/v1/admin/players/${serviceId}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json: {
        type: 'temporary_ban',
        scope,
        durationSeconds: 72 * 3600,
        reason: 'Aimbot confirmed in review.',
      },
    });
  const profile = async (serviceId: string, t = a) =>
    (
      await call<{ evasionSuspected: boolean; activeSanctions: unknown[]; trustScore: number }>(
        api.url,
        'GET',
        `/v1/player/${serviceId}`,
        { spec: '/v1/player/{serviceId}', headers: t.headers },
      )
    ).body;
  const lookup = async (ids: string[], t = a) =>
    (
      await call<{ players: { serviceId: string; evasionSuspected: boolean }[] }>(
        api.url,
        'POST',
        '/v1/players/lookup',
        { spec: '/v1/players/lookup', headers: t.headers, json: { serviceIds: ids } },
      )
    ).body.players;
  const signalRows = async (studioId: string) =>
    Number(
      (
        await api.pool.query<{ n: string }>('SELECT count(*) AS n FROM signals WHERE studio_id = $1', [
          studioId,
        ])
      ).rows[0]!.n,
    );
  const device = () => `HW-${crypto.randomBytes(8).toString('hex')}`;

  it('refuses bad input with a 4xx naming the field, and stores nothing', async () => {
    const p = await playerOf(a);
    const before = await signalRows(a.studioId);
    const cases: [object, number, string][] = [
      [{ signals: [{ kind: 'fingerprint_v2', value: 'x' }] }, 400, 'signals.0.kind'],
      [{ signals: [{ kind: 'ip_address', value: '300.1.2.3' }] }, 400, 'signals.0.value'],
      [{ signals: [{ kind: 'hardware_id', value: 'x'.repeat(257) }] }, 400, 'signals.0.value'],
      [{ signals: [{ kind: 'phone', value: '12345' }] }, 400, 'signals.0.value'],
      [{ signals: [{ kind: 'email', value: 'not-an-address' }] }, 400, 'signals.0.value'],
      [{ signals: [] }, 400, 'signals'],
      [
        { signals: Array.from({ length: 21 }, () => ({ kind: 'hardware_id', value: device() })) },
        400,
        'signals',
      ],
      [
        {
          signals: [{ kind: 'hardware_id', value: device() }],
          observedAt: new Date(now + 86_400_000).toISOString(),
        },
        400,
        'signals.0.observedAt',
      ],
    ];
    for (const [json, status, field] of cases) {
      const res = await call<SignInAnswer>(api.url, 'POST', `/v1/player/${p}/signals`, {
        spec: '/v1/player/{serviceId}/signals',
        headers: a.headers,
        json,
      });
      expect(res.status, JSON.stringify(json).slice(0, 80)).to.equal(status);
      expect(
        res.body.errors?.map((f) => f.field),
        JSON.stringify(res.body),
      ).to.include(field);
    }
    // Another studio's player, and no player: 404, in one call and in bulk (all or nothing).
    const theirs = await playerOf(b);
    expect((await signIn(theirs, [{ kind: 'hardware_id', value: device() }])).status).to.equal(404);
    expect((await signIn('no-such-player', [{ kind: 'hardware_id', value: device() }])).status).to.equal(404);
    const bulk = await call(api.url, 'POST', '/v1/signals', {
      spec: '/v1/signals',
      headers: a.headers,
      json: {
        signals: [
          { serviceId: p, kind: 'hardware_id', value: device() },
          { serviceId: theirs, kind: 'hardware_id', value: device() },
        ],
      },
    });
    expect(bulk.status).to.equal(404);
    expect(String(bulk.body.detail)).to.contain(theirs);
    // Its own tenant: a bulk call spends one unit of the reports rate per entry.
    const c = await createTenant(api.pool, 'C');
    const tooMany = await call(api.url, 'POST', '/v1/signals', {
      spec: '/v1/signals',
      headers: c.headers,
      json: {
        signals: Array.from({ length: 1001 }, () => ({ serviceId: p, kind: 'install_id', value: device() })),
      },
    });
    expect(tooMany.status).to.equal(400);
    const unauth = await call(api.url, 'POST', `/v1/player/${p}/signals`, {
      spec: '/v1/player/{serviceId}/signals',
      json: { signals: [{ kind: 'hardware_id', value: device() }] },
    });
    expect(unauth.status).to.equal(401);
    expect(await signalRows(a.studioId), 'nothing stored').to.equal(before);
  });

  it('keeps only a keyed hash of each value (an address as its network), and the export shows kinds and dates', async () => {
    const p = await playerOf(a);
    const res = await signIn(p, [
      { kind: 'email', value: 'Alice.Secret@Example.COM' },
      { kind: 'ip_address', value: '198.51.100.77' },
      { kind: 'phone', value: '+44 20 7946 0958' },
    ]);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ added: 3, seenAgain: 0, evasionSuspected: false });
    // The same values written another way are the same values: seen again, nothing added.
    const again = await signIn(p, [
      { kind: 'email', value: 'alice.secret@example.com' },
      { kind: 'ip_address', value: '198.51.100.3' },
      { kind: 'phone', value: '+442079460958' },
    ]);
    expect(again.body).to.include({ added: 0, seenAgain: 3 });
    const { rows } = await api.pool.query<{ row: string; digest: Buffer }>(
      `SELECT s::text AS row, digest FROM signals s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1`,
      [p],
    );
    expect(rows).to.have.length(3);
    for (const r of rows) {
      expect(r.digest).to.have.length(32);
      for (const raw of ['alice', 'example.com', '198.51.100', '+44', '79460958'])
        expect(r.row, 'no raw value in the row').not.to.contain(raw);
    }
    const exported = await call<{ signals: { kind: string; firstSeenAt: string; lastSeenAt: string }[] }>(
      api.url,
      'GET',
      `/v1/player/${p}/export`,
      { spec: '/v1/player/{serviceId}/export', headers: a.headers },
    );
    expect(exported.status).to.equal(200);
    expect(exported.body.signals.map((s) => s.kind).sort()).to.deep.equal(['email', 'ip_address', 'phone']);
    expect(JSON.stringify(exported.body.signals)).not.to.match(/alice|198\.51|79460958/i);
    // Another studio's export of a player it shares sees none of A's signals.
    await linkPlayer(api.pool, { serviceId: p, clientId: b.game.clientId });
    const theirs = await call<{ signals: unknown[] }>(api.url, 'GET', `/v1/player/${p}/export`, {
      spec: '/v1/player/{serviceId}/export',
      headers: b.headers,
    });
    expect(theirs.body.signals).to.deep.equal([]);
  });

  it('a household (a shared console and home network) is linked and flagged for a ban, never sanctioned; a moderator clears it for good', async () => {
    const [older, younger] = [await playerOf(a), await playerOf(a)];
    const consoleId = device();
    const hook = await insertWebhook(api.pool, {
      studioId: a.studioId,
      url: 'https://hooks.example.test/evasion',
      events: ['player.evasion_suspected'],
      sealedSecret: Buffer.from('sealed'),
    });
    await signIn(older, [
      { kind: 'hardware_id', value: consoleId },
      { kind: 'ip_address', value: '203.0.113.10' },
      { kind: 'email', value: 'older@example.com' },
    ]);
    const first = await signIn(younger, [
      { kind: 'hardware_id', value: consoleId },
      { kind: 'ip_address', value: '203.0.113.11' },
      { kind: 'email', value: 'younger@example.com' },
    ]);
    expect(first.body.evasionSuspected, 'nobody is banned yet').to.equal(false);
    const [link] = await links(younger);
    expect(link).to.include({ serviceId: older, strength: 0.93, evasionSuspected: false });
    expect(link!.kinds).to.deep.equal(['hardware_id', 'ip_address']);
    expect((await links(older))[0]!.serviceId).to.equal(younger);

    const placed = await ban(older);
    expect(placed.status).to.equal(201);
    const scoreBefore = (await profile(younger)).trustScore;
    const flagged = await signIn(younger, [{ kind: 'hardware_id', value: consoleId }]);
    expect(flagged.body.evasionSuspected).to.equal(true);
    expect(flagged.body.evasion).to.have.length(1);
    expect(flagged.body.evasion[0]).to.include({
      linkedTo: older,
      sanctionId: placed.body.id,
      strength: 0.93,
    });
    const seen = await profile(younger);
    expect(seen.evasionSuspected).to.equal(true);
    expect(seen.activeSanctions, 'a link alone sanctions nobody').to.deep.equal([]);
    expect(seen.trustScore).to.equal(scoreBefore);
    expect((await lookup([younger, older])).map((p) => p.evasionSuspected)).to.deep.equal([true, false]);
    // Studio B's signals raised nothing: it does not see A's suspicion.
    await linkPlayer(api.pool, { serviceId: younger, clientId: b.game.clientId });
    expect((await profile(younger, b)).evasionSuspected).to.equal(false);
    const { rows } = await api.pool.query<{ payload: { data: { playerId: string; linkedTo: string } } }>(
      `SELECT payload FROM webhook_deliveries WHERE event_type = 'player.evasion_suspected' AND webhook_id = $1`,
      [hook.id],
    );
    expect(rows.map((r) => [r.payload.data.playerId, r.payload.data.linkedTo])).to.deep.equal([
      [younger, older],
    ]);
    // The same sign-in again opens nothing new (one suspicion per account and ban).
    await signIn(younger, [{ kind: 'hardware_id', value: consoleId }]);
    const open = await call<{ items: { id: string; serviceId: string; inForce: boolean }[] }>(
      api.url,
      'GET',
      `/v1/admin/evasion-suspicions?serviceId=${younger}`,
      { spec: '/v1/admin/evasion-suspicions', headers: mod.headers },
    );
    expect(open.body.items).to.have.length(1);
    expect(open.body.items[0]!.inForce).to.equal(true);

    const clear = (reason?: string) =>
      call(api.url, 'POST', `/v1/admin/evasion-suspicions/${open.body.items[0]!.id}/clear`, {
        spec: '/v1/admin/evasion-suspicions/{suspicionId}/clear',
        headers: mod.headers,
        json: reason === undefined ? {} : { reason },
      });
    expect((await clear()).status).to.equal(400);
    expect((await clear('Siblings sharing one console; the younger one plays fair.')).status).to.equal(204);
    expect((await clear('again')).status).to.equal(409);
    expect((await profile(younger)).evasionSuspected).to.equal(false);
    const after = await signIn(younger, [{ kind: 'hardware_id', value: consoleId }]);
    expect(after.body.evasionSuspected, 'a cleared suspicion stays cleared').to.equal(false);
    const audit = await api.pool.query(
      `SELECT 1 FROM moderation_audit WHERE action = 'clear_evasion' AND details->>'suspicionId' = $1`,
      [open.body.items[0]!.id],
    );
    expect(audit.rowCount).to.equal(1);
  });

  it('an internet café (one network for many accounts) links nobody; two of its players sharing an install still are', async () => {
    const players = await Promise.all(Array.from({ length: 10 }, () => playerOf(a)));
    const cafe = `192.0.2.${crypto.randomInt(1, 250)}`;
    const bulk = await call<{ accepted: number; added: number }>(api.url, 'POST', '/v1/signals', {
      spec: '/v1/signals',
      headers: a.headers,
      json: { signals: players.map((serviceId) => ({ serviceId, kind: 'ip_address', value: cafe })) },
    });
    expect(bulk.status).to.equal(200);
    expect(bulk.body).to.include({ accepted: 10, added: 10 });
    for (const p of players) expect(await links(p), 'the café links nobody').to.deep.equal([]);
    const install = device();
    await signIn(players[0]!, [{ kind: 'install_id', value: install }]);
    await signIn(players[1]!, [{ kind: 'install_id', value: install }]);
    const l = await links(players[0]!);
    expect(l.map((x) => [x.serviceId, x.kinds, x.strength])).to.deep.equal([
      [players[1], ['install_id'], 0.7],
    ]);
    expect(await links(players[2]!)).to.deep.equal([]);
  });

  it('a value that goes over its cap stops linking its holders, at once', async () => {
    const shared = device();
    const players = await Promise.all(Array.from({ length: 5 }, () => playerOf(a)));
    for (const p of players.slice(0, 4)) await signIn(p, [{ kind: 'hardware_id', value: shared }]);
    expect((await links(players[0]!)).map((l) => l.serviceId).sort()).to.deep.equal(
      players.slice(1, 4).sort(),
    );
    await signIn(players[4]!, [{ kind: 'hardware_id', value: shared }]);
    for (const p of players) expect(await links(p), `${p}: a fifth holder of a console`).to.deep.equal([]);
  });

  it('a ring of alts: each alt strongly linked to a banned account is suspected; one hop only, until that alt is banned too', async () => {
    const [main, alt1, alt2] = [await playerOf(a), await playerOf(a), await playerOf(a)];
    const [d1, d2] = [device(), device()];
    await signIn(main, [{ kind: 'payment_fingerprint', value: d1 }]);
    await signIn(alt1, [
      { kind: 'payment_fingerprint', value: d1 },
      { kind: 'hardware_id', value: d2 },
    ]);
    await signIn(alt2, [{ kind: 'hardware_id', value: d2 }]);
    await ban(main);
    expect((await signIn(alt1, [{ kind: 'hardware_id', value: d2 }])).body.evasionSuspected).to.equal(true);
    expect((await signIn(alt2, [{ kind: 'hardware_id', value: d2 }])).body.evasionSuspected).to.equal(false);
    await ban(alt1);
    const second = await signIn(alt2, [{ kind: 'hardware_id', value: d2 }]);
    expect(second.body.evasionSuspected).to.equal(true);
    expect(second.body.evasion.map((e) => e.linkedTo)).to.deep.equal([alt1]);
    // A ban of another studio's scope is not this studio's to enforce: no suspicion through it.
    const [m2, x2] = [await playerOf(a), await playerOf(a)];
    const d3 = device();
    await signIn(m2, [{ kind: 'hardware_id', value: d3 }]);
    await linkPlayer(api.pool, { serviceId: m2, clientId: b.game.clientId });
    expect((await ban(m2, b.studioId)).status).to.equal(201);
    expect((await signIn(x2, [{ kind: 'hardware_id', value: d3 }])).body.evasionSuspected).to.equal(false);
  });

  it('the links among the listed accounts: three accounts linked pairwise show the third pair among the two others, to the studio and moderators', async () => {
    const [p, q, r] = [await playerOf(a), await playerOf(a), await playerOf(a)];
    const [console1, card] = [device(), device()];
    const mail = `ring-${console1}@example.com`;
    await signIn(p, [
      { kind: 'hardware_id', value: console1 },
      { kind: 'payment_fingerprint', value: card },
    ]);
    await signIn(q, [
      { kind: 'hardware_id', value: console1 },
      { kind: 'email', value: mail },
    ]);
    await signIn(r, [
      { kind: 'payment_fingerprint', value: card },
      { kind: 'email', value: mail },
    ]);
    type Answer = {
      links: Link[];
      among: { serviceIds: string[]; studioId: string; kinds: string[]; strength: number }[];
    };
    const mine = await call<Answer>(api.url, 'GET', `/v1/player/${p}/links`, {
      spec: '/v1/player/{serviceId}/links',
      headers: a.headers,
    });
    expect(mine.body.links.map((l) => l.serviceId).sort()).to.deep.equal([q, r].sort());
    expect(mine.body.among).to.have.length(1);
    expect([...mine.body.among[0]!.serviceIds].sort()).to.deep.equal([q, r].sort());
    expect(mine.body.among[0]).to.include({ studioId: a.studioId });
    expect(mine.body.among[0]!.kinds).to.deep.equal(['email']);
    const global = await call<Answer>(api.url, 'GET', `/v1/admin/players/${p}/links`, {
      spec: '/v1/admin/players/{serviceId}/links',
      headers: mod.headers,
    });
    expect(global.body.among).to.deep.equal(mine.body.among);
    // A player with one link has nothing among.
    const [lone, partner] = [await playerOf(a), await playerOf(a)];
    const d = device();
    await signIn(lone, [{ kind: 'hardware_id', value: d }]);
    await signIn(partner, [{ kind: 'hardware_id', value: d }]);
    const one = await call<Answer>(api.url, 'GET', `/v1/player/${lone}/links`, {
      spec: '/v1/player/{serviceId}/links',
      headers: a.headers,
    });
    expect(one.body.links).to.have.length(1);
    expect(one.body.among).to.deep.equal([]);
  });

  it("another studio's signals never link its players to ours; the moderators' view sees both studios' links", async () => {
    const shared = device();
    const [ours1, ours2] = [await playerOf(a), await playerOf(a)];
    const theirs = await playerOf(b);
    await signIn(ours1, [{ kind: 'hardware_id', value: shared }]);
    await signIn(theirs, [{ kind: 'hardware_id', value: shared }], b);
    expect(await links(ours1)).to.deep.equal([]);
    expect(await links(theirs, b)).to.deep.equal([]);
    // B plays with ours2 too, and its signals link them, in B's namespace only.
    await linkPlayer(api.pool, { serviceId: ours2, clientId: b.game.clientId });
    await signIn(ours2, [{ kind: 'hardware_id', value: shared }], b);
    expect(await links(ours2), "A sees no link B's signals made").to.deep.equal([]);
    expect((await links(ours2, b)).map((l) => l.serviceId)).to.deep.equal([theirs]);
    expect(
      (
        await call(api.url, 'GET', `/v1/player/${theirs}/links`, {
          spec: '/v1/player/{serviceId}/links',
          headers: a.headers,
        })
      ).status,
      "not A's player",
    ).to.equal(404);
    const global = await call<{ links: Link[] }>(api.url, 'GET', `/v1/admin/players/${ours2}/links`, {
      spec: '/v1/admin/players/{serviceId}/links',
      headers: mod.headers,
    });
    expect(global.body.links.map((l) => [l.serviceId, l.studioId])).to.deep.equal([[theirs, b.studioId]]);
  });

  it("an erasure takes the player's signals, links and suspicions with it; retention drops a network after 30 days and a device after a year", async () => {
    const [p, q, r] = [await playerOf(a), await playerOf(a), await playerOf(a)];
    const hw = device();
    const net = `198.18.${crypto.randomInt(0, 255)}.9`;
    await signIn(p, [{ kind: 'hardware_id', value: hw }]);
    await signIn(q, [
      { kind: 'hardware_id', value: hw },
      { kind: 'ip_address', value: net },
    ]);
    await signIn(r, [{ kind: 'ip_address', value: net }]);
    expect((await links(q)).map((l) => l.serviceId).sort()).to.deep.equal([p, r].sort());

    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
      p,
    ]);
    await withTransaction(api.pool, (db) =>
      applyErasure(db, crypto.randomUUID(), rows[0]!.id, new Date(now)),
    );
    const left = await api.pool.query(
      `SELECT 1 FROM signals WHERE player_id = $1 UNION ALL SELECT 1 FROM account_links WHERE player_id = $1 OR other_id = $1`,
      [rows[0]!.id],
    );
    expect(left.rowCount).to.equal(0);
    expect((await links(q)).map((l) => l.serviceId)).to.deep.equal([r]);

    // 31 days on: the network is past its 30 days, the device within its year.
    await expireSignalsDue(api.pool, new Date(now + 31 * 86_400_000));
    expect(await links(q)).to.deep.equal([]);
    const kinds = await api.pool.query<{ kind: string }>(
      'SELECT s.kind FROM signals s JOIN players x ON x.id = s.player_id WHERE x.service_id = $1',
      [q],
    );
    expect(kinds.rows.map((k) => k.kind)).to.deep.equal(['hardware_id']);
  });

  it("a stolen account given back: the window's decisions undone, every token ended, and the thief's values leave the victim's links", async () => {
    now = Date.now();
    const admin2 = await createTestModerator(api);
    const [victim, thiefAlt] = [await playerOf(a), await playerOf(a)];
    const [own, thiefs] = [device(), device()];
    // The victim's own console, from long before; a token of theirs, live.
    await signIn(victim, [{ kind: 'hardware_id', value: own }], a, {
      observedAt: new Date(now - 3 * 3_600_000).toISOString(),
    });
    const token = await api.pool.query<{ id: string }>(
      `INSERT INTO token_families (id, code_hash, game_id, player_id, scope, expires_at)
       SELECT gen_random_uuid(), $3::bytea, $2, p.id, 'profile', now() + interval '1 day' FROM players p WHERE p.service_id = $1
       RETURNING id`,
      [victim, a.game.id, crypto.randomBytes(32)],
    );
    const from = new Date(now - 60_000);
    // The thief, in the window: their console on the victim's account and on their own alt; a report
    // against the victim and a ban for it.
    await signIn(victim, [{ kind: 'hardware_id', value: thiefs }]);
    await signIn(thiefAlt, [{ kind: 'hardware_id', value: thiefs }]);
    expect((await links(victim)).map((l) => l.serviceId)).to.deep.equal([thiefAlt]);
    const report = await call<{ penaltyApplied: number; report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/toxicity/submitReport/${victim}`,
      {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: a.headers,
        json: { report: { isToxic: true, severity: 'high' } },
      },
    );
    expect(report.status).to.equal(201);
    const placed = await ban(victim);
    const scoreInWindow = (await profile(victim)).trustScore;
    expect(scoreInWindow).to.be.below(100);
    const to = new Date(Date.now() + 1_000);
    now = to.getTime() + 1_000;

    const filed = await call<{ id: string }>(api.url, 'POST', `/v1/player/${victim}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: a.headers,
      json: {
        sanctionId: placed.body.id,
        reason: 'compromised_account',
        statement: 'My account was stolen.',
      },
    });
    expect(filed.status, JSON.stringify(filed.body)).to.equal(201);
    const decide = (json: object) =>
      call<{ status: string; code?: string }>(api.url, 'POST', `/v1/admin/appeals/${filed.body.id}/decide`, {
        spec: '/v1/admin/appeals/{appealId}/decide',
        headers: admin2.headers,
        json,
      });
    expect(
      (
        await call(api.url, 'POST', `/v1/admin/appeals/${filed.body.id}/claim`, {
          spec: '/v1/admin/appeals/{appealId}/claim',
          headers: admin2.headers,
        })
      ).status,
    ).to.equal(200);
    // A window backwards, or one with a denial: 400, nothing changes.
    expect(
      (await decide({ decision: 'granted', note: 'x', compromisedWindow: { from: to, to: from } })).status,
    ).to.equal(400);
    expect(
      (await decide({ decision: 'denied', note: 'x', compromisedWindow: { from, to } })).status,
    ).to.equal(400);
    const granted = await decide({
      decision: 'granted',
      note: 'Sign-ins from a new country and a new console; the owner confirmed.',
      compromisedWindow: { from, to },
    });
    expect(granted.status, JSON.stringify(granted.body)).to.equal(200);
    const after = await profile(victim);
    expect(after.activeSanctions).to.deep.equal([]);
    expect(after.trustScore, 'the points of the report in the window come back').to.be.above(scoreInWindow);
    const revoked = await api.pool.query<{ revoked: boolean }>(
      'SELECT revoked_at IS NOT NULL AS revoked FROM token_families WHERE id = $1',
      [token.rows[0]!.id],
    );
    expect(revoked.rows[0]!.revoked, 'every token of the player ended').to.equal(true);
    // The thief's console left the victim's links; the victim's own stays; the thief's alts stay linked.
    expect(await links(victim)).to.deep.equal([]);
    const kinds = await api.pool.query(
      `SELECT 1 FROM signals s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1`,
      [victim],
    );
    expect(kinds.rowCount, "the victim's own console is kept").to.equal(1);
    const thiefAlt2 = await playerOf(a);
    await signIn(thiefAlt2, [{ kind: 'hardware_id', value: thiefs }]);
    expect((await links(thiefAlt)).map((l) => l.serviceId)).to.deep.equal([thiefAlt2]);
    const audit = await api.pool.query<{ details: { tokensRevoked: number; signalsForgotten: number } }>(
      `SELECT details FROM moderation_audit WHERE action = 'decide_appeal' AND details->>'appealId' = $1`,
      [filed.body.id],
    );
    expect(audit.rows[0]!.details).to.include({ signalsForgotten: 1 });
    expect(audit.rows[0]!.details.tokensRevoked).to.be.at.least(1);
  });

  it('a moderator extends a ban to the strongly linked accounts: each its own sanction, ground and appeal; never the weakly linked; never twice', async () => {
    const [main, alt, neighbour] = [await playerOf(a), await playerOf(a), await playerOf(a)];
    const [hw, pay] = [device(), device()];
    const home = `198.19.${crypto.randomInt(0, 255)}.20`;
    await signIn(main, [
      { kind: 'hardware_id', value: hw },
      { kind: 'payment_fingerprint', value: pay },
      { kind: 'ip_address', value: home },
    ]);
    await signIn(alt, [
      { kind: 'hardware_id', value: hw },
      { kind: 'payment_fingerprint', value: pay },
    ]);
    await signIn(neighbour, [{ kind: 'ip_address', value: home }]);
    const placed = await call<{ id: string; expiresAt: string }>(
      api.url,
      'POST',
      `/v1/admin/players/${main}/sanctions`,
      {
        spec: '/v1/admin/players/{serviceId}/sanctions',
        headers: mod.headers,
        json: {
          type: 'temporary_ban',
          scope: 'global',
          durationSeconds: 7 * 86_400,
          reason: `Wallhack seen in three matches of ${main}.`,
          // The original's own category: the alt's decision is not filed under it (it is the alt's
          // evasion, a breach of the terms, not the main account's conduct).
          dsaCategory: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
        },
      },
    );
    expect(placed.status).to.equal(201);
    const extend = (id: string) =>
      call<{
        sanctions: {
          id: string;
          serviceId: string;
          type: string;
          expiresAt: string;
          reason: string;
          dsaCategory: string | null;
        }[];
        skipped: { serviceId: string; why: string }[];
        code?: string;
      }>(api.url, 'POST', `/v1/admin/sanctions/${id}/extend`, {
        spec: '/v1/admin/sanctions/{sanctionId}/extend',
        headers: mod.headers,
      });
    const first = await extend(placed.body.id);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.sanctions.map((x) => [x.serviceId, x.type, x.expiresAt])).to.deep.equal([
      [alt, 'temporary_ban', placed.body.expiresAt],
    ]);
    const ground = first.body.sanctions[0]!.reason;
    expect(ground).to.contain('a device and a payment instrument');
    expect(ground, 'never the other account, nor its reason').not.to.contain(main);
    expect(ground).not.to.contain('Wallhack');
    // What the decision holds, no more: a moderator extended it because of the link.
    expect(ground).to.match(
      /^This account shares a device and a payment instrument with an account that was given a temporary ban in every game on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\. A moderator extended that decision to this account because of this link\.$/,
    );
    expect(first.body.sanctions[0]!.dsaCategory).to.equal(null);
    expect((await profile(neighbour)).activeSanctions, 'a network alone is a weak link').to.deep.equal([]);
    // Again: nothing twice.
    const again = await extend(placed.body.id);
    expect(again.body.sanctions).to.deep.equal([]);
    expect(again.body.skipped).to.deep.equal([{ serviceId: alt, why: 'already_extended' }]);
    const audit = await api.pool.query<{ details: { extendedFrom: string; linkKinds: string[] } }>(
      `SELECT details FROM moderation_audit WHERE action = 'place_sanction' AND details->>'sanctionId' = $1`,
      [first.body.sanctions[0]!.id],
    );
    expect(audit.rows[0]!.details).to.deep.include({
      extendedFrom: placed.body.id,
      linkKinds: ['hardware_id', 'payment_fingerprint'],
    });
    // The alt's own appeal.
    const appeal = await call(api.url, 'POST', `/v1/player/${alt}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: a.headers,
      json: {
        sanctionId: first.body.sanctions[0]!.id,
        reason: 'incorrect',
        statement: 'That is my brother.',
      },
    });
    expect(appeal.status).to.equal(201);
    // A revoked sanction, or none: nothing to extend.
    await call(api.url, 'POST', `/v1/admin/players/${main}/sanctions/${placed.body.id}/revoke`, {
      spec: '/v1/admin/players/{serviceId}/sanctions/{sanctionId}/revoke',
      headers: mod.headers,
      json: { reason: 'Overturned.' },
    });
    const gone = await extend(placed.body.id);
    expect([gone.status, gone.body.code]).to.deep.equal([409, 'sanction_not_in_force']);
    expect((await extend(crypto.randomUUID())).status).to.equal(404);
  });

  it('after a key rotation, a value hashed under the previous key still links and is re-keyed for every holder when seen', async () => {
    const [k1, k2] = ['signal-key-one-0123456789abcdefghijklmn', 'signal-key-two-0123456789abcdefghijklmn'];
    const [p, q, r] = [await playerOf(a), await playerOf(a), await playerOf(a)];
    const hw = device();
    const send = (api2: TestApi, serviceId: string) =>
      call<SignInAnswer>(api2.url, 'POST', `/v1/player/${serviceId}/signals`, {
        spec: '/v1/player/{serviceId}/signals',
        headers: a.headers,
        json: { signals: [{ kind: 'hardware_id', value: hw }] },
      });
    const keyIds = async () =>
      (
        await api.pool.query<{ key_id: string }>(
          `SELECT DISTINCT s.key_id FROM signals s JOIN players x ON x.id = s.player_id
            WHERE x.service_id = ANY($1::text[])`,
          [[p, q, r]],
        )
      ).rows.map((x) => x.key_id);
    const withKeys = async (env: Record<string, string>, fn: (api2: TestApi) => Promise<void>) => {
      const api2 = await startTestApi(env, { clock: () => new Date(now) });
      try {
        await fn(api2);
      } finally {
        await api2.close();
      }
    };
    await withKeys({ SIGNAL_HASH_KEY: k1 }, async (api1) => {
      expect((await send(api1, p)).status).to.equal(200);
    });
    const [before] = await keyIds();
    await withKeys({ SIGNAL_HASH_KEY: k2, SIGNAL_PREVIOUS_HASH_KEYS: k1 }, async (api2) => {
      expect((await send(api2, q)).body.added).to.equal(1);
    });
    expect(
      (await links(q)).map((l) => l.serviceId),
      'linked across the rotation',
    ).to.deep.equal([p]);
    const [after, ...more] = await keyIds();
    expect(more, 'every holder re-keyed').to.deep.equal([]);
    expect(after).not.to.equal(before);
    // The previous key dropped: the re-keyed value still links a third account.
    await withKeys({ SIGNAL_HASH_KEY: k2 }, async (api3) => {
      await send(api3, r);
    });
    expect((await links(r)).map((l) => l.serviceId).sort()).to.deep.equal([p, q].sort());
  });
});
