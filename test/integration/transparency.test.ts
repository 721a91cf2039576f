import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { linkPlayer, provisionPlayer } from '../../common/usecases/provisioning.js';
import { sanctionDecisions } from '../../common/data/repos/transparency.js';
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
import { TransparencyDatabaseStandIn, validateStatement } from '../../scripts/lib/transparency-database.js';
import { startTestWorker } from '../helpers/workers.js';

interface StatementView {
  id: string;
  sanctionId: string;
  platform: string;
  puid: string;
  state: 'pending' | 'sent' | 'refused';
  permalink: string | null;
  uuid: string | null;
  dryRun: boolean;
  refusal: unknown;
  attempts: number;
  lastError: string | null;
}

/**
 * Issue 35: every restriction placed by any path reaches the DSA Transparency Database exactly once,
 * valid by its rules, under the right platform, with nothing personal in it; a refused statement is
 * kept with the database's words for an admin, and sent again once mended; passing faults are retried.
 * Against a stand-in of the database written from its public rules (test/helpers/transparency-database.ts).
 */
describe('DSA Transparency Database: a statement for every restriction', function () {
  this.timeout(90_000);
  const tdb = new TransparencyDatabaseStandIn();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-tdb-'));
  const dryRunFile = path.join(dir, 'dry-run.jsonl');
  let api: TestApi;
  let workers: RunningWorker[];
  let studioA: Tenant;
  let studioB: Tenant;
  let mod: TestModerator;
  let admin: TestModerator;

  before(async () => {
    await tdb.start();
    api = await startTestApi({
      TDB_RETRY_BASE_MS: '50',
      TDB_DRY_RUN_FILE: dryRunFile,
      STRIKE_LADDER: '2=matchmaking_restriction/1d',
    });
    workers = [await startTestWorker(api.config, 'review'), await startTestWorker(api.config, 'webhooks')];
    [studioA, studioB] = [await createTenant(api.pool, 'A'), await createTenant(api.pool, 'B')];
    [mod, admin] = [await createTestModerator(api), await createTestModerator(api, 'admin')];
    const configure = async (platform: string, json: object) => {
      const res = await call(api.url, 'PUT', `/v1/admin/transparency/accounts/${platform}`, {
        spec: '/v1/admin/transparency/accounts/{platform}',
        headers: admin.headers,
        json,
      });
      expect(res.status, res.text).to.equal(201);
    };
    await configure('operator', { mode: 'submit', baseUrl: tdb.url, token: tdb.platform('operator') });
    await configure(studioA.studioId, { mode: 'submit', baseUrl: tdb.url, token: tdb.platform('studio-a') });
    await configure(studioB.studioId, { mode: 'dry-run' });
  });
  after(async () => {
    // The database is the whole run's: later suites' restrictions must owe no statement to this stand-in.
    await api.pool.query('DELETE FROM transparency_accounts WHERE platform = ANY($1)', [
      ['operator', studioA.studioId, studioB.studioId],
    ]);
    await Promise.all(workers.map((w) => w.stop()));
    await api.close();
    await tdb.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const statementOf = (sanctionId: string) =>
    api.pool
      .query<{ id: string; state: string; platform: string; attempts: number }>(
        'SELECT id, state, platform, attempts FROM transparency_statements WHERE sanction_id = $1',
        [sanctionId],
      )
      .then((r) => r.rows[0]);
  const settled = (sanctionId: string, state = 'sent') =>
    eventually(
      `the statement of ${sanctionId} ${state}`,
      async () => (await statementOf(sanctionId))?.state === state,
      20_000,
    );
  /** The statement the database holds for a sanction, once it was sent. */
  const bodyOf = async (sanctionId: string) => {
    await settled(sanctionId);
    return tdb.stored.find((s) => s.statement.puid === `sanction-${sanctionId}`)!.statement as Record<
      string,
      string
    >;
  };
  const byModerator = async (serviceId: string, json: object) => {
    const res = await call<{ id: string }>(api.url, 'POST', `/v1/admin/players/${serviceId}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json,
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };
  const byStudio = async (t: Tenant, serviceId: string, json: object) => {
    const res = await call<{ id: string }>(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: t.headers,
      json,
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };
  const report = async (t: Tenant, serviceId: string, kind: string, body: object) => {
    const res = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/${kind}/submitReport/${serviceId}`,
      {
        spec: `/v1/${kind}/submitReport/{serviceId}` as never,
        headers: t.headers,
        json: { report: body },
      },
    );
    expect(res.status, res.text).to.equal(201);
    return res.body.report._id;
  };
  const caseOf = (offenseId: string) =>
    eventually('the case', async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        'SELECT case_id AS id FROM case_offenses WHERE offense_id = $1',
        [offenseId],
      );
      return rows[0]?.id;
    });
  const uphold = async (caseId: string, extra: object = {}) => {
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    const res = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'upheld', note: 'confirmed', ...extra },
    });
    expect(res.status, res.text).to.equal(200);
  };
  const sanctionsOfCase = async (caseId: string) =>
    (
      await api.pool.query<{ id: string; type: string }>(
        'SELECT id, type FROM sanctions WHERE case_id = $1',
        [caseId],
      )
    ).rows;

  it('every path that places a restriction: exactly once, valid, under the right platform; nothing personal', async () => {
    const MARK = 'ZZMARKER';
    // A player whose every name is a marker, reported with markers in every string a report carries.
    const player = await provisionPlayer(api.pool, {
      serviceId: `${MARK}-svc-${Date.now()}`,
      fullName: `${MARK} Full Name`,
      gamerTag: `${MARK}-tag-${Date.now()}`,
      password: 'correct horse battery',
    });
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: studioA.game.clientId });
    const offense = await report(studioA, player.serviceId, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
      description: `${MARK} description`,
      logs: [`${MARK} log line`],
      evidence: [
        { type: 'text', content: `${MARK} evidence` },
        { type: 'screenshot', url: `https://example.com/${MARK}.png` },
      ],
      source: 'anticheat_system',
      reporterId: `${MARK}-reporter`,
      matchId: `${MARK}-match`,
    });
    const firstCase = await caseOf(offense);
    // 1. A moderator's uphold with a sanction (global: the operator's).
    await uphold(firstCase, {
      note: `${MARK} note`,
      sanction: { type: 'temporary_ban', reason: `${MARK} reason`, durationSeconds: 86_400 },
    });
    const [withCase] = await sanctionsOfCase(firstCase);
    // 2. The strike ladder, on the second upheld case (automatically; the operator's).
    const second = await caseOf(
      await report(studioA, player.serviceId, 'toxicity', { isToxic: true, description: `${MARK} words` }),
    );
    await uphold(second);
    const ladder = await eventually('the ladder’s sanction', async () =>
      (await sanctionsOfCase(second)).find((s) => s.type === 'matchmaking_restriction'),
    );
    // 3. A moderator's direct sanction, global; 4. a studio's, scoped to its games (studio A's account).
    const direct = await byModerator(player.serviceId, {
      type: 'permanent_ban',
      reason: `${MARK} direct reason`,
    });
    const studio = await byStudio(studioA, player.serviceId, {
      type: 'chat_restriction',
      reason: `${MARK} studio reason`,
      durationSeconds: 3600,
    });
    // A warning restricts nothing: no statement.
    const warning = await byModerator(player.serviceId, { type: 'warning', reason: 'first warning' });

    for (const id of [withCase!.id, ladder.id, direct, studio]) await settled(id);
    expect(await statementOf(warning)).to.equal(undefined);

    const operator = tdb
      .storedFor('operator')
      .filter((s) => [withCase!.id, ladder.id, direct].some((id) => s.statement.puid === `sanction-${id}`));
    expect(operator.map((s) => s.statement.puid).sort()).to.deep.equal(
      [withCase!.id, ladder.id, direct].map((id) => `sanction-${id}`).sort(),
    );
    const ofStudio = tdb.storedFor('studio-a').filter((s) => s.statement.puid === `sanction-${studio}`);
    expect(ofStudio).to.have.length(1);
    // Exactly once each, valid by the database's rules.
    const all = tdb.stored.filter((s) =>
      [withCase!.id, ladder.id, direct, studio].some((id) => s.statement.puid === `sanction-${id}`),
    );
    expect(all).to.have.length(4);
    for (const s of all) expect(validateStatement(s.statement), String(s.statement.puid)).to.deep.equal({});
    // How each was decided.
    const of = (id: string) => all.find((s) => s.statement.puid === `sanction-${id}`)!.statement;
    expect(of(withCase!.id)).to.include({
      decision_account: 'DECISION_ACCOUNT_SUSPENDED',
      source_type: 'SOURCE_VOLUNTARY',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_PARTIALLY',
      category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
    });
    expect(of(ladder.id)).to.include({
      decision_provision: 'DECISION_PROVISION_PARTIAL_SUSPENSION',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
    });
    expect(of(direct)).to.include({ decision_account: 'DECISION_ACCOUNT_TERMINATED' });
    expect(of(studio)).to.include({ decision_provision: 'DECISION_PROVISION_PARTIAL_SUSPENSION' });
    // Nothing personal: no name, tag, serviceId, reporter, match, description, evidence, note or reason.
    expect(JSON.stringify(all.map((s) => s.statement))).to.not.include(MARK);

    // Admins see each sent one with its permalink.
    const sent = await call<{ items: StatementView[] }>(
      api.url,
      'GET',
      '/v1/admin/transparency/statements?state=sent&limit=200',
      {
        spec: '/v1/admin/transparency/statements',
        headers: admin.headers,
      },
    );
    // Moderators see each sanction's statement on the player.
    const view = await call<{
      transparencyStatements: Record<string, { state: string; permalink: string | null }>;
    }>(api.url, 'GET', `/v1/admin/players/${player.serviceId}`, {
      spec: '/v1/admin/players/{serviceId}',
      headers: mod.headers,
    });
    expect(view.status).to.equal(200);
    expect(view.body.transparencyStatements[direct]?.state).to.equal('sent');
    expect(view.body.transparencyStatements[direct]?.permalink).to.match(/\/statement\//);
    expect(view.body.transparencyStatements[warning]).to.equal(undefined);
    const mine = sent.body.items.find((s) => s.sanctionId === direct)!;
    expect(mine.permalink).to.equal(`${tdb.url}/statement/${mine.uuid}`);
    expect(mine.platform).to.equal('operator');
  });

  it('a refused statement is kept with the database’s words for an admin, and sent again once mended', async () => {
    const player = await createTestPlayer(api.pool);
    tdb.extraRule = (s): Record<string, string[]> =>
      s.decision_account === 'DECISION_ACCOUNT_SUSPENDED'
        ? { category: ['The selected category is invalid.'] }
        : {};
    const id = await byModerator(player.serviceId, {
      type: 'temporary_ban',
      reason: 'x',
      durationSeconds: 3600,
    });
    await settled(id, 'refused');
    const list = await call<{ items: StatementView[]; refused: number; pending: number }>(
      api.url,
      'GET',
      '/v1/admin/transparency/statements',
      { spec: '/v1/admin/transparency/statements', headers: admin.headers },
    );
    expect(list.status).to.equal(200);
    const refused = list.body.items.find((s) => s.sanctionId === id)!;
    expect(refused.state).to.equal('refused');
    expect((refused as StatementView & { playerServiceId: string }).playerServiceId).to.equal(
      player.serviceId,
    );
    expect(refused.refusal).to.deep.equal({ category: ['The selected category is invalid.'] });
    expect(list.body.refused).to.be.greaterThan(0);
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(metrics).to.match(/player_trust_transparency_statements\{state="refused"\} [1-9]/);
    // Not retried on its own.
    const calls = tdb.calls.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(tdb.calls.length).to.equal(calls);

    // Mended (the database takes it now): an admin sends it again, once.
    tdb.extraRule = undefined;
    const notRefused = await call(api.url, 'POST', `/v1/admin/transparency/statements/${refused.id}/retry`, {
      spec: '/v1/admin/transparency/statements/{statementId}/retry',
      headers: mod.headers,
    });
    expect(notRefused.status, 'moderators may not').to.equal(403);
    const retried = await call(api.url, 'POST', `/v1/admin/transparency/statements/${refused.id}/retry`, {
      spec: '/v1/admin/transparency/statements/{statementId}/retry',
      headers: admin.headers,
    });
    expect(retried.status, retried.text).to.equal(202);
    await settled(id, 'sent');
    expect(tdb.stored.filter((s) => s.statement.puid === `sanction-${id}`)).to.have.length(1);
    const again = await call<{ code: string }>(
      api.url,
      'POST',
      `/v1/admin/transparency/statements/${refused.id}/retry`,
      {
        spec: '/v1/admin/transparency/statements/{statementId}/retry',
        headers: admin.headers,
      },
    );
    expect([again.status, again.body.code]).to.deep.equal([409, 'statement_not_refused']);
  });

  it('passing faults (500, 429, slow) are retried; a puid the database holds counts as sent, never twice', async () => {
    const player = await createTestPlayer(api.pool);
    tdb.faults = [{ status: 500 }, { status: 429, retryAfter: 0 }, { delayMs: 300 }];
    const id = await byModerator(player.serviceId, {
      type: 'temporary_ban',
      reason: 'x',
      durationSeconds: 3600,
    });
    await settled(id);
    expect((await statementOf(id))!.attempts).to.be.at.least(3);
    expect(tdb.stored.filter((s) => s.statement.puid === `sanction-${id}`)).to.have.length(1);

    // A restore from an older backup (or a second worker) makes it pending again: the database
    // answers with its puid, which counts as sent; it still holds one statement.
    await api.pool.query(
      `UPDATE transparency_statements SET state = 'pending', sent_at = NULL WHERE sanction_id = $1`,
      [id],
    );
    const next = await byModerator(player.serviceId, { type: 'permanent_ban', reason: 'y' });
    await settled(next);
    await settled(id);
    expect(tdb.stored.filter((s) => s.statement.puid === `sanction-${id}`)).to.have.length(1);
    expect(tdb.stored.filter((s) => s.statement.puid === `sanction-${next}`)).to.have.length(1);
  });

  it('a quiet crash: statements a dead worker left claimed are sent once its claim ends, with nothing new placed', async () => {
    // As after a SIGKILL mid-call: the statements are claimed, and their job runs again (stalled)
    // while the claim still holds. Before, that run completed the job and nothing sent them until
    // another restriction of the platform was placed.
    await workers[1]!.stop();
    const player = await createTestPlayer(api.pool);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        await byModerator(player.serviceId, { type: 'chat_restriction', reason: 'x', durationSeconds: 600 }),
      );
    await api.pool.query(
      `UPDATE transparency_statements SET claimed_until = now() + interval '3 seconds', attempts = attempts + 1
        WHERE sanction_id = ANY($1)`,
      [ids],
    );
    const before = tdb.calls.length;
    workers[1] = await startTestWorker(api.config, 'webhooks');
    for (const id of ids) await settled(id);
    const puids = new Set(ids.map((id) => `sanction-${id}`));
    expect(tdb.stored.filter((s) => puids.has(s.statement.puid as string))).to.have.length(ids.length);
    expect(tdb.calls.length).to.be.greaterThan(before);
  });

  it('every message about a decision states what happened (issue 49): own initiative, a notice and its category, anti-cheat', async () => {
    // The player's statements of reasons, as their copy of their data holds them.
    const reasonsOf = async (serviceId: string) => {
      const res = await call<{ statementsOfReasons: { id: string; facts: string; redress: string }[] }>(
        api.url,
        'GET',
        `/v1/admin/players/${serviceId}/export?copy=player`,
        { spec: '/v1/admin/players/{serviceId}/export', headers: admin.headers },
      );
      expect(res.status, res.text).to.equal(200);
      return res.body.statementsOfReasons;
    };
    const statementOfReasons = async (serviceId: string, id: string) =>
      (await reasonsOf(serviceId)).find((i) => i.id === id)!;

    // A moderator's own sanction: no case, no report; nothing was "upheld".
    const p1 = await createTestPlayer(api.pool);
    const own = await byModerator(p1.serviceId, {
      type: 'temporary_ban',
      reason: 'x',
      durationSeconds: 3600,
    });
    const ownStatement = await bodyOf(own);
    expect(ownStatement.decision_facts).to.match(/^A moderator decided it on their own initiative/);
    expect(ownStatement.decision_facts).to.not.match(/reviewed reports|upheld/);
    expect(ownStatement.source_type).to.equal('SOURCE_VOLUNTARY');
    const ownReasons = await statementOfReasons(p1.serviceId, own);
    expect(ownReasons.facts).to.match(/^A moderator decided it on their own initiative/);
    expect(ownReasons.redress).to.include('out-of-court dispute settlement body (DSA Art. 21)');

    // A notice in the category the notifier chose, upheld with a restriction: the notice is the source,
    // its category the statement's, and nobody says "players" or "the game".
    const p2 = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p2.serviceId, clientId: studioA.game.clientId });
    const notice = await call<{ noticeId: string }>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      json: {
        gameId: studioA.game.id,
        player: p2.serviceId,
        category: 'STATEMENT_CATEGORY_CYBER_VIOLENCE',
        explanation: 'They stalk and threaten another player in every match.',
        name: 'A. Parent',
        email: `parent-${p2.serviceId}@example.org`,
        goodFaith: true,
      },
    });
    expect(notice.status, notice.text).to.equal(201);
    const noticeOffense = (
      await api.pool.query<{ offense_id: string }>('SELECT offense_id FROM notices WHERE id = $1', [
        notice.body.noticeId,
      ])
    ).rows[0]!.offense_id;
    const noticeCase = await caseOf(noticeOffense);
    await uphold(noticeCase, {
      sanction: { type: 'chat_restriction', reason: 'threats', durationSeconds: 86_400 },
    });
    const [placed] = await sanctionsOfCase(noticeCase);
    const noticed = await bodyOf(placed!.id);
    expect(noticed.source_type).to.equal('SOURCE_ARTICLE_16');
    expect(noticed.category).to.equal('STATEMENT_CATEGORY_CYBER_VIOLENCE');
    expect(noticed.decision_facts).to.include('A member of the public notified it (DSA Art. 16)');
    expect(noticed.decision_facts).to.not.include('players');
    const noticeReasons = await statementOfReasons(p2.serviceId, placed!.id);
    expect(noticeReasons.facts).to.include('A member of the public notified it');
    // The notice's held points, taken on the uphold: a report from a member of the public, not "the game".
    const offenseReasons = await statementOfReasons(p2.serviceId, noticeOffense);
    expect(offenseReasons.facts).to.include('from a member of the public, in a notice (DSA Art. 16)');

    // An anti-cheat detection upheld by a moderator: the player reads that anti-cheat detected it.
    const p3 = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p3.serviceId, clientId: studioA.game.clientId });
    const detected = await report(studioA, p3.serviceId, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
      source: 'anticheat_system',
    });
    const cheatCase = await caseOf(detected);
    await uphold(cheatCase, { sanction: { type: 'permanent_ban', reason: 'aimbot' } });
    const [ban] = await sanctionsOfCase(cheatCase);
    const banReasons = await statementOfReasons(p3.serviceId, ban!.id);
    expect(banReasons.facts).to.include("The game's anti-cheat system detected it.");
    expect((await bodyOf(ban!.id)).decision_facts).to.include("The game's anti-cheat system detected it.");
  });

  it('who decided is stored with the decision (issue 49): a moderator’s “Strike ladder:” reason is theirs, and an erasure changes no decision', async () => {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studioA.game.clientId });
    const cheat = () =>
      report(studioA, p.serviceId, 'anticheat', { isCheatDetected: true, severity: 'high' });

    // A moderator upholds with a reason of their own that happens to begin as the ladder's does: the
    // regulator reads a moderator's decision, not the ladder's automatic one (read from the reason before).
    const first = await caseOf(await cheat());
    await uphold(first, {
      sanction: { type: 'chat_restriction', reason: 'Strike ladder: my own words', durationSeconds: 3600 },
    });
    const [mine] = await sanctionsOfCase(first);
    const mineBody = await bodyOf(mine!.id);
    expect(mineBody.automated_decision).to.equal('AUTOMATED_DECISION_NOT_AUTOMATED');
    expect(mineBody.decision_facts).to.match(/^A moderator reviewed reports of cheating/);
    expect(mineBody.decision_facts).to.not.include('strike ladder');

    // The second upheld case reaches the ladder's rung (2 strikes): its restriction is the ladder's.
    const second = await caseOf(await cheat());
    await uphold(second);
    const ladder = await eventually('the ladder’s restriction', async () => {
      const { rows } = await api.pool.query<{ id: string }>(
        `SELECT s.id FROM sanctions s JOIN players pl ON pl.id = s.player_id
          WHERE pl.service_id = $1 AND s.case_id = $2`,
        [p.serviceId, second],
      );
      return rows[0]?.id;
    });
    expect((await bodyOf(ladder)).automated_decision).to.equal('AUTOMATED_DECISION_FULLY');

    // The transparency report of the period, before and after the player is erased: the erasure
    // replaces the sanctions' reasons, never what was decided, so no row moves.
    const day = new Date().toISOString().slice(0, 10);
    const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const restrictions = async () => {
      const res = await call<{
        rows: { section: string; field: string; breakdown: string; value: number }[];
      }>(api.url, 'GET', `/v1/admin/transparency-report?from=${day}T00:00:00Z&to=${next}T00:00:00Z`, {
        spec: '/v1/admin/transparency-report',
        headers: admin.headers,
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.rows.filter((r) => r.section === 'restrictions');
    };
    const before = await restrictions();
    const asked = await call<{ id: string }>(api.url, 'POST', `/v1/admin/players/${p.serviceId}/erasure`, {
      spec: '/v1/admin/players/{serviceId}/erasure',
      headers: admin.headers,
    });
    expect(asked.status, asked.text).to.equal(202);
    await eventually('the erasure done', async () => {
      const r = await call<{ state: string }>(api.url, 'GET', `/v1/admin/erasures/${asked.body.id}`, {
        spec: '/v1/admin/erasures/{erasureId}',
        headers: admin.headers,
      });
      return r.body.state === 'done';
    });
    const { rows: reasons } = await api.pool.query<{ reason: string }>(
      'SELECT reason FROM sanctions WHERE id = ANY($1)',
      [[mine!.id, ladder]],
    );
    expect(
      reasons.map((r) => r.reason),
      'the erasure replaced the reasons',
    ).to.not.include('Strike ladder: my own words');
    expect(await restrictions()).to.deep.equal(before);
    // A record is never changed, by anyone.
    const changed = await api.pool
      .query("UPDATE decision_records SET record = '{}'::jsonb WHERE subject_id = $1", [ladder])
      .then(
        () => null,
        (e: Error) => e.message,
      );
    expect(changed).to.include('a decision record is never changed');
  });

  it('migration 059 gave the sanctions placed before it the record their placement now stores', async () => {
    // Every sanction this suite placed (own, notices, anti-cheat, the ladder's, erased ones), as stored.
    const { rows } = await api.pool.query<{ id: string }>(
      "SELECT subject_id AS id FROM decision_records WHERE kind = 'sanction'",
    );
    expect(rows.length).to.be.greaterThan(5);
    const ids = rows.map((r) => r.id);
    const stored = await sanctionDecisions(api.pool, ids);
    // The migration's backfill, run on the same sanctions with their records gone, then undone.
    const migration = fs.readFileSync('common/data/migrations/059_decision_records.sql', 'utf8');
    const backfill = /INSERT INTO decision_records[\s\S]*?DO NOTHING;/.exec(migration)![0];
    const client = await api.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("DELETE FROM decision_records WHERE kind = 'sanction' AND subject_id = ANY($1)", [
        ids,
      ]);
      await client.query(backfill);
      const backfilled = await sanctionDecisions(client, ids);
      for (const id of ids) expect(backfilled.get(id), id).to.deep.equal(stored.get(id));
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('a moderator may choose the category instead of the kind’s; a bad one, or one on a warning, is refused', async () => {
    const player = await createTestPlayer(api.pool);
    const res = await call<{ id: string; dsaCategory: string | null; code?: string }>(
      api.url,
      'POST',
      `/v1/admin/players/${player.serviceId}/sanctions`,
      {
        spec: '/v1/admin/players/{serviceId}/sanctions',
        headers: mod.headers,
        json: {
          type: 'temporary_ban',
          reason: 'selling accounts',
          durationSeconds: 3600,
          dsaCategory: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
        },
      },
    );
    expect(res.status, res.text).to.equal(201);
    expect(res.body.dsaCategory).to.equal('STATEMENT_CATEGORY_SCAMS_AND_FRAUD');
    await settled(res.body.id);
    const held = tdb.stored.find((s) => s.statement.puid === `sanction-${res.body.id}`)!;
    expect(held.statement.category).to.equal('STATEMENT_CATEGORY_SCAMS_AND_FRAUD');
    expect(validateStatement(held.statement)).to.deep.equal({});
    const refused = (json: object) =>
      call<{ code: string; errors: { field: string }[] }>(
        api.url,
        'POST',
        `/v1/admin/players/${player.serviceId}/sanctions`,
        {
          spec: '/v1/admin/players/{serviceId}/sanctions',
          headers: mod.headers,
          json,
        },
      );
    const bad = await refused({
      type: 'chat_restriction',
      reason: 'x',
      durationSeconds: 60,
      dsaCategory: 'CHEATING',
    });
    expect([bad.status, bad.body.code]).to.deep.equal([400, 'validation_failed']);
    const onWarning = await refused({
      type: 'warning',
      reason: 'x',
      dsaCategory: 'STATEMENT_CATEGORY_VIOLENCE',
    });
    expect(onWarning.status).to.equal(400);
    expect(onWarning.body.errors.map((e) => e.field)).to.deep.equal(['dsaCategory']);
  });

  it('a backlog goes in calls of at most 100 statements, each once', async () => {
    // No worker runs meanwhile: the restrictions placed wait as a backlog.
    await workers[1]!.stop();
    const player = await createTestPlayer(api.pool);
    const before = tdb.calls.length;
    const ids: string[] = [];
    for (let i = 0; i < 130; i++)
      ids.push(
        await byModerator(player.serviceId, { type: 'chat_restriction', reason: 'x', durationSeconds: 600 }),
      );
    // One job at a time (concurrent jobs would split the backlog between their claims): the first
    // call takes 100, the next the rest.
    workers[1] = await startTestWorker({ ...api.config, workerConcurrency: 1 }, 'webhooks');
    await eventually(
      'all sent',
      async () => {
        const { rows } = await api.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM transparency_statements WHERE sanction_id = ANY($1) AND state = 'sent'`,
          [ids],
        );
        return rows[0]!.n === ids.length;
      },
      30_000,
    );
    const calls = tdb.calls.slice(before).filter((c) => c.platform === 'operator' && c.status === 201);
    expect(Math.max(...calls.map((c) => c.count)), 'a full call of 100').to.equal(100);
    expect(
      calls.reduce((n, c) => n + c.count, 0),
      'each sent once',
    ).to.equal(ids.length);
    const puids = new Set(ids.map((id) => `sanction-${id}`));
    expect(tdb.stored.filter((s) => puids.has(s.statement.puid as string))).to.have.length(ids.length);
  });

  it('an account in dry-run writes the statements as JSON lines instead of sending them', async () => {
    const player = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: studioB.game.clientId });
    const id = await byStudio(studioB, player.serviceId, {
      type: 'matchmaking_restriction',
      reason: 'x',
      durationSeconds: 600,
    });
    await settled(id);
    const lines = fs
      .readFileSync(dryRunFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { platform: string; statement: Record<string, unknown> });
    const line = lines.find((l) => l.statement.puid === `sanction-${id}`)!;
    expect(line.platform).to.equal(studioB.studioId);
    expect(validateStatement(line.statement)).to.deep.equal({});
    expect(tdb.stored.some((s) => s.statement.puid === `sanction-${id}`)).to.equal(false);
  });

  it('admins read the dry run’s statements, platforms by name, and the restrictions owed nowhere (no account when placed)', async () => {
    // A dry-run statement of studio B, readable where the admin works (not only in a file on the server).
    const player = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: studioB.game.clientId });
    const id = await byStudio(studioB, player.serviceId, {
      type: 'chat_restriction',
      reason: 'x',
      durationSeconds: 600,
    });
    await settled(id);
    const { rows: names } = await api.pool.query<{ id: string; name: string }>(
      'SELECT id::text, name FROM studios WHERE id = ANY($1::uuid[])',
      [[studioB.studioId]],
    );
    const dry = await call<{
      items: { puid: string; dryRun: boolean; platformName: string; statement: Record<string, unknown> }[];
    }>(api.url, 'GET', '/v1/admin/transparency/statements?dryRun=true', {
      spec: '/v1/admin/transparency/statements',
      headers: admin.headers,
    });
    expect(dry.status, dry.text).to.equal(200);
    const mine = dry.body.items.find((i) => i.puid === `sanction-${id}`)!;
    expect(mine).to.include({ dryRun: true, platformName: names[0]!.name });
    expect(mine.statement).to.include({ puid: `sanction-${id}` });
    expect(dry.body.items.every((i) => i.dryRun)).to.equal(true);
    const mixed = await call<{ code: string }>(
      api.url,
      'GET',
      '/v1/admin/transparency/statements?dryRun=true&state=pending',
      { spec: '/v1/admin/transparency/statements', headers: admin.headers },
    );
    expect([mixed.status, mixed.body.code]).to.deep.equal([400, 'validation_failed']);

    // A studio with no account restricts a player: owed nowhere, and counted as such, by name.
    const studioC = await createTenant(api.pool, 'NoAccount');
    const other = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: other.serviceId, clientId: studioC.game.clientId });
    const before = await call<{ owedNowhere: { platform: string; restrictions: number }[] }>(
      api.url,
      'GET',
      '/v1/admin/transparency/accounts',
      { spec: '/v1/admin/transparency/accounts', headers: admin.headers },
    );
    expect(before.body.owedNowhere.find((o) => o.platform === studioC.studioId)).to.equal(undefined);
    for (let i = 0; i < 2; i++)
      await byStudio(studioC, other.serviceId, {
        type: 'chat_restriction',
        reason: 'x',
        durationSeconds: 60,
      });
    await byStudio(studioC, other.serviceId, { type: 'warning', reason: 'restricts nothing' });
    const after = await call<{
      items: { platform: string; platformName: string }[];
      owedNowhere: { platform: string; platformName: string; restrictions: number; connected: boolean }[];
    }>(api.url, 'GET', '/v1/admin/transparency/accounts', {
      spec: '/v1/admin/transparency/accounts',
      headers: admin.headers,
    });
    const c = after.body.owedNowhere.find((o) => o.platform === studioC.studioId)!;
    expect(c).to.include({ restrictions: 2, connected: false });
    expect(c.platformName).to.match(/^NoAccount /);
    expect(after.body.items.find((a) => a.platform === 'operator')!.platformName).to.equal(
      'The operator (global decisions)',
    );
  });

  it('accounts: admins only, the token never shown, bad input refused', async () => {
    const list = await call<{ items: { platform: string; tokenSet: boolean; mode: string }[] }>(
      api.url,
      'GET',
      '/v1/admin/transparency/accounts',
      { spec: '/v1/admin/transparency/accounts', headers: admin.headers },
    );
    expect(list.status).to.equal(200);
    expect(list.body.items.find((a) => a.platform === 'operator')).to.include({
      tokenSet: true,
      mode: 'submit',
    });
    expect(list.text).to.not.match(/"token"/);
    const put = (platform: string, json: object, headers = admin.headers) =>
      call<{ code: string }>(api.url, 'PUT', `/v1/admin/transparency/accounts/${platform}`, {
        spec: '/v1/admin/transparency/accounts/{platform}',
        headers,
        json,
      });
    expect((await put('operator', { mode: 'submit', baseUrl: tdb.url })).status).to.equal(400);
    expect((await put('operator', { mode: 'sometimes' })).status).to.equal(400);
    expect((await put('00000000-0000-4000-8000-000000000000', { mode: 'dry-run' })).status).to.equal(404);
    expect((await put('nobody', { mode: 'dry-run' })).status).to.equal(404);
    expect((await put('operator', { mode: 'dry-run' }, mod.headers)).status).to.equal(403);
    const gone = await call(
      api.url,
      'DELETE',
      '/v1/admin/transparency/accounts/00000000-0000-4000-8000-000000000000',
      {
        spec: '/v1/admin/transparency/accounts/{platform}',
        headers: admin.headers,
      },
    );
    expect(gone.status).to.equal(404);
  });
});
