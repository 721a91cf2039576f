import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import type { RunningWorker } from '../../worker/run.js';
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
import { ownDatabase } from '../helpers/services.js';
import { startTestWorker } from '../helpers/workers.js';

interface Row {
  section: string;
  field: string;
  breakdown: string;
  value: number | string;
}

/**
 * Issue 35: the transparency report's figures against a hand count over a seeded history that takes
 * every branch (automated and not, a player's reports and an anti-cheat system's, the strike ladder,
 * a studio's restriction, a warning, an appeal granted, denied and open, a dismissal, a muted
 * reporter), on a database of its own so the counts are this history's alone.
 */
describe('the transparency report: each figure equals the hand count', function () {
  this.timeout(120_000);
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let other: Tenant;
  let mod: TestModerator;
  let admin: TestModerator;
  const now = new Date();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();

  before(async () => {
    db = await ownDatabase('tdbreport');
    api = await startTestApi({ DATABASE_URL: db.url, STRIKE_LADDER: '2=matchmaking_restriction/1d' });
    review = await startTestWorker(api.config, 'review');
    [studio, other] = [await createTenant(api.pool, 'Report'), await createTenant(api.pool, 'Other')];
    [mod, admin] = [await createTestModerator(api), await createTestModerator(api, 'admin')];

    const player = async () => {
      const p = await createTestPlayer(api.pool);
      await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
      return p.serviceId;
    };
    const report = async (serviceId: string, kind: string, body: object) => {
      const res = await call<{ report: { _id: string } }>(
        api.url,
        'POST',
        `/v1/${kind}/submitReport/${serviceId}`,
        {
          spec: `/v1/${kind}/submitReport/{serviceId}` as never,
          headers: studio.headers,
          json: { report: body },
        },
      );
      expect(res.status, res.text).to.equal(201);
      return eventually('its case', async () => {
        const { rows } = await api.pool.query<{ id: string }>(
          'SELECT case_id AS id FROM case_offenses WHERE offense_id = $1',
          [res.body.report._id],
        );
        return rows[0]?.id;
      });
    };
    const resolve = async (caseId: string, json: object) => {
      await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
        spec: '/v1/admin/cases/{caseId}/claim',
        headers: mod.headers,
      });
      const res = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: mod.headers,
        json,
      });
      expect(res.status, res.text).to.equal(200);
    };
    const sanction = async (serviceId: string, json: object, by: 'moderator' | 'studio') => {
      const res = await call<{ id: string }>(
        api.url,
        'POST',
        by === 'moderator' ? `/v1/admin/players/${serviceId}/sanctions` : `/v1/player/${serviceId}/sanctions`,
        {
          spec: (by === 'moderator'
            ? '/v1/admin/players/{serviceId}/sanctions'
            : '/v1/player/{serviceId}/sanctions') as never,
          headers: by === 'moderator' ? mod.headers : studio.headers,
          json,
        },
      );
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    };
    const appeal = async (serviceId: string, sanctionId: string) => {
      const res = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/appeals`, {
        spec: '/v1/player/{serviceId}/appeals',
        headers: studio.headers,
        json: { sanctionId, reason: 'incorrect', statement: 'It was not me.' },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    };
    // Decided by another moderator than the one who decided what is appealed (an admin).
    const decide = async (appealId: string, decision: 'granted' | 'denied') => {
      await call(api.url, 'POST', `/v1/admin/appeals/${appealId}/claim`, {
        spec: '/v1/admin/appeals/{appealId}/claim',
        headers: admin.headers,
      });
      const res = await call(api.url, 'POST', `/v1/admin/appeals/${appealId}/decide`, {
        spec: '/v1/admin/appeals/{appealId}/decide',
        headers: admin.headers,
        json: { decision, note: 'reviewed' },
      });
      expect(res.status, res.text).to.equal(200);
    };

    // P1: the anti-cheat system reports, a moderator upholds with a temporary ban (restriction 1);
    // then a player's toxicity report upheld: the second strike, the ladder's restriction (2).
    const p1 = await player();
    const c1 = await report(p1, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
      source: 'anticheat_system',
    });
    await resolve(c1, {
      outcome: 'upheld',
      note: 'replay',
      sanction: { type: 'temporary_ban', reason: 'cheating', durationSeconds: 86_400 },
    });
    const banned = (await api.pool.query<{ id: string }>('SELECT id FROM sanctions WHERE case_id = $1', [c1]))
      .rows[0]!.id;
    const c2 = await report(p1, 'toxicity', {
      isToxic: true,
      severity: 'medium',
      source: 'player',
      reporterId: 'r1',
    });
    await resolve(c2, { outcome: 'upheld', note: 'chat log' });
    await eventually('the ladder’s restriction', async () => {
      const { rows } = await api.pool.query('SELECT 1 FROM sanctions WHERE case_id = $1', [c2]);
      return rows.length === 1;
    });
    // P2: the studio's chat restriction in its games (3); a moderator's warning (no restriction).
    const p2 = await player();
    const studioOne = await sanction(
      p2,
      { type: 'chat_restriction', reason: 'spam', durationSeconds: 3600 },
      'studio',
    );
    await sanction(p2, { type: 'warning', reason: 'first warning' }, 'moderator');
    // P3: a player's griefing report dismissed; a moderator's permanent ban (4); its reporter muted.
    const p3 = await player();
    const c3 = await report(p3, 'griefing', {
      isGriefing: true,
      severity: 'low',
      source: 'player',
      reporterId: 'r2',
    });
    await resolve(c3, { outcome: 'dismissed', note: 'not griefing' });
    const permanent = await sanction(p3, { type: 'permanent_ban', reason: 'many things' }, 'moderator');
    const muted = await call(api.url, 'POST', `/v1/admin/studios/${studio.studioId}/reporters/r2/mute`, {
      spec: '/v1/admin/studios/{studioId}/reporters/{reporterId}/mute',
      headers: mod.headers,
      json: { note: 'false reports' },
    });
    expect(muted.status, muted.text).to.equal(200);
    // Appeals: of the ban (granted: reversed), of the studio's restriction (denied), of the permanent ban (open).
    await decide(await appeal(p1, banned), 'granted');
    await decide(await appeal(p2, studioOne), 'denied');
    await appeal(p3, permanent);
  });
  after(async () => {
    await review?.stop();
    await api?.close();
    await db?.drop();
  });

  const report = async (platform = 'all', extra = '') => {
    const res = await call<{ rows: Row[]; platform: string }>(
      api.url,
      'GET',
      `/v1/admin/transparency-report?from=${from}&to=${to}&platform=${platform}${extra}`,
      { spec: '/v1/admin/transparency-report', headers: admin.headers },
    );
    expect(res.status, res.text).to.equal(200);
    return (section: string, field: string, breakdown = 'total') =>
      res.body.rows.find((r) => r.section === section && r.field === field && r.breakdown === breakdown)
        ?.value;
  };

  it('restrictions: by type, category, ground, source, detection and automation', async () => {
    const v = await report();
    expect(v('restrictions', 'number_of_decisions')).to.equal(4);
    expect(v('restrictions', 'type_of_restriction', 'DECISION_ACCOUNT_SUSPENDED')).to.equal(1);
    expect(v('restrictions', 'type_of_restriction', 'DECISION_ACCOUNT_TERMINATED')).to.equal(1);
    expect(v('restrictions', 'type_of_restriction', 'DECISION_PROVISION_PARTIAL_SUSPENSION')).to.equal(2);
    expect(v('restrictions', 'category', 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC')).to.equal(3);
    expect(v('restrictions', 'category', 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH')).to.equal(1);
    expect(v('restrictions', 'decision_ground', 'DECISION_GROUND_INCOMPATIBLE_CONTENT')).to.equal(4);
    expect(v('restrictions', 'source_type', 'SOURCE_VOLUNTARY')).to.equal(3);
    expect(v('restrictions', 'source_type', 'SOURCE_TYPE_OTHER_NOTIFICATION')).to.equal(1);
    expect(v('restrictions', 'automated_detection', 'Yes')).to.equal(1);
    expect(v('restrictions', 'automated_detection', 'No')).to.equal(3);
    expect(v('restrictions', 'automated_decision', 'AUTOMATED_DECISION_FULLY')).to.equal(1);
    expect(v('restrictions', 'automated_decision', 'AUTOMATED_DECISION_PARTIALLY')).to.equal(1);
    expect(v('restrictions', 'automated_decision', 'AUTOMATED_DECISION_NOT_AUTOMATED')).to.equal(2);
    expect(v('restrictions', 'warnings_without_restriction')).to.equal(1);
  });

  it('notices, complaints, automated means, misuse and recipients', async () => {
    const v = await report();
    expect(v('notices', 'number_of_notices_article_16')).to.equal(0);
    expect(v('notices', 'number_of_user_reports')).to.equal(2);
    expect(
      v('notices', 'number_of_user_reports', 'toxicity (STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH)'),
    ).to.equal(1);
    expect(
      v('notices', 'number_of_user_reports', 'griefing (STATEMENT_CATEGORY_OTHER_VIOLATION_TC)'),
    ).to.equal(1);
    expect(
      v('notices', 'number_of_user_reports', 'cheating (STATEMENT_CATEGORY_OTHER_VIOLATION_TC)'),
    ).to.equal(0);
    expect(v('notices', 'user_reports_actioned', 'upheld')).to.equal(1);
    expect(v('notices', 'user_reports_actioned', 'dismissed')).to.equal(1);
    expect(v('notices', 'median_time_to_action_hours')).to.be.a('number').and.at.least(0);

    expect(v('complaints', 'number_of_complaints')).to.equal(3);
    expect(v('complaints', 'complaints_outcome', 'granted')).to.equal(1);
    expect(v('complaints', 'complaints_outcome', 'denied')).to.equal(1);
    expect(v('complaints', 'complaints_outcome', 'open')).to.equal(1);
    expect(v('complaints', 'decisions_reversed')).to.equal(1);
    expect(v('complaints', 'median_time_to_decision_hours')).to.be.a('number').and.at.least(0);

    expect(v('automated_means', 'reports_detected_automatically')).to.equal(1);
    expect(v('automated_means', 'cases_decided_by_moderators', 'upheld')).to.equal(1);
    expect(v('automated_means', 'cases_decided_by_moderators', 'dismissed')).to.equal(0);
    expect(v('automated_means', 'accuracy_indicator', 'upheld / (upheld + dismissed)')).to.equal(1);
    expect(v('automated_means', 'automatic_score_penalties')).to.equal(1);
    // The granted appeal gave the anti-cheat report's points back.
    expect(v('automated_means', 'automatic_score_penalties', 'given back by a person')).to.equal(1);

    expect(v('misuse', 'suspensions_of_notices_article_23', 'reporters muted')).to.equal(1);
    // P1 and P3 were reported this month (P2 only sanctioned): two players seen, over one month.
    expect(v('recipients', 'average_monthly_active_recipients')).to.equal(2);
    expect(String(v('recipients', 'average_monthly_active_recipients', 'source'))).to.match(
      /distinct players/,
    );
    // Asked for the whole year (issue 51: it read 0 while the month read 2): averaged over the months
    // the service saw, from the first with a report to the last begun, not over months to come.
    const year = new Date().getUTCFullYear();
    const whole = await call<{ rows: Row[] }>(
      api.url,
      'GET',
      `/v1/admin/transparency-report?from=${year}-01-01T00:00:00Z&to=${year + 1}-01-01T00:00:00Z`,
      { spec: '/v1/admin/transparency-report', headers: admin.headers },
    );
    expect(whole.status, whole.text).to.equal(200);
    const ofYear = (breakdown: string) =>
      whole.body.rows.find(
        (r) =>
          r.section === 'recipients' &&
          r.field === 'average_monthly_active_recipients' &&
          r.breakdown === breakdown,
      )?.value;
    expect(ofYear('total')).to.equal(2);
    expect(String(ofYear('source'))).to.include('over the 1 month(s)');
    const supplied = await report('all', '&activeRecipients=125000');
    expect(supplied('recipients', 'average_monthly_active_recipients')).to.equal(125_000);
    expect(supplied('recipients', 'average_monthly_active_recipients', 'source')).to.equal(
      'supplied by the studio',
    );
  });

  it('per platform: the operator’s global decisions, a studio’s in its games', async () => {
    const operator = await report('operator');
    expect(operator('restrictions', 'number_of_decisions')).to.equal(3);
    expect(operator('restrictions', 'warnings_without_restriction')).to.equal(1);
    const ofStudio = await report(studio.studioId);
    expect(ofStudio('restrictions', 'number_of_decisions')).to.equal(1);
    expect(ofStudio('complaints', 'number_of_complaints')).to.equal(1);
    expect(ofStudio('notices', 'number_of_user_reports')).to.equal(2);
    const ofOther = await report(other.studioId);
    expect(ofOther('restrictions', 'number_of_decisions')).to.equal(0);
    expect(ofOther('notices', 'number_of_user_reports')).to.equal(0);
  });

  it('as CSV for a spreadsheet, and bad periods or platforms refused', async () => {
    const res = await fetch(`${api.url}/v1/admin/transparency-report?from=${from}&to=${to}`, {
      headers: { ...admin.headers, accept: 'text/csv' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    expect(res.headers.get('content-disposition')).to.match(/attachment; filename="transparency-report-all-/);
    const lines = (await res.text()).split('\r\n');
    expect(lines[0]).to.equal('"section","field","breakdown","value"');
    expect(lines).to.include('"restrictions","number_of_decisions","total","4"');
    const get = (query: string, headers = admin.headers) =>
      call<{ code: string }>(api.url, 'GET', `/v1/admin/transparency-report?${query}`, {
        spec: '/v1/admin/transparency-report',
        headers,
      });
    expect((await get(`from=${to}&to=${from}`)).status).to.equal(400);
    expect((await get(`from=${from}`)).status).to.equal(400);
    expect((await get('from=2020-01-01&to=2026-01-01')).status).to.equal(400);
    expect(
      (await get(`from=${from}&to=${to}&platform=00000000-0000-4000-8000-000000000000`)).status,
    ).to.equal(404);
    expect((await get(`from=${from}&to=${to}`, mod.headers)).status).to.equal(403);
  });
});
