import { expect } from 'chai';
import { startTestWorker } from '../helpers/workers.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import {
  caseOfOffense,
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  trustScore,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { playerBearer } from '../helpers/oauth.js';

interface AppealBody {
  id: string;
  status: string;
  subject: { kind: string; id: string };
  decision: { pointsRefunded: number } | null;
  code?: string;
  openAppealId?: string;
}

describe('appeals', function () {
  this.timeout(60_000);
  let api: TestApi;
  let now = Date.now();
  let game: Tenant;
  let modA: TestModerator;
  let modB: TestModerator;
  let admin: TestModerator;

  before(async () => {
    now = Date.now(); // when the suite starts, not when its file was loaded
    api = await startTestApi({}, { clock: () => new Date(now) });
    game = await createTenant(api.pool, 'Appeals');
    [modA, modB, admin] = [
      await createTestModerator(api),
      await createTestModerator(api),
      await createTestModerator(api, 'admin'),
    ];
  });
  after(() => api.close());

  const playerToken = (player: { gamerTag: string }) => playerBearer(api.url, game.game, player);

  const sanction = (serviceId: string, by: TestModerator, json: object) =>
    call<{ id: string }>(api.url, 'POST', `/v1/admin/players/${serviceId}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: by.headers,
      json,
    });
  const fileAsPlayer = (headers: Record<string, string>, json: object) =>
    call<AppealBody>(api.url, 'POST', '/v1/player/me/appeals', {
      spec: '/v1/player/me/appeals',
      headers,
      json,
    });
  const findAppealStatus = async (id: string) =>
    (await api.pool.query<{ status: string }>('SELECT status FROM appeals WHERE id = $1', [id])).rows[0]!
      .status;
  const act = (by: TestModerator, id: string, action: 'claim' | 'release' | 'decide', json?: object) =>
    call<AppealBody>(api.url, 'POST', `/v1/admin/appeals/${id}/${action}`, {
      spec: `/v1/admin/appeals/{appealId}/${action}` as never,
      headers: by.headers,
      ...(json ? { json } : {}),
    });

  /**
   * A high-severity toxicity report against `serviceId`, its case claimed and upheld by modA (with
   * `resolution`'s sanction, if any): the offense's and the case's ids. A review worker must run.
   */
  async function upheldToxicity(serviceId: string, resolution: object = { note: 'abusive' }) {
    const report = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/toxicity/submitReport/${serviceId}`,
      {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: game.headers,
        json: { report: { isToxic: true, severity: 'high' } },
      },
    );
    const offenseId = report.body.report._id;
    const caseId = await caseOfOffense(api.pool, offenseId);
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: modA.headers,
    });
    const resolved = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: modA.headers,
      json: { outcome: 'upheld', ...resolution },
    });
    expect(resolved.status, resolved.text).to.equal(200);
    return { offenseId, caseId };
  }

  it('a player appeals a sanction; one open appeal at a time; another moderator grants it and it is revoked', async () => {
    const player = await createTestPlayer(api.pool);
    const headers = await playerToken(player); // approving the game links the player to it
    const placed = await sanction(player.serviceId, modA, {
      type: 'temporary_ban',
      reason: 'boosting',
      durationSeconds: 7 * 86_400,
    });
    const filed = await fileAsPlayer(headers, {
      sanctionId: placed.body.id,
      reason: 'compromised_account',
      statement: 'My account was shared without my knowledge.',
    });
    expect(filed.status, filed.text).to.equal(201);
    expect(filed.body).to.deep.include({ status: 'open', subject: { kind: 'sanction', id: placed.body.id } });
    const again = await fileAsPlayer(headers, {
      sanctionId: placed.body.id,
      reason: 'unfair',
      statement: 'again',
    });
    expect(again.status).to.equal(409);
    expect(again.body).to.include({ code: 'appeal_open', openAppealId: filed.body.id });

    const queue = await call<{ items: { id: string }[] }>(api.url, 'GET', '/v1/admin/appeals', {
      spec: '/v1/admin/appeals',
      headers: modB.headers,
    });
    expect(queue.body.items.map((a) => a.id)).to.include(filed.body.id);

    // modA placed the sanction: not theirs to decide, so not theirs to claim either (a claim they could
    // not use would hold the appeal for the whole lease).
    const own = await act(modA, filed.body.id, 'claim');
    expect(own.status).to.equal(403);
    expect(own.body.code).to.equal('own_decision');
    expect(
      (await api.pool.query('SELECT claimed_by FROM appeals WHERE id = $1', [filed.body.id])).rows,
    ).to.deep.equal([{ claimed_by: null }]);
    // modB claims and gives it up; claims again; an admin takes the live claim over.
    expect((await act(modB, filed.body.id, 'claim')).status).to.equal(200);
    const released = await act(modB, filed.body.id, 'release');
    expect(released.status, released.text).to.equal(200);
    expect(released.body).to.include({ claim: null, status: 'open' });
    expect((await act(modB, filed.body.id, 'release')).body.code).to.equal('appeal_not_claimed');
    expect((await act(modB, filed.body.id, 'claim')).status).to.equal(200);
    const takeover = await act(admin, filed.body.id, 'claim');
    expect(takeover.status, takeover.text).to.equal(200);
    expect((takeover.body as unknown as { claim: { moderatorId: string } }).claim.moderatorId).to.equal(
      admin.id,
    );
    expect((await act(modB, filed.body.id, 'decide', { decision: 'granted', note: 'x' })).body.code).to.equal(
      'appeal_claimed',
    );
    expect((await act(modB, filed.body.id, 'release')).body.code).to.equal('appeal_claimed');
    const audit = await api.pool.query<{ action: string; details: Record<string, unknown> }>(
      `SELECT action, details FROM moderation_audit WHERE details->>'appealId' = $1 ORDER BY id`,
      [filed.body.id],
    );
    expect(audit.rows.map((r) => r.action)).to.deep.equal([
      'claim_appeal',
      'release_appeal',
      'claim_appeal',
      'claim_appeal',
    ]);
    expect(audit.rows[3]!.details).to.include({ takenOverFrom: modB.id });
    expect((await act(admin, filed.body.id, 'release')).status).to.equal(200);
    {
      expect((await act(modB, filed.body.id, 'claim')).status).to.equal(200);
      const granted = await act(modB, filed.body.id, 'decide', {
        decision: 'granted',
        note: 'verified the hijack',
      });
      expect(granted.status, granted.text).to.equal(200);
      expect(granted.body.status).to.equal('granted');
      const list = await call<{ items: { id: string; active: boolean; revokedAt: string | null }[] }>(
        api.url,
        'GET',
        `/v1/admin/players/${player.serviceId}/sanctions`,
        { spec: '/v1/admin/players/{serviceId}/sanctions', headers: modB.headers },
      );
      expect(list.body.items[0]).to.include({ id: placed.body.id, active: false });
      // A stolen account given back ends every token of the player (issue 53): the thief's, and
      // this one; the player signs in again.
      const stale = await call(api.url, 'GET', '/v1/player/me/appeals', {
        spec: '/v1/player/me/appeals',
        headers,
      });
      expect(stale.status).to.equal(401);
      const fresh = await playerToken(player);
      const mine = await call<{ items: AppealBody[] }>(api.url, 'GET', '/v1/player/me/appeals', {
        spec: '/v1/player/me/appeals',
        headers: fresh,
      });
      expect(mine.body.items.map((a) => a.status)).to.deep.equal(['granted']);
      expect(
        (await fileAsPlayer(fresh, { sanctionId: placed.body.id, reason: 'unfair', statement: 'x' })).body
          .code,
      ).to.equal('not_appealable');
    }
  });

  it('a studio appeals an offense for its player; granted, the points come back exactly (never above 100)', async () => {
    const player = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: game.game.clientId });
    const report = await call<{ report: { _id: string }; penaltyApplied: number }>(
      api.url,
      'POST',
      `/v1/anticheat/submitReport/${player.serviceId}`,
      {
        spec: '/v1/anticheat/submitReport/{serviceId}',
        headers: game.headers,
        json: { report: { isCheatDetected: true, severity: 'high' } },
      },
    );
    expect(await trustScore(api.pool, player.serviceId)).to.equal(85);
    const filed = await call<AppealBody>(api.url, 'POST', `/v1/player/${player.serviceId}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: game.headers,
      json: {
        offenseId: report.body.report._id,
        reason: 'incorrect',
        statement: 'False positive of the anti-cheat.',
      },
    });
    expect(filed.status, filed.text).to.equal(201);
    const hook = await insertWebhook(api.pool, {
      studioId: game.studioId,
      url: 'https://hooks.example/trust',
      events: ['trust.changed'],
      sealedSecret: Buffer.from('sealed'),
    });
    await act(admin, filed.body.id, 'claim');
    const decided = await act(admin, filed.body.id, 'decide', {
      decision: 'granted',
      note: 'known false positive',
    });
    expect(decided.body.decision).to.include({ pointsRefunded: 15 });
    expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
    const { rows } = await api.pool.query(
      `SELECT h.reason, h.points FROM trust_history h JOIN players p ON p.id = h.player_id
        WHERE p.service_id = $1 ORDER BY h.id`,
      [player.serviceId],
    );
    expect(rows).to.deep.equal([
      { reason: 'offense', points: -15 },
      { reason: 'appeal', points: 15 },
    ]);
    // Studios that mirror the score hear of the refund.
    const { rows: events } = await api.pool.query(
      `SELECT payload->'data' AS data FROM webhook_deliveries WHERE webhook_id = $1 AND event_type = 'trust.changed'`,
      [hook.id],
    );
    expect(events.map((e: { data: Record<string, unknown> }) => e.data)).to.deep.include({
      playerId: player.serviceId,
      trustScoreBefore: 85,
      trustScoreAfter: 100,
      reason: 'appeal',
      offenseId: report.body.report._id,
    });
    // The studio of another game cannot appeal for a player not of its games.
    const other = await createTenant(api.pool, 'Other');
    const refused = await call(api.url, 'POST', `/v1/player/${player.serviceId}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: other.headers,
      json: { offenseId: report.body.report._id, reason: 'unfair', statement: 'x' },
    });
    expect(refused.status).to.equal(404);
  });

  it('appeals close 30 days after the decision; a denied appeal changes nothing', async () => {
    const player = await createTestPlayer(api.pool);
    const headers = await playerToken(player);
    const placed = await sanction(player.serviceId, modA, { type: 'warning', reason: 'language' });
    now += 31 * 86_400_000;
    try {
      // (The player's token would have expired by then: the studio files it.)
      const late = await call<AppealBody>(api.url, 'POST', `/v1/player/${player.serviceId}/appeals`, {
        spec: '/v1/player/{serviceId}/appeals',
        headers: game.headers,
        json: { sanctionId: placed.body.id, reason: 'unfair', statement: 'late' },
      });
      expect(late.status, late.text).to.equal(409);
      expect(late.body.code).to.equal('appeal_window_closed');
    } finally {
      now -= 31 * 86_400_000;
    }
    const filed = await fileAsPlayer(headers, {
      sanctionId: placed.body.id,
      reason: 'forgiveness',
      statement: 'sorry',
    });
    await act(modB, filed.body.id, 'claim');
    const denied = await act(modB, filed.body.id, 'decide', { decision: 'denied', note: 'stands' });
    expect(denied.body.status).to.equal('denied');
    const list = await call<{ items: { active: boolean }[] }>(
      api.url,
      'GET',
      `/v1/admin/players/${player.serviceId}/sanctions`,
      { spec: '/v1/admin/players/{serviceId}/sanctions', headers: modB.headers },
    );
    expect(list.body.items[0]!.active).to.equal(true);
    expect((await act(modB, filed.body.id, 'decide', { decision: 'granted', note: 'x' })).body.code).to.equal(
      'appeal_decided',
    );
  });

  it('granting an appeal of an upheld offense removes the strike of its case; its decider may not decide it', async () => {
    const review = await startTestWorker(api.config, 'review');
    try {
      const player = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: game.game.clientId });
      const { offenseId, caseId } = await upheldToxicity(player.serviceId);
      const strike = async () =>
        (
          await api.pool.query<{ removed: boolean }>(
            'SELECT removed_at IS NOT NULL AS removed FROM strikes WHERE case_id = $1',
            [caseId],
          )
        ).rows;
      expect(await strike()).to.deep.equal([{ removed: false }]);
      const filed = await call<AppealBody>(api.url, 'POST', `/v1/player/${player.serviceId}/appeals`, {
        spec: '/v1/player/{serviceId}/appeals',
        headers: game.headers,
        json: {
          offenseId: offenseId,
          reason: 'unfair',
          statement: 'It was banter between friends.',
        },
      });
      // modA upheld the case: the claim itself is refused, so the appeal is never stuck with them.
      expect((await act(modA, filed.body.id, 'claim')).body.code).to.equal('own_decision');
      await act(modB, filed.body.id, 'claim');
      const granted = await act(modB, filed.body.id, 'decide', {
        decision: 'granted',
        note: 'context shows banter',
      });
      expect(granted.body.decision).to.include({ pointsRefunded: 7 });
      expect(await strike()).to.deep.equal([{ removed: true }]);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
    } finally {
      await review.stop();
    }
  });

  describe('a granted appeal undoes the whole decision it contests', () => {
    let review: Awaited<ReturnType<typeof startTestWorker>>;
    before(async () => {
      review = await startTestWorker(api.config, 'review');
    });
    after(() => review.stop());

    interface Statement {
      id: string;
      kind: string;
      decision: string;
      facts: string;
      automated: boolean;
      automatedMeans: string | null;
      state: string;
      appeal: {
        how: string;
        filed: { status: string; reason: string; statement: string; remains: string[] } | null;
      };
    }
    interface Detail {
      context: {
        ifGranted: {
          strikeRemoved: boolean;
          sanctionsRevoked: { record: { id: string; type: string }; appealed: boolean }[];
        } | null;
      };
    }

    /** A toxicity case upheld by modA with a 7-day ban, and the player's appeal of its offense. */
    async function upheldWithBan() {
      const player = await createTestPlayer(api.pool);
      const headers = await playerToken(player);
      const { offenseId, caseId } = await upheldToxicity(player.serviceId, {
        note: 'abusive in voice chat',
        sanction: { type: 'temporary_ban', reason: 'Abuse of other players.', durationSeconds: 7 * 86_400 },
      });
      const ban = (
        await api.pool.query<{ id: string }>('SELECT id FROM sanctions WHERE case_id = $1', [caseId])
      ).rows[0]!.id;
      const filed = await fileAsPlayer(headers, {
        offenseId,
        reason: 'incorrect',
        statement: 'I was muted the whole match <script>alert(1)</script>',
      });
      expect(filed.status, filed.text).to.equal(201);
      return { player, headers, offenseId, caseId, ban, appealId: filed.body.id };
    }
    const banState = async (id: string) =>
      (
        await api.pool.query<{ revoked: boolean; reason: string | null }>(
          'SELECT revoked_at IS NOT NULL AS revoked, revoke_reason AS reason FROM sanctions WHERE id = $1',
          [id],
        )
      ).rows[0];
    const strikeRemoved = async (caseId: string) =>
      (await api.pool.query('SELECT 1 FROM strikes WHERE case_id = $1 AND removed_at IS NOT NULL', [caseId]))
        .rowCount === 1;
    const decisions = async (headers: Record<string, string>) =>
      (
        await call<{ items: Statement[] }>(api.url, 'GET', '/v1/player/me/decisions', {
          spec: '/v1/player/me/decisions',
          headers,
        })
      ).body.items;

    it('the moderator sees the ban before deciding; granted, the points, the strike and the ban all go', async () => {
      const { headers, offenseId, caseId, ban, appealId } = await upheldWithBan();
      const detail = await call<Detail>(api.url, 'GET', `/v1/admin/appeals/${appealId}`, {
        spec: '/v1/admin/appeals/{appealId}',
        headers: modB.headers,
      });
      expect(detail.status, detail.text).to.equal(200);
      expect(detail.body.context.ifGranted).to.deep.include({ strikeRemoved: true });
      expect(
        detail.body.context.ifGranted!.sanctionsRevoked.map((s) => [s.record.id, s.record.type, s.appealed]),
      ).to.deep.equal([[ban, 'temporary_ban', false]]);

      await act(modB, appealId, 'claim');
      const granted = await act(modB, appealId, 'decide', {
        decision: 'granted',
        note: 'the chat log is clean',
      });
      expect(granted.status, granted.text).to.equal(200);
      expect(granted.body.decision).to.deep.include({ sanctionsRevoked: [ban], sanctionsKept: [] });
      expect(await banState(ban)).to.deep.equal({
        revoked: true,
        reason: 'Appeal granted: the chat log is clean',
      });
      expect(await strikeRemoved(caseId)).to.equal(true);
      expect(await trustScore(api.pool, (granted.body as unknown as { playerId: string }).playerId)).to.equal(
        100,
      );

      const items = await decisions(headers);
      const offense = items.find((d) => d.id === offenseId)!;
      expect(offense.appeal.filed).to.deep.include({
        status: 'granted',
        reason: 'incorrect',
        statement: 'I was muted the whole match <script>alert(1)</script>',
        remains: [],
      });
      // The points were taken by the penalty rule (automated); giving them back was a person's decision.
      expect(offense.automated).to.equal(true);
      expect(offense.automatedMeans).to.match(
        /automatically.*penalty rule.*A moderator \(a person\) then granted your appeal/,
      );
      const banStatement = items.find((d) => d.id === ban)!;
      expect(banStatement.state).to.match(/^Revoked on \d{4}-\d\d-\d\d \d\d:\d\d UTC: Appeal granted/);
      // A moderator's ban names the behaviour it rests on and how it came to light (the studio's report,
      // with no source named), and times are written as the page writes them.
      expect(banStatement.facts, banStatement.facts).to.match(
        /^A moderator reviewed reports of toxic behaviour \(high severity\) made against you from \d{4}-\d\d-\d\d \d\d:\d\d UTC and upheld them\. The game's studio reported it\.$/,
      );
      expect(banStatement.decision).to.match(/until \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
      for (const d of items)
        expect(JSON.stringify([d.decision, d.facts, d.state, d.appeal.how])).not.to.match(/T\d\d:\d\d:\d\d/);
    });

    it('the ban appealed instead of the offense: granted, the same decision goes whole, its points too', async () => {
      const player = await createTestPlayer(api.pool);
      const headers = await playerToken(player);
      const { caseId } = await upheldToxicity(player.serviceId, {
        note: 'abusive in voice chat',
        sanction: { type: 'temporary_ban', reason: 'Abuse of other players.', durationSeconds: 7 * 86_400 },
      });
      const ban = (
        await api.pool.query<{ id: string }>('SELECT id FROM sanctions WHERE case_id = $1', [caseId])
      ).rows[0]!.id;
      expect(await trustScore(api.pool, player.serviceId)).to.be.below(100);
      const filed = await fileAsPlayer(headers, {
        sanctionId: ban,
        reason: 'incorrect',
        statement: 'Not me.',
      });
      expect(filed.status, filed.text).to.equal(201);
      await act(modB, filed.body.id, 'claim');
      const granted = await act(modB, filed.body.id, 'decide', { decision: 'granted', note: 'wrong player' });
      expect(granted.status, granted.text).to.equal(200);
      expect(granted.body.decision).to.deep.include({ sanctionsRevoked: [ban], pointsRefunded: 7 });
      expect(await banState(ban)).to.deep.include({ revoked: true });
      expect(await strikeRemoved(caseId)).to.equal(true);
      expect(await trustScore(api.pool, player.serviceId)).to.equal(100);
    });

    it('a moderator may keep the ban with a ground: it stays in force and the player reads why', async () => {
      const { headers, offenseId, caseId, ban, appealId } = await upheldWithBan();
      await act(modB, appealId, 'claim');
      const granted = await act(modB, appealId, 'decide', {
        decision: 'granted',
        note: 'this report was wrong',
        keep: [{ sanctionId: ban, reason: 'The same abuse is on record in two other matches that week.' }],
      });
      expect(granted.status, granted.text).to.equal(200);
      expect(granted.body.decision).to.deep.include({
        sanctionsRevoked: [],
        sanctionsKept: [
          { sanctionId: ban, reason: 'The same abuse is on record in two other matches that week.' },
        ],
      });
      expect(await banState(ban)).to.deep.equal({ revoked: false, reason: null });
      expect(await strikeRemoved(caseId)).to.equal(true);
      const items = await decisions(headers);
      const offense = items.find((d) => d.id === offenseId)!;
      expect(offense.appeal.filed!.remains).to.have.length(1);
      expect(offense.appeal.filed!.remains[0]).to.match(
        /^A temporary ban: you cannot play, in every game, until .* UTC\. It stays in force: The same abuse is on record/,
      );
      expect(offense.appeal.how).to.match(/^Your appeal was granted; part of the decision stays in force\./);
      expect(items.find((d) => d.id === ban)!.state).to.equal(
        'In force: kept when your appeal was granted, because The same abuse is on record in two other matches that week.',
      );
      const audit = await api.pool.query<{ details: Record<string, unknown> }>(
        `SELECT details FROM moderation_audit WHERE action = 'decide_appeal' AND details->>'appealId' = $1`,
        [appealId],
      );
      expect(audit.rows[0]!.details).to.deep.include({
        sanctionsRevoked: [],
        sanctionsKept: [
          { sanctionId: ban, reason: 'The same abuse is on record in two other matches that week.' },
        ],
      });
    });

    it('keep is refused with a denial, for a sanction of another decision, and for the appealed sanction itself; nothing changes', async () => {
      const { player, caseId, ban, appealId } = await upheldWithBan();
      const other = await sanction(player.serviceId, modA, {
        type: 'chat_restriction',
        reason: 'spam',
        durationSeconds: 86_400,
      });
      await act(modB, appealId, 'claim');
      const denied = await act(modB, appealId, 'decide', {
        decision: 'denied',
        note: 'no',
        keep: [{ sanctionId: ban, reason: 'x' }],
      });
      expect(denied.status, denied.text).to.equal(400);
      expect(denied.body.code).to.equal('validation_failed');
      const foreign = await act(modB, appealId, 'decide', {
        decision: 'granted',
        note: 'yes',
        keep: [{ sanctionId: other.body.id, reason: 'x' }],
      });
      expect(foreign.status, foreign.text).to.equal(400);
      expect(
        (foreign.body as unknown as { errors: { field: string }[] }).errors.map((f) => f.field),
      ).to.deep.equal(['keep.0.sanctionId']);
      const twice = await act(modB, appealId, 'decide', {
        decision: 'granted',
        note: 'yes',
        keep: [
          { sanctionId: ban, reason: 'x' },
          { sanctionId: ban, reason: 'y' },
        ],
      });
      expect(twice.status, twice.text).to.equal(400);
      expect(
        (twice.body as unknown as { errors: { field: string }[] }).errors.map((f) => f.field),
      ).to.deep.equal(['keep.1.sanctionId']);
      expect(await findAppealStatus(appealId)).to.equal('open');
      expect(await banState(ban)).to.deep.equal({ revoked: false, reason: null });
      expect(await strikeRemoved(caseId)).to.equal(false);

      // An appeal of the ban itself: granting it cannot keep it.
      await act(modB, appealId, 'decide', { decision: 'denied', note: 'no' });
      const headers = await playerToken(player);
      const ofBan = await fileAsPlayer(headers, { sanctionId: ban, reason: 'unfair', statement: 'too long' });
      expect(ofBan.status, ofBan.text).to.equal(201);
      await act(modB, ofBan.body.id, 'claim');
      const self = await act(modB, ofBan.body.id, 'decide', {
        decision: 'granted',
        note: 'shorter is enough',
        keep: [{ sanctionId: ban, reason: 'x' }],
      });
      expect(self.status, self.text).to.equal(400);
      expect(await banState(ban)).to.deep.equal({ revoked: false, reason: null });
    });
  });

  it('a moderator sees what is appealed in full: the offense, its studio, the decision behind it, the latest offenses; a sanction with who placed it and where', async () => {
    interface Detail {
      context: {
        player: { serviceId: string; gamerTag: string; trustScore: number; activeStrikes: number };
        offense: {
          record: { _id: string; description: string; visibility: string };
          studioName: string;
          case: { status: string; outcome: string | null; note: string | null; decidedBy: string | null };
        } | null;
        sanction: {
          record: { id: string; reason: string };
          issuedByName: string;
          scopeName: string | null;
          case: unknown;
        } | null;
        recentOffenses: { _id: string }[];
      };
    }
    const detail = (id: string) =>
      call<Detail>(api.url, 'GET', `/v1/admin/appeals/${id}`, {
        spec: '/v1/admin/appeals/{appealId}',
        headers: modB.headers,
      });
    const review = await startTestWorker(api.config, 'review');
    try {
      const player = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: game.game.clientId });
      const report = await call<{ report: { _id: string } }>(
        api.url,
        'POST',
        `/v1/toxicity/submitReport/${player.serviceId}`,
        {
          spec: '/v1/toxicity/submitReport/{serviceId}',
          headers: game.headers,
          json: { report: { isToxic: true, severity: 'high', description: '<b>slurs</b> in chat' } },
        },
      );
      const caseId = await caseOfOffense(api.pool, report.body.report._id);
      await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
        spec: '/v1/admin/cases/{caseId}/claim',
        headers: modA.headers,
      });
      await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: modA.headers,
        json: { outcome: 'upheld', note: 'clear slurs' },
      });
      const filed = await call<AppealBody>(api.url, 'POST', `/v1/player/${player.serviceId}/appeals`, {
        spec: '/v1/player/{serviceId}/appeals',
        headers: game.headers,
        json: { offenseId: report.body.report._id, reason: 'unfair', statement: 'Quoting someone else.' },
      });
      const ofOffense = await detail(filed.body.id);
      expect(ofOffense.status).to.equal(200);
      const c = ofOffense.body.context;
      expect(c.player).to.deep.equal({
        serviceId: player.serviceId,
        gamerTag: player.gamerTag,
        trustScore: 93,
        activeStrikes: 1,
      });
      expect(c.offense!.record).to.include({
        _id: report.body.report._id,
        description: '<b>slurs</b> in chat',
        visibility: 'full',
      });
      const studioName = (
        await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [game.studioId])
      ).rows[0]!.name;
      expect(c.offense!.studioName).to.equal(studioName);
      expect(c.offense!.case).to.include({
        status: 'resolved',
        outcome: 'upheld',
        note: 'clear slurs',
        decidedBy: modA.username,
      });
      expect(c.sanction).to.equal(null);
      expect(c.recentOffenses.map((o) => o._id)).to.deep.equal([report.body.report._id]);

      // A studio's sanction: placed by the studio, limited to the studio, no case behind it.
      const placed = await call<{ id: string }>(api.url, 'POST', `/v1/player/${player.serviceId}/sanctions`, {
        spec: '/v1/player/{serviceId}/sanctions',
        headers: game.headers,
        json: { type: 'chat_restriction', reason: 'spam in lobby', durationSeconds: 3600 },
      });
      expect(placed.status, placed.text).to.equal(201);
      const onSanction = await call<AppealBody>(api.url, 'POST', `/v1/player/${player.serviceId}/appeals`, {
        spec: '/v1/player/{serviceId}/appeals',
        headers: game.headers,
        json: { sanctionId: placed.body.id, reason: 'incorrect', statement: 'Not me.' },
      });
      expect(onSanction.status, onSanction.text).to.equal(201);
      const s = (await detail(onSanction.body.id)).body.context;
      expect(s.offense).to.equal(null);
      expect(s.sanction).to.deep.include({ issuedByName: studioName, scopeName: studioName, case: null });
      expect(s.sanction!.record).to.include({ id: placed.body.id, reason: 'spam in lobby' });

      // The audit log in names, filtered by the player's serviceId and a moderator's username.
      await act(modB, onSanction.body.id, 'claim');
      await act(modB, onSanction.body.id, 'decide', { decision: 'denied', note: 'spam is visible' });
      interface Entry {
        action: string;
        moderator: { username: string } | null;
        studio: { name: string } | null;
        player: { serviceId: string; gamerTag: string } | null;
        trustScoreBefore: number | null;
        trustScoreAfter: number | null;
      }
      const audit = async (query: string) => {
        const res = await call<{ items: Entry[] }>(api.url, 'GET', `/v1/admin/audit?${query}`, {
          spec: '/v1/admin/audit',
          headers: admin.headers,
        });
        expect(res.status, res.text).to.equal(200);
        return res.body.items;
      };
      const aboutPlayer = await audit(`player=${player.serviceId}`);
      expect(aboutPlayer.map((e) => e.action)).to.deep.equal([
        'decide_appeal',
        'claim_appeal',
        'place_sanction',
        'resolve',
        'claim',
      ]);
      for (const e of aboutPlayer)
        expect(e.player).to.deep.equal({ serviceId: player.serviceId, gamerTag: player.gamerTag });
      expect(aboutPlayer[2]).to.deep.include({
        moderator: null,
        studio: { id: game.studioId, name: studioName },
      });
      // A denied appeal leaves the score where it was, and says so.
      expect(aboutPlayer[0]).to.include({ trustScoreBefore: 93, trustScoreAfter: 93 });
      const byModA = await audit(`player=${player.serviceId}&moderator=${modA.username.toUpperCase()}`);
      expect(byModA.map((e) => e.action)).to.deep.equal(['resolve', 'claim']);
      expect(await audit(`moderator=nobody-${player.serviceId.toLowerCase()}`)).to.deep.equal([]);
    } finally {
      await review.stop();
    }
  });
  it("the stats count the appeals queue: open now, filed and decided in the window, each moderator's decisions", async () => {
    const { rows } = await api.pool.query<{ open: number; decided_by_b: number; decided_by_admin: number }>(
      `SELECT (SELECT count(*)::int FROM appeals WHERE status = 'open') AS open,
              (SELECT count(*)::int FROM appeals WHERE decided_by = $1) AS decided_by_b,
              (SELECT count(*)::int FROM appeals WHERE decided_by = $2) AS decided_by_admin`,
      [modB.id, admin.id],
    );
    const expected = rows[0]!;
    expect(expected.decided_by_b, 'this suite decided appeals as modB').to.be.greaterThan(1);
    const stats = await call<{
      appeals: { pending: number; decided: number; moderators: { username: string; resolved: number }[] };
    }>(api.url, 'GET', '/v1/admin/stats?days=90', { spec: '/v1/admin/stats', headers: modA.headers });
    expect(stats.status).to.equal(200);
    expect(stats.body.appeals.pending).to.equal(expected.open);
    const share = (m: TestModerator) =>
      stats.body.appeals.moderators.find((x) => x.username === m.username)?.resolved ?? 0;
    expect(share(modB)).to.equal(expected.decided_by_b);
    expect(share(admin)).to.equal(expected.decided_by_admin);
    expect(share(modA)).to.equal(0);
    expect(stats.body.appeals.decided).to.be.at.least(expected.decided_by_b + expected.decided_by_admin);
  });
});
