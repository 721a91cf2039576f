import crypto from 'node:crypto';
import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { insertWebhook } from '../../common/data/repos/webhooks.js';
import { sanctionDecisions } from '../../common/data/repos/transparency.js';
import { transparencyStatement } from '../../common/domain/transparency-statement.js';
import { sanctionStatement } from '../../common/domain/statement-of-reasons.js';
import type { RunningWorker } from '../../worker/run.js';
import {
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
import { eventually } from '../helpers/http-server.js';
import { startTestWorker } from '../helpers/workers.js';

interface EvasionOffense {
  offense_id: string;
  case_id: string;
  status: string;
  status_reason: string;
  penalty_held: number;
  type: string;
  description: string;
  details: { evasion: { suspicionId: string; sanctionId: string; kinds: string[]; strength: number } };
}

/**
 * Issue 53, part 3: a suspicion of ban evasion opens a case for moderators (source: the service's
 * sign-in check, automated detection), with its evidence; its points are held, so a link alone takes
 * nothing; a dismissal clears the suspicion; an uphold with a ban tells the player and the regulator
 * that the linked-accounts check detected it, never the banned account's identity. Against a real
 * API, PostgreSQL, Redis and the review worker.
 */
describe('evasion cases: a suspicion of ban evasion reaches the review queue (issue 53)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let mod: TestModerator;

  before(async () => {
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Evasion');
    mod = await createTestModerator(api);
  });
  after(async () => {
    await review?.stop();
    await api?.close();
  });

  async function playerOf() {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
    return p.serviceId;
  }
  const signIn = (serviceId: string, signals: { kind: string; value: string }[]) =>
    call<{ evasionSuspected: boolean; evasion: { suspicionId: string }[] }>(
      api.url,
      'POST',
      `/v1/player/${serviceId}/signals`,
      { spec: '/v1/player/{serviceId}/signals', headers: studio.headers, json: { signals } },
    );
  const ban = async (serviceId: string) => {
    const res = await call<{ id: string }>(api.url, 'POST', `/v1/admin/players/${serviceId}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json: {
        type: 'temporary_ban',
        scope: 'global',
        durationSeconds: 72 * 3600,
        reason: 'Aimbot confirmed.',
      },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };
  /** A main account and an alt sharing a device and an install; the main one banned. */
  async function bannedPair() {
    const [main, alt] = [await playerOf(), await playerOf()];
    const shared = [
      { kind: 'hardware_id', value: `HW-${crypto.randomBytes(8).toString('hex')}` },
      { kind: 'install_id', value: `IN-${crypto.randomBytes(8).toString('hex')}` },
    ];
    await signIn(main, shared);
    const sanctionId = await ban(main);
    return { main, alt, shared, sanctionId };
  }
  const evasionOffenses = async (serviceId: string) =>
    (
      await api.pool.query<EvasionOffense>(
        `SELECT o.id AS offense_id, co.case_id, o.status, o.status_reason, o.penalty_held, o.type, o.description,
                o.details
           FROM offenses o JOIN players p ON p.id = o.player_id
           LEFT JOIN case_offenses co ON co.offense_id = o.id
          WHERE p.service_id = $1 AND o.context->>'source' = 'evasion_check'`,
        [serviceId],
      )
    ).rows;
  const filedCase = (serviceId: string) =>
    eventually('the evasion offense filed into a case', async () => {
      const rows = await evasionOffenses(serviceId);
      return rows[0]?.case_id ? rows[0] : undefined;
    });
  const claimAndResolve = async (caseId: string, body: object) => {
    const claim = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    expect(claim.status, claim.text).to.equal(200);
    const res = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: body,
    });
    expect(res.status, res.text).to.equal(200);
  };
  const suspected = async (serviceId: string) =>
    (
      await call<{ evasionSuspected: boolean }>(api.url, 'GET', `/v1/player/${serviceId}`, {
        spec: '/v1/player/{serviceId}',
        headers: studio.headers,
      })
    ).body.evasionSuspected;

  it('a suspicion opens one case with its evidence and held points; the studio hears no report outcome; a dismissal clears the suspicion for good', async () => {
    const hook = await insertWebhook(api.pool, {
      studioId: studio.studioId,
      url: 'https://hooks.example.test/evasion-cases',
      events: ['report.outcome', 'case.resolved', 'player.evasion_suspected'],
      sealedSecret: Buffer.from('sealed'),
    });
    const { main, alt, shared, sanctionId } = await bannedPair();
    const before = await trustScore(api.pool, alt);
    const flagged = await signIn(alt, shared);
    expect(flagged.status, flagged.text).to.equal(200);
    expect(flagged.body.evasionSuspected).to.equal(true);
    const filed = await filedCase(alt);
    expect(filed).to.include({ status: 'held', status_reason: 'evasion_check', type: 'cheating' });
    expect(filed.penalty_held).to.be.greaterThan(0);
    expect(filed.details.evasion).to.deep.include({
      suspicionId: flagged.body.evasion[0]!.suspicionId,
      sanctionId,
      kinds: ['hardware_id', 'install_id'],
    });
    expect(filed.description, 'the evidence never names the banned account').not.to.include(main);
    expect(await trustScore(api.pool, alt), 'a link alone takes nothing').to.equal(before);
    const { rows: linked } = await api.pool.query<{ offense_id: string }>(
      'SELECT offense_id FROM evasion_suspicions WHERE id = $1',
      [flagged.body.evasion[0]!.suspicionId],
    );
    expect(linked[0]!.offense_id).to.equal(filed.offense_id);

    // Moderators read it as the sign-in check's, in the case's own contract.
    const seen = await call<{
      type: string;
      offenses: { _id: string; context: { source?: string }; statusReason: string | null }[];
    }>(api.url, 'GET', `/v1/admin/cases/${filed.case_id}`, {
      spec: '/v1/admin/cases/{caseId}',
      headers: mod.headers,
    });
    expect(seen.status, seen.text).to.equal(200);
    const offense = seen.body.offenses.find((o) => o._id === filed.offense_id)!;
    expect(offense.context.source).to.equal('evasion_check');
    expect(offense.statusReason).to.equal('evasion_check');

    // The same sign-in again: the suspicion is the same, so is its case.
    await signIn(alt, shared);
    expect(await evasionOffenses(alt)).to.have.length(1);

    await claimAndResolve(filed.case_id, { outcome: 'dismissed', note: 'Brothers sharing one console.' });
    expect(await suspected(alt), 'a dismissed evasion case clears its suspicion').to.equal(false);
    expect(await trustScore(api.pool, alt)).to.equal(before);
    const again = await signIn(alt, shared);
    expect(again.body.evasionSuspected, 'and it stays cleared').to.equal(false);
    expect(await evasionOffenses(alt)).to.have.length(1);
    const { rows: cleared } = await api.pool.query<{ cleared_by: string; clear_reason: string }>(
      'SELECT cleared_by, clear_reason FROM evasion_suspicions WHERE id = $1',
      [flagged.body.evasion[0]!.suspicionId],
    );
    expect(cleared[0]).to.deep.equal({
      cleared_by: mod.id,
      clear_reason: 'Dismissed with its review case: Brothers sharing one console.',
    });
    const { rows: audit } = await api.pool.query<{ details: { evasionSuspicionsCleared?: string[] } }>(
      `SELECT details FROM moderation_audit WHERE action = 'resolve' AND case_id = $1`,
      [filed.case_id],
    );
    expect(audit[0]!.details.evasionSuspicionsCleared).to.deep.equal([flagged.body.evasion[0]!.suspicionId]);
    // The studio heard of the suspicion, and of no report of its own: it filed none.
    const { rows: told } = await api.pool.query<{ event_type: string }>(
      'SELECT event_type FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at',
      [hook.id],
    );
    expect(told.map((t) => t.event_type)).to.deep.equal(['player.evasion_suspected']);
  });

  it("upheld with a ban: the held points are taken, and the player's and the regulator's messages say the sign-in check detected it, never who the other account is", async () => {
    const { main, alt, shared } = await bannedPair();
    const before = await trustScore(api.pool, alt);
    expect((await signIn(alt, shared)).body.evasionSuspected).to.equal(true);
    const filed = await filedCase(alt);
    await claimAndResolve(filed.case_id, {
      outcome: 'upheld',
      note: 'Same device and install as the banned account.',
      sanction: {
        type: 'temporary_ban',
        reason: 'Evading a ban with a second account.',
        durationSeconds: 86_400,
      },
    });
    expect(await trustScore(api.pool, alt)).to.equal(before - filed.penalty_held);
    const { rows } = await api.pool.query<{ id: string }>(
      `SELECT s.id FROM sanctions s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1`,
      [alt],
    );
    expect(rows).to.have.length(1);
    const decision = (await sanctionDecisions(api.pool, [rows[0]!.id])).get(rows[0]!.id)!;
    expect(decision.case!.origins).to.deep.equal(['evasion_check']);
    const tdb = transparencyStatement(decision, { territorialScope: ['DE'] });
    expect(tdb).to.include({
      source_type: 'SOURCE_VOLUNTARY',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_PARTIALLY',
    });
    expect(tdb.decision_facts).to.match(/the service's linked-accounts check detected it/i);
    const statement = sanctionStatement(
      {
        decision,
        reason: 'Evading a ban with a second account.',
        revokedAt: null,
        revokeReason: null,
        keptOnAppeal: null,
      },
      { windowDays: 14, now: new Date(), appeal: null },
    );
    expect(statement.facts).to.match(/the service's linked-accounts check detected it/i);
    expect(JSON.stringify([tdb, statement]), 'never the other account').not.to.include(main);
    // It held no report of cheating: it is about evading a ban, a breach of the terms.
    expect(String(tdb.decision_facts)).not.to.match(/reports of/);
    expect(statement.facts).not.to.match(/reports of/);
    expect(tdb).to.include({
      category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
      incompatible_content_ground:
        "The game's terms of service: no playing on another account to evade a ban.",
    });
    // The suspicion stands (upheld, not cleared) beside the alt's own ban.
    expect(await suspected(alt)).to.equal(true);
  });
});
