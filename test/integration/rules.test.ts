import { expect } from 'chai';
import { caseFacts, conditionsSql } from '../../common/data/repos/rules.js';
import { ruleMatches, type RuleConditions } from '../../common/domain/rules.js';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { weighRules } from '../../common/usecases/rules.js';
import type { RunningWorker } from '../../worker/run.js';
import {
  caseOfOffense,
  createTenant,
  createTestModerator,
  createTestPlayer,
  fileReport,
  startTestApi,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { playerBearer } from '../helpers/oauth.js';
import { eventually } from '../helpers/http-server.js';
import { testMatch, type TestMatchPlayer } from '../helpers/matches.js';
import { ownDatabase } from '../helpers/services.js';
import { startTestWorker } from '../helpers/workers.js';

interface Rule {
  id: string;
  version: number;
  mode: string;
  stopped: { at: string; reason: string } | null;
  insights: {
    matchesLastDay: number;
    actedLastWeek: number;
    decidedUpheld: number;
    decidedDismissed: number;
  };
}

/**
 * Issue 38: rules that act on their own. A background rule records each match and what it would have
 * done, and changes nothing; a live rule acts once a player within its cooldown, audited as the
 * rule's, and stops at its cap; admins write rules, versioned.
 */
describe('rules', function () {
  this.timeout(120_000);
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let admin: TestModerator;
  let mod: TestModerator;

  const raid = {
    name: 'Raid on a lobby <b>',
    conditions: { types: ['toxicity'], minDistinctReporters: 2 },
    actions: { escalate: true, tag: 'raid', priority: 500 },
  };
  const player = async () => {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
    return p.serviceId;
  };
  /** Two toxicity reports from two reporters: the case they open, once both are filed. */
  const raided = async (serviceId: string) => {
    const ids = [];
    for (const reporter of ['r-1', 'r-2'])
      ids.push(
        await fileReport(api.url, studio, serviceId, 'toxicity', {
          isToxic: true,
          severity: 'medium',
          reporterId: `${reporter}-${serviceId}`,
          messages: ['gg ez'],
        }),
      );
    const caseId = await caseOfOffense(api.pool, ids[1]!);
    await eventually('both filed', async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT distinct_reporters AS n FROM review_cases WHERE id = $1',
        [caseId],
      );
      return rows[0]!.n === 2;
    });
    return caseId;
  };
  /**
   * Makes `alt` a suspect of ban evasion (docs/linked-accounts.md): a new account signs in with the
   * same console and home network as `alt`, is banned, and `alt` signs in again. Returns the banned one.
   */
  let households = 0;
  const suspect = async (alt: string) => {
    const banned = await player();
    // A household of its own (an IP address counts by its /24: each pair gets one).
    households += 1;
    const signals = [
      { kind: 'hardware_id', value: `console-${alt}` },
      { kind: 'ip_address', value: `10.${households}.0.7` },
    ];
    const signIn = (serviceId: string) =>
      call<{ evasionSuspected: boolean }>(api.url, 'POST', `/v1/player/${serviceId}/signals`, {
        spec: '/v1/player/{serviceId}/signals',
        headers: studio.headers,
        json: { signals },
      });
    expect((await signIn(banned)).status).to.equal(200);
    const ban = await call(api.url, 'POST', `/v1/admin/players/${banned}/sanctions`, {
      spec: '/v1/admin/players/{serviceId}/sanctions',
      headers: mod.headers,
      json: { type: 'temporary_ban', scope: 'global', durationSeconds: 72 * 3600, reason: 'Aimbot.' },
    });
    expect(ban.status, ban.text).to.equal(201);
    const seen = await signIn(alt);
    expect(seen.body.evasionSuspected, seen.text).to.equal(true);
    return banned;
  };
  /** The player's tags, in order. */
  const tagsOf = async (serviceId: string) =>
    (
      await api.pool.query<{ tag: string }>(
        `SELECT t.tag FROM tags t JOIN players p ON p.id = t.subject_id
          WHERE t.subject_kind = 'player' AND p.service_id = $1 ORDER BY t.tag`,
        [serviceId],
      )
    ).rows.map((r) => r.tag);
  const caseState = async (caseId: string) =>
    (
      await api.pool.query<{ escalated: boolean; priority: number; tags: string[] }>(
        `SELECT c.escalated_at IS NOT NULL AS escalated, c.priority::float8 AS priority,
                ARRAY(SELECT t.tag FROM tags t WHERE t.subject_kind = 'player' AND t.subject_id = c.player_id) AS tags
           FROM review_cases c WHERE c.id = $1`,
        [caseId],
      )
    ).rows[0]!;
  /** The evasion case a suspicion opened for the player (its offense filed by the review worker). */
  const evasionCaseOf = (serviceId: string) =>
    eventually('the evasion case filed', async () => {
      const { rows } = await api.pool.query<{ case_id: string }>(
        `SELECT co.case_id FROM offenses o JOIN players p ON p.id = o.player_id
           JOIN case_offenses co ON co.offense_id = o.id
          WHERE p.service_id = $1 AND o.context->>'source' = 'evasion_check'`,
        [serviceId],
      );
      return rows[0]?.case_id;
    });
  const matches = async (ruleId: string) =>
    (
      await api.pool.query<{ mode: string; case_id: string; rule_version: number; actions: object }>(
        'SELECT mode, case_id, rule_version, actions FROM rule_matches WHERE rule_id = $1 ORDER BY id',
        [ruleId],
      )
    ).rows;
  const save = (rule: object, id?: string) =>
    call<Rule>(api.url, id ? 'PUT' : 'POST', id ? `/v1/admin/rules/${id}` : '/v1/admin/rules', {
      spec: id ? '/v1/admin/rules/{ruleId}' : '/v1/admin/rules',
      headers: admin.headers,
      json: rule,
    });

  before(async () => {
    db = await ownDatabase('rules');
    // Scheduled rules weigh every 10 s here (the least RULES_SCHEDULE_INTERVAL_MS allows).
    api = await startTestApi({ DATABASE_URL: db.url, RULES_SCHEDULE_INTERVAL_MS: '10000' });
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Rules');
    [admin, mod] = [await createTestModerator(api, 'admin'), await createTestModerator(api)];
  });
  after(async () => {
    await review?.stop();
    await api?.close();
    await db?.drop();
  });

  it('admins write rules; a rule needs a condition and an action, and a queue in use; moderators read', async () => {
    const denied = await call(api.url, 'POST', '/v1/admin/rules', {
      spec: '/v1/admin/rules',
      headers: mod.headers,
      json: { ...raid, mode: 'draft' },
    });
    expect(denied.status).to.equal(403);
    for (const bad of [
      { ...raid, mode: 'draft', conditions: {} },
      { ...raid, mode: 'draft', actions: {} },
      { ...raid, mode: 'sometimes' },
      { ...raid, mode: 'live', actions: { queue: 'no-such-queue' } },
      { ...raid, mode: 'draft', conditions: { minSeverity: 'extreme' } },
    ]) {
      const res = await save(bad);
      expect(res.status, JSON.stringify(bad)).to.equal(400);
    }
    const { rows } = await api.pool.query('SELECT 1 FROM rules');
    expect(rows).to.deep.equal([]);
    const read = await call<{ items: Rule[] }>(api.url, 'GET', '/v1/admin/rules', {
      spec: '/v1/admin/rules',
      headers: mod.headers,
    });
    expect(read.status).to.equal(200);
  });

  it('a background rule records each match and what it would do, and changes nothing; live it acts, once within its cooldown, audited as the rule’s', async () => {
    const made = await save({ ...raid, mode: 'background' });
    expect(made.status, made.text).to.equal(201);
    expect(made.body).to.include({ version: 1, mode: 'background' });
    const quiet = await player();
    const first = await raided(quiet);
    await eventually('the background match', async () => (await matches(made.body.id)).length === 1);
    const state = await caseState(first);
    expect(state.escalated).to.equal(false);
    expect(state.tags).to.deep.equal([]);
    expect(state.priority).to.be.lessThan(500);
    expect((await matches(made.body.id))[0]).to.deep.include({
      mode: 'background',
      case_id: first,
      rule_version: 1,
      actions: { escalate: true, tag: 'raid', priority: 500 },
    });
    const { rows: none } = await api.pool.query(
      `SELECT 1 FROM moderation_audit WHERE action = 'rule_action'`,
    );
    expect(none).to.deep.equal([]);

    const live = await save({ ...raid, mode: 'live' }, made.body.id);
    expect(live.status, live.text).to.equal(200);
    expect(live.body).to.include({ version: 2, mode: 'live' });
    const loud = await player();
    const second = await raided(loud);
    await eventually('the live action', async () => (await caseState(second)).escalated);
    const acted = await caseState(second);
    expect(acted.tags).to.deep.equal(['raid']);
    expect(acted.priority).to.be.at.least(500);
    const { rows: audit } = await api.pool.query<{ moderator_id: string; details: { ruleVersion: number } }>(
      `SELECT moderator_id, details FROM moderation_audit WHERE action = 'rule_action' AND case_id = $1`,
      [second],
    );
    expect(audit).to.have.length(1);
    expect(audit[0]!.moderator_id).to.equal(admin.id);
    expect(audit[0]!.details.ruleVersion).to.equal(2);
    // Within its cooldown (a day) more reports on the player change nothing more.
    await fileReport(api.url, studio, loud, 'toxicity', {
      isToxic: true,
      severity: 'high',
      reporterId: `r-3-${loud}`,
      messages: ['again'],
    });
    await eventually('the third report filed', async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT distinct_reporters AS n FROM review_cases WHERE id = $1',
        [second],
      );
      return rows[0]!.n === 3;
    });
    expect((await matches(made.body.id)).filter((m) => m.case_id === second)).to.have.length(1);
    const got = await call<Rule>(api.url, 'GET', `/v1/admin/rules/${made.body.id}`, {
      spec: '/v1/admin/rules/{ruleId}',
      headers: mod.headers,
    });
    expect(got.body.insights).to.include({ matchesLastDay: 2, actedLastWeek: 1 });
    const page = await call<{ items: { mode: string; playerId: string }[] }>(
      api.url,
      'GET',
      `/v1/admin/rules/${made.body.id}/matches`,
      { spec: '/v1/admin/rules/{ruleId}/matches', headers: mod.headers },
    );
    expect(page.body.items.map((m) => [m.mode, m.playerId])).to.deep.equal([
      ['live', loud],
      ['background', quiet],
    ]);
    // Draft again: it weighs nothing.
    await save({ ...raid, mode: 'draft' }, made.body.id);
  });

  it('a live rule stops at its cap: it acts that many times in its window and no more', async () => {
    const made = await save({
      name: 'Capped',
      mode: 'live',
      conditions: { types: ['toxicity'], minDistinctReporters: 2 },
      actions: { escalate: true },
      cooldownSeconds: 0,
      capCount: 2,
      capWindowSeconds: 3600,
    });
    expect(made.status, made.text).to.equal(201);
    const cases = [];
    for (let i = 0; i < 3; i++) cases.push(await raided(await player()));
    await eventually('two acted', async () => (await matches(made.body.id)).length === 2);
    const rule = await eventually('stopped', async () => {
      const r = await call<Rule>(api.url, 'GET', `/v1/admin/rules/${made.body.id}`, {
        spec: '/v1/admin/rules/{ruleId}',
        headers: mod.headers,
      });
      return r.body.stopped ? r.body : undefined;
    });
    expect(rule.stopped!.reason).to.match(/acted 2 times/);
    // Operators hear of it: the gauge behind the PlayerTrustRuleStopped alert.
    const scrape = await (await fetch(`${api.url}/metrics`)).text();
    expect(scrape).to.match(/^player_trust_rules_stopped 1$/m);
    const escalated = [];
    for (const c of cases) escalated.push((await caseState(c)).escalated);
    expect(escalated).to.deep.equal([true, true, false]);
    // Saved again, it runs again.
    const again = await save(
      {
        ...made.body,
        name: 'Capped',
        mode: 'draft',
        conditions: { types: ['toxicity'] },
        actions: { escalate: true },
      },
      made.body.id,
    );
    expect(again.status, again.text).to.equal(400);
    const saved = await save(
      {
        name: 'Capped',
        mode: 'background',
        conditions: { types: ['toxicity'] },
        actions: { escalate: true },
        cooldownSeconds: 0,
        capCount: 2,
        capWindowSeconds: 3600,
      },
      made.body.id,
    );
    expect(saved.body.stopped).to.equal(null);
    expect(saved.body.version).to.equal(2);
    expect(await (await fetch(`${api.url}/metrics`)).text()).to.match(/^player_trust_rules_stopped 0$/m);
  });

  it('a backtest says what a rule would have matched against what moderators decided, and changes nothing', async () => {
    // The cases so far, all toxicity with two reporters or more: two decided upheld, one dismissed.
    const { rows: open } = await api.pool.query<{ id: string }>(
      `SELECT id FROM review_cases WHERE status = 'open' AND type = 'toxicity' ORDER BY opened_at LIMIT 3`,
    );
    await api.pool.query(
      `UPDATE review_cases SET status = 'resolved', resolved_at = now(),
              outcome = CASE WHEN id = $3 THEN 'dismissed' ELSE 'upheld' END
        WHERE id = ANY($1::uuid[]) OR id = $2 OR id = $3`,
      [[open[0]!.id], open[1]!.id, open[2]!.id],
    );
    // And an upheld cheating case the rule cannot see.
    const cheater = await player();
    const cheat = await fileReport(api.url, studio, cheater, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
    });
    const cheatCase = await caseOfOffense(api.pool, cheat);
    await api.pool.query(
      `UPDATE review_cases SET status = 'resolved', resolved_at = now(), outcome = 'upheld' WHERE id = $1`,
      [cheatCase],
    );
    const { rows: before } = await api.pool.query('SELECT count(*)::int AS n FROM rule_matches');
    const res = await call<{
      cases: number;
      matched: number;
      agree: number;
      wouldHaveActedWhereDismissed: number;
      missed: number;
      pending: number;
      agreement: number | null;
      sample: { verdict: string; caseId: string }[];
    }>(api.url, 'POST', '/v1/admin/rule-backtests', {
      spec: '/v1/admin/rule-backtests',
      headers: admin.headers,
      json: { conditions: { types: ['toxicity'], minDistinctReporters: 2 }, days: 7 },
    });
    expect(res.status, res.text).to.equal(200);
    const { rows: all } = await api.pool.query<{ n: number; toxic: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE type = 'toxicity' AND distinct_reporters >= 2)::int AS toxic
         FROM review_cases`,
    );
    expect(res.body).to.include({
      cases: all[0]!.n,
      matched: all[0]!.toxic,
      agree: 2,
      wouldHaveActedWhereDismissed: 1,
      missed: 1,
      pending: all[0]!.toxic - 3,
    });
    expect(res.body.agreement).to.be.closeTo(2 / 3, 1e-9);
    expect(res.body.sample.find((m) => m.caseId === open[2]!.id)!.verdict).to.equal(
      'would_have_acted_where_dismissed',
    );
    expect(res.body.sample.some((m) => m.caseId === cheatCase)).to.equal(false);
    const { rows: after } = await api.pool.query('SELECT count(*)::int AS n FROM rule_matches');
    expect(after).to.deep.equal(before);
    const bad = await call(api.url, 'POST', '/v1/admin/rule-backtests', {
      spec: '/v1/admin/rule-backtests',
      headers: admin.headers,
      json: { conditions: {}, days: 365 },
    });
    expect(bad.status).to.equal(400);
    const denied = await call(api.url, 'POST', '/v1/admin/rule-backtests', {
      spec: '/v1/admin/rule-backtests',
      headers: mod.headers,
      json: { conditions: { minReports: 1 } },
    });
    expect(denied.status).to.equal(403);
  });

  it('the backtest reads a rule as the worker does: the SQL and the code agree on every open case, condition by condition', async () => {
    // Cases of every kind of fact: a cheater (high), an AFK player (low, sanctioned), a raided and tagged one.
    const [a, b, c3] = [await player(), await player(), await player()];
    const filed = [
      await fileReport(api.url, studio, a, 'anticheat', {
        isCheatDetected: true,
        severity: 'high',
        confidence: 0.8,
      }),
      await fileReport(api.url, studio, b, 'afk', { isAfk: true, severity: 'low' }),
    ];
    for (const id of filed) await caseOfOffense(api.pool, id);
    // A strike in force for the AFK player (as an upheld case of theirs would add).
    await api.pool.query(
      `INSERT INTO strikes (player_id, case_id, created_at, expires_at)
       SELECT c.player_id, c.id, now(), now() + interval '30 days' FROM review_cases c WHERE c.id = $1`,
      [await caseOfOffense(api.pool, filed[1]!)],
    );
    await call(api.url, 'POST', `/v1/player/${b}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: studio.headers,
      json: { type: 'chat_restriction', reason: 'afk', durationSeconds: 3600 },
    });
    await raided(c3);
    await suspect(c3);
    // Its evasion case too, before the open cases are read.
    await evasionCaseOf(c3);
    // One of the raid's reporters has a record: 3 upheld, 1 dismissed (credibility 4/6).
    await api.pool.query(
      `INSERT INTO reporters (studio_id, reporter_id, upheld, dismissed) VALUES ($1, $2, 3, 1)
       ON CONFLICT (studio_id, reporter_id) DO UPDATE SET upheld = 3, dismissed = 1`,
      [studio.studioId, `r-1-${c3}`],
    );
    await call(api.url, 'POST', `/v1/admin/players/${c3}/tags`, {
      spec: '/v1/admin/players/{serviceId}/tags',
      headers: mod.headers,
      json: { tag: 'raid' },
    });
    const { rows: open } = await api.pool.query<{ id: string }>(
      `SELECT id FROM review_cases WHERE status = 'open'`,
    );
    expect(open.length).to.be.greaterThan(3);
    const facts = await caseFacts(
      api.pool,
      open.map((r) => r.id),
      true,
    );
    const sets: RuleConditions[] = [
      { types: ['toxicity'] },
      { types: ['cheating', 'afk'] },
      { minSeverity: 'high' },
      { sources: ['game'] },
      { sources: ['notice'] },
      { minReports: 3 },
      { minDistinctReporters: 2 },
      { minDistinctGames: 2 },
      { maxTrustScore: 95 },
      { playerTags: ['raid'] },
      { queues: ['default'] },
      { noActiveSanction: true },
      { evasionSuspected: true },
      { evasionSuspected: false },
      { types: ['toxicity'], minDistinctReporters: 3, playerTags: ['raid'] },
      { burst: { reports: 2, withinSeconds: 3600 } },
      { burst: { reports: 3, withinSeconds: 3600 } },
      { burst: { reports: 2, withinSeconds: 1 } },
      { minOpenHours: 1 },
      { minConfidence: 0.5 },
      { minActiveStrikes: 1 },
      { minDistinctStudios: 1 },
      { minDistinctStudios: 2 },
      { minReporterCredibility: 0.5 },
      // At the edges: a value some case has exactly.
      ...facts.flatMap((f) => [
        { maxTrustScore: f.trustScore },
        { minReports: f.reports },
        { minDistinctReporters: f.distinctReporters },
        { minSeverity: f.severity },
        ...(f.confidence > 0 ? [{ minConfidence: f.confidence }] : []),
        ...(f.activeStrikes > 0 ? [{ minActiveStrikes: f.activeStrikes }] : []),
        ...(f.bestCredibility !== null ? [{ minReporterCredibility: f.bestCredibility }] : []),
        // The burst's window exactly as long as the case's first report to its latest (within 200).
        ...(f.reportTimes.length >= 2
          ? [
              {
                burst: {
                  reports: f.reportTimes.length,
                  withinSeconds: Math.max(1, Math.ceil((f.reportTimes[0]! - f.reportTimes.at(-1)!) / 1000)),
                },
              },
            ]
          : []),
      ]),
    ];
    for (const c of sets) {
      const values: unknown[] = [];
      const where = conditionsSql(c, values);
      const { rows } = await api.pool.query<{ id: string }>(
        `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
          WHERE c.status = 'open' AND ${where} ORDER BY c.id`,
        values,
      );
      const byCode = facts
        .filter((f) => ruleMatches(c, f))
        .map((f) => f.caseId)
        .sort();
      expect(
        rows.map((r) => r.id),
        JSON.stringify(c),
      ).to.deep.equal(byCode);
    }
  });

  it('a live rule that sanctions waits for a second admin (acting as background until then); approved, it places the template’s sanction with its statement naming the rule, once; a dismissal of its case revokes it', async () => {
    const other = await createTestModerator(api, 'admin');
    const template = await call<{ id: string }>(api.url, 'POST', '/v1/admin/templates', {
      spec: '/v1/admin/templates',
      headers: admin.headers,
      json: {
        title: 'Raid: a day without chat',
        outcome: 'upheld',
        sanctionType: 'chat_restriction',
        durationSeconds: 86_400,
        playerReason: 'You joined a raid on <i>a lobby</i>.',
      },
    });
    expect(template.status, template.text).to.equal(201);
    const noSanction = await call<{ id: string }>(api.url, 'POST', '/v1/admin/templates', {
      spec: '/v1/admin/templates',
      headers: admin.headers,
      json: { title: 'No action', outcome: 'dismissed', playerReason: 'Nothing found.' },
    });
    const rule = {
      name: 'Raiders lose chat',
      conditions: { types: ['toxicity'], minDistinctReporters: 2, maxTrustScore: 100 },
      cooldownSeconds: 0,
    };
    // The template must exist and place a sanction.
    for (const templateId of [noSanction.body.id, '00000000-0000-4000-8000-000000000000']) {
      const bad = await save({ ...rule, mode: 'live', actions: { sanction: { templateId } } });
      expect(bad.status, bad.text).to.equal(400);
      expect(bad.text).to.include('actions.sanction.templateId');
    }
    const made = await save({
      ...rule,
      mode: 'live',
      actions: { sanction: { templateId: template.body.id } },
    });
    expect(made.status, made.text).to.equal(201);
    const saved = made.body as Rule & { actions: { sanction: object }; approval: { awaiting: boolean } };
    expect(saved.actions.sanction).to.deep.equal({
      templateId: template.body.id,
      type: 'chat_restriction',
      durationSeconds: 86_400,
      reason: 'You joined a raid on <i>a lobby</i>.',
    });
    expect(saved.approval).to.deep.include({ awaiting: true, approvedBy: null });

    // Awaiting approval it records what it would do, and places nothing.
    const before = await player();
    const early = await raided(before);
    await eventually('recorded as background', async () =>
      (await matches(made.body.id)).some((m) => m.case_id === early),
    );
    expect((await matches(made.body.id)).find((m) => m.case_id === early)!.mode).to.equal('background');
    const sanctionsOf = async (caseId: string) =>
      (
        await api.pool.query<{
          id: string;
          rule_id: string | null;
          rule_version: number | null;
          revoked: boolean;
          moderator: string;
        }>(
          `SELECT s.id, s.rule_id, s.rule_version, s.revoked_at IS NOT NULL AS revoked,
                  s.issued_by_moderator AS moderator
             FROM sanctions s WHERE s.case_id = $1`,
          [caseId],
        )
      ).rows;
    expect(await sanctionsOf(early)).to.deep.equal([]);

    const approve = (by: TestModerator) =>
      call<Rule & { approval: { awaiting: boolean; approvedBy: string | null } }>(
        api.url,
        'POST',
        `/v1/admin/rules/${made.body.id}/approve`,
        { spec: '/v1/admin/rules/{ruleId}/approve', headers: by.headers },
      );
    const own = await approve(admin);
    expect(own.status, own.text).to.equal(403);
    expect(own.body).to.include({ code: 'own_rule' });
    const byMod = await approve(mod);
    expect(byMod.status, byMod.text).to.equal(403);
    const approved = await approve(other);
    expect(approved.status, approved.text).to.equal(200);
    expect(approved.body.approval).to.deep.include({ awaiting: false, approvedBy: other.id });
    const twice = await approve(other);
    expect(twice.status, twice.text).to.equal(409);
    expect(twice.body).to.include({ code: 'rule_not_awaiting_approval' });
    const { rows: approvals } = await api.pool.query<{ moderator_id: string; details: { savedBy: string } }>(
      `SELECT moderator_id, details FROM moderation_audit WHERE action = 'approve_rule'`,
    );
    expect(approvals.map((a) => [a.moderator_id, a.details.savedBy])).to.deep.equal([[other.id, admin.id]]);

    // Approved, it places the template's sanction, with the case, the rule and its version.
    const target = createTestPlayer(api.pool);
    const p = await target;
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
    const caseId = await raided(p.serviceId);
    const placed = await eventually('the rule’s sanction', async () => {
      const rows = await sanctionsOf(caseId);
      return rows.length ? rows : undefined;
    });
    expect(placed).to.have.length(1);
    expect(placed[0]).to.deep.include({
      rule_id: made.body.id,
      rule_version: 1,
      revoked: false,
      moderator: admin.id,
    });
    // More reports on the player: it is under a chat restriction already, so no second one.
    await fileReport(api.url, studio, p.serviceId, 'toxicity', {
      isToxic: true,
      severity: 'high',
      reporterId: `r-3-${p.serviceId}`,
      messages: ['again'],
    });
    await eventually('the third report filed', async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT distinct_reporters AS n FROM review_cases WHERE id = $1',
        [caseId],
      );
      return rows[0]!.n === 3;
    });
    expect(await sanctionsOf(caseId)).to.have.length(1);
    // A weighing whose transaction began before the rule's sanction was placed (it waited for the
    // rule's lock) sees that sanction's start after its now(): as if so, the start moved ahead. The
    // rule sanctions the case once all the same (two were placed under load before).
    await api.pool.query(`UPDATE sanctions SET starts_at = now() + interval '1 minute' WHERE id = $1`, [
      placed[0]!.id,
    ]);
    await weighRules(api.pool, [caseId]);
    expect(await sanctionsOf(caseId)).to.have.length(1);
    await api.pool.query(`UPDATE sanctions SET starts_at = created_at WHERE id = $1`, [placed[0]!.id]);

    // The player reads it as automated, naming the rule, and may appeal it.
    const headers = await playerBearer(api.url, studio.game, p);
    const decisions = await call<{
      items: {
        kind: string;
        automated: boolean;
        automatedMeans: string | null;
        ground: string;
        appeal: { open: boolean };
      }[];
    }>(api.url, 'GET', '/v1/player/me/decisions', { spec: '/v1/player/me/decisions', headers });
    const statement = decisions.body.items.find((d) => d.kind === 'sanction')!;
    expect(statement).to.include({ automated: true, ground: 'You joined a raid on <i>a lobby</i>.' });
    expect(statement.automatedMeans).to.include('Raiders lose chat').and.include('version 1');
    const { rows: audit } = await api.pool.query<{
      action: string;
      details: { ruleId?: string; automated?: boolean };
    }>(
      `SELECT action, details FROM moderation_audit WHERE case_id = $1 AND action IN ('place_sanction', 'rule_action')
        ORDER BY id`,
      [caseId],
    );
    expect(audit.map((a) => [a.action, a.details.ruleId, a.details.automated])).to.deep.equal([
      ['place_sanction', made.body.id, true],
      ['rule_action', made.body.id, true],
    ]);

    // The player appeals it, as any decision; a moderator grants it.
    const appealed = await call<{ id: string }>(api.url, 'POST', '/v1/player/me/appeals', {
      spec: '/v1/player/me/appeals',
      headers,
      json: { sanctionId: placed[0]!.id, reason: 'incorrect', statement: 'I was <b>defending</b> the lobby' },
    });
    expect(appealed.status, appealed.text).to.equal(201);
    const appealAct = (by: TestModerator, action: 'claim' | 'decide', json?: object) =>
      call<{ code?: string; status?: string }>(
        api.url,
        'POST',
        `/v1/admin/appeals/${appealed.body.id}/${action}`,
        {
          spec: `/v1/admin/appeals/{appealId}/${action}` as never,
          headers: by.headers,
          ...(json ? { json } : {}),
        },
      );
    expect((await appealAct(mod, 'claim')).status).to.equal(200);
    const granted = await appealAct(mod, 'decide', {
      decision: 'granted',
      note: 'Self-defence, on the replay.',
    });
    expect(granted.status, granted.text).to.equal(200);
    expect((await sanctionsOf(caseId))[0]).to.include({ revoked: true });

    // Then a moderator dismisses the case: the rule's sanction, revoked already, is not revoked twice.
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    const dismissed = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'dismissed', note: 'Friends joking.' },
    });
    expect(dismissed.status, dismissed.text).to.equal(200);
    const { rows: revocations } = await api.pool.query(
      `SELECT 1 FROM moderation_audit WHERE action = 'revoke_sanction' AND details->>'sanctionId' = $1`,
      [placed[0]!.id],
    );
    expect(revocations).to.have.length(1);

    // The combination the other way: a second raid's rule sanction, and its case dismissed first.
    const q = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: q.serviceId, clientId: studio.game.clientId });
    const second = await raided(q.serviceId);
    await eventually(
      'the second rule sanction',
      async () => (await sanctionsOf(second)).length === 1 || undefined,
    );
    await call(api.url, 'POST', `/v1/admin/cases/${second}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    const dismissedFirst = await call(api.url, 'POST', `/v1/admin/cases/${second}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'dismissed', note: 'Not toxic.' },
    });
    expect(dismissedFirst.status, dismissedFirst.text).to.equal(200);
    expect((await sanctionsOf(second))[0]).to.include({ revoked: true });
    // Its appeal now has nothing to change.
    const late = await call<{ code: string }>(api.url, 'POST', '/v1/player/me/appeals', {
      spec: '/v1/player/me/appeals',
      headers: await playerBearer(api.url, studio.game, q),
      json: { sanctionId: (await sanctionsOf(second))[0]!.id, reason: 'incorrect', statement: 'x' },
    });
    expect(late.status, late.text).to.equal(409);
    expect(late.body.code).to.equal('not_appealable');

    // Saved again, the new version waits for approval again.
    const again = await save(
      {
        ...rule,
        name: 'Raiders lose chat (v2)',
        mode: 'live',
        actions: { sanction: { templateId: template.body.id } },
      },
      made.body.id,
    );
    expect((again.body as unknown as { approval: { awaiting: boolean } }).approval.awaiting).to.equal(true);
    await save({ ...rule, mode: 'draft', actions: { escalate: true } }, made.body.id);
  });

  it('triggers: a rule weighs a player’s open cases when a sanction is placed on them, and a scheduled rule weighs open cases on its own (here: those open a day, nobody got to)', async () => {
    const watch = await save({
      name: 'Sanctioned: watch their open cases',
      trigger: 'sanction_placed',
      mode: 'live',
      conditions: { minReports: 1 },
      actions: { tag: 'sanction-watch' },
      cooldownSeconds: 0,
    });
    expect(watch.status, watch.text).to.equal(201);
    expect(watch.body).to.include({ trigger: 'sanction_placed' });
    const [withCase, without] = [await player(), await player()];
    const openCase = await raided(withCase);
    // Filing alone does not weigh it (its trigger is a sanction).
    expect(await tagsOf(withCase)).to.deep.equal([]);
    for (const serviceId of [withCase, without]) {
      const placed = await call(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
        spec: '/v1/player/{serviceId}/sanctions',
        headers: studio.headers,
        json: { type: 'chat_restriction', reason: 'Spam', durationSeconds: 3600 },
      });
      expect(placed.status, placed.text).to.equal(201);
    }
    await eventually('the sanctioned player tagged', async () =>
      (await tagsOf(withCase)).includes('sanction-watch'),
    );
    expect((await matches(watch.body.id)).map((m) => m.case_id)).to.deep.equal([openCase]);
    expect(await tagsOf(without)).to.deep.equal([]);
    const off = await save(
      { name: 'off', mode: 'draft', conditions: { minReports: 1 }, actions: { tag: 'sanction-watch' } },
      watch.body.id,
    );
    expect(off.status, off.text).to.equal(200);

    // A scheduled rule: cases open a day or more get escalated, by the worker's own round.
    const [stale, fresh] = [await player(), await player()];
    const [staleCase, freshCase] = [await raided(stale), await raided(fresh)];
    await api.pool.query(`UPDATE review_cases SET opened_at = now() - interval '25 hours' WHERE id = $1`, [
      staleCase,
    ]);
    const sweep = await save({
      name: 'Nobody got to it in a day',
      trigger: 'schedule',
      mode: 'live',
      conditions: { minOpenHours: 24, types: ['toxicity'] },
      actions: { escalate: true },
    });
    expect(sweep.status, sweep.text).to.equal(201);
    await eventually(
      'the scheduled round escalated the day-old case',
      async () => (await caseState(staleCase)).escalated,
      30_000,
    );
    expect((await caseState(freshCase)).escalated).to.equal(false);
    const swept = (await matches(sweep.body.id)).map((m) => m.case_id);
    expect(swept).to.include(staleCase);
    expect(swept).to.not.include(freshCase);
    const stopped = await save(
      { name: 'off', mode: 'draft', conditions: { minOpenHours: 24 }, actions: { escalate: true } },
      sweep.body.id,
    );
    expect(stopped.status, stopped.text).to.equal(200);
  });

  it('a live rule that notifies sends rule.matched to the studios that filed reports in the case, naming the rule and what it did', async () => {
    const hook = await call<{ id: string }>(api.url, 'POST', '/v1/webhooks', {
      spec: '/v1/webhooks',
      headers: studio.headers,
      json: { url: 'https://hooks.example.test/rules', events: ['rule.matched'] },
    });
    expect(hook.status, hook.text).to.equal(201);
    const made = await save({
      name: 'Raid: tell the game <b>',
      mode: 'live',
      conditions: { types: ['toxicity'], minDistinctReporters: 2 },
      actions: { notify: true, tag: 'raid-told' },
    });
    expect(made.status, made.text).to.equal(201);
    const serviceId = await player();
    const caseId = await raided(serviceId);
    const sent = await eventually('rule.matched written for the studio', async () => {
      const { rows } = await api.pool.query<{ payload: { type: string; data: Record<string, unknown> } }>(
        `SELECT payload FROM webhook_deliveries WHERE webhook_id = $1 AND event_type = 'rule.matched'`,
        [hook.body.id],
      );
      return rows.length ? rows : undefined;
    });
    expect(sent).to.have.length(1);
    expect(sent[0]!.payload.data).to.deep.equal({
      caseId,
      playerId: serviceId,
      kind: 'toxicity',
      rule: { id: made.body.id, name: 'Raid: tell the game <b>', version: 1 },
      actions: ['tag'],
    });
    const off = await save(
      { name: 'off', mode: 'draft', conditions: { types: ['toxicity'] }, actions: { notify: true } },
      made.body.id,
    );
    expect(off.status, off.text).to.equal(200);
  });

  it('a live rule collects players into a wave that has not run (after a second admin approves it), each once; a wave that ran takes nobody', async () => {
    const other = await createTestModerator(api, 'admin');
    const [first] = [await player()];
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const wave = await call<{ id: string; size: number; state: string }>(api.url, 'POST', '/v1/admin/waves', {
      spec: '/v1/admin/waves',
      headers: mod.headers,
      json: {
        name: 'Loader ring <b>',
        runAt: later,
        sanction: { type: 'temporary_ban', reason: 'Loader', durationSeconds: 86_400 },
        players: [first],
      },
    });
    expect(wave.status, wave.text).to.equal(201);
    expect(wave.body).to.include({ state: 'scheduled', size: 1 });
    const rule = {
      name: 'Collect the ring',
      conditions: { types: ['toxicity'], minDistinctReporters: 2, playerTags: ['ring'] },
      actions: { wave: { waveId: wave.body.id } },
      cooldownSeconds: 0,
    };
    // Only a moderator's wave that has not run.
    const bad = await save({ ...rule, mode: 'live', actions: { wave: { waveId: crypto.randomUUID() } } });
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.text).to.include('actions.wave.waveId');
    const made = await save({ ...rule, mode: 'live' });
    expect(made.status, made.text).to.equal(201);
    expect((made.body as unknown as { approval: { awaiting: boolean } }).approval.awaiting).to.equal(true);
    const approved = await call(api.url, 'POST', `/v1/admin/rules/${made.body.id}/approve`, {
      spec: '/v1/admin/rules/{ruleId}/approve',
      headers: other.headers,
    });
    expect(approved.status, approved.text).to.equal(200);

    const members = async () =>
      (
        await api.pool.query<{ service_id: string }>(
          `SELECT p.service_id FROM wave_members m JOIN players p ON p.id = m.player_id
            WHERE m.wave_id = $1 ORDER BY p.service_id`,
          [wave.body.id],
        )
      ).rows.map((r) => r.service_id);
    const ringer = await player();
    await call(api.url, 'POST', `/v1/admin/players/${ringer}/tags`, {
      spec: '/v1/admin/players/{serviceId}/tags',
      headers: mod.headers,
      json: { tag: 'ring' },
    });
    const ringCase = await raided(ringer);
    await eventually('the ringer in the wave', async () => (await members()).includes(ringer));
    // Reported again: still once.
    await fileReport(api.url, studio, ringer, 'toxicity', {
      isToxic: true,
      severity: 'high',
      reporterId: `r-9-${ringer}`,
      messages: ['again'],
    });
    await eventually('the third report filed', async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT distinct_reporters AS n FROM review_cases WHERE id = $1',
        [ringCase],
      );
      return rows[0]!.n === 3;
    });
    expect(await members()).to.deep.equal([first, ringer].sort());
    const { rows: sized } = await api.pool.query<{ size: number }>('SELECT size FROM waves WHERE id = $1', [
      wave.body.id,
    ]);
    expect(sized[0]!.size).to.equal(2);
    // Cancelled (as good as run), the wave takes nobody more.
    const cancelled = await call(api.url, 'POST', `/v1/admin/waves/${wave.body.id}/cancel`, {
      spec: '/v1/admin/waves/{waveId}/cancel',
      headers: mod.headers,
      json: { reason: 'moved to next week' },
    });
    expect(cancelled.status, cancelled.text).to.equal(200);
    const late = await player();
    await call(api.url, 'POST', `/v1/admin/players/${late}/tags`, {
      spec: '/v1/admin/players/{serviceId}/tags',
      headers: mod.headers,
      json: { tag: 'ring' },
    });
    const lateCase = await raided(late);
    await eventually('the late case weighed', async () => {
      const { rows } = await api.pool.query('SELECT 1 FROM case_offenses WHERE case_id = $1', [lateCase]);
      return rows.length === 2;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await members()).to.not.include(late);
    expect((await matches(made.body.id)).map((m) => m.case_id)).to.deep.equal([ringCase]);
    const off = await save({ ...rule, mode: 'draft', actions: { escalate: true } }, made.body.id);
    expect(off.status, off.text).to.equal(200);
  });

  it('a live rule that holds points: the raided player’s next reports are held for a moderator (rule_hold) and take nothing; upheld, they apply; a release ends the hold', async () => {
    const made = await save({
      name: 'Raid: hold the points',
      mode: 'live',
      conditions: { types: ['toxicity'], minDistinctReporters: 2, playerTags: ['held-raid'] },
      actions: { holdPoints: { hours: 2 } },
    });
    expect(made.status, made.text).to.equal(201);
    const serviceId = await player();
    await call(api.url, 'POST', `/v1/admin/players/${serviceId}/tags`, {
      spec: '/v1/admin/players/{serviceId}/tags',
      headers: mod.headers,
      json: { tag: 'held-raid' },
    });
    const caseId = await raided(serviceId);
    const held = async () =>
      (
        await api.pool.query<{ until: Date | null }>(
          'SELECT points_held_until AS until FROM players WHERE service_id = $1',
          [serviceId],
        )
      ).rows[0]!.until;
    await eventually(
      'the hold in force',
      async () => ((await held())?.getTime() ?? 0) > Date.now() + 3_500_000,
    );
    const report = (reporter: string) =>
      call<{
        penaltyApplied: number;
        penaltyHeld: number;
        status: string;
        statusReason?: string;
        trustScore: number;
      }>(api.url, 'POST', `/v1/toxicity/submitReport/${serviceId}`, {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: studio.headers,
        json: { report: { isToxic: true, severity: 'high', reporterId: `${reporter}-${serviceId}` } },
      });
    const before = (
      await api.pool.query<{ s: number }>('SELECT trust_score AS s FROM players WHERE service_id = $1', [
        serviceId,
      ])
    ).rows[0]!.s;
    const third = await report('r-h3');
    expect(third.status, third.text).to.equal(201);
    expect(third.body).to.deep.include({
      status: 'held',
      statusReason: 'rule_hold',
      penaltyApplied: 0,
    });
    expect(third.body.penaltyHeld).to.be.greaterThan(0);
    expect(third.body.trustScore).to.equal(before);
    // A moderator upholds the case: the held points apply.
    await eventually('the third report filed', async () => {
      const { rows } = await api.pool.query<{ n: number }>(
        'SELECT distinct_reporters AS n FROM review_cases WHERE id = $1',
        [caseId],
      );
      return rows[0]!.n === 3;
    });
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    const upheld = await call<{ player: { trustScore: number } }>(
      api.url,
      'POST',
      `/v1/admin/cases/${caseId}/resolve`,
      {
        spec: '/v1/admin/cases/{caseId}/resolve',
        headers: mod.headers,
        json: { outcome: 'upheld', note: 'toxic indeed' },
      },
    );
    expect(upheld.status, upheld.text).to.equal(200);
    expect(upheld.body.player.trustScore).to.equal(before - third.body.penaltyHeld);
    // A release rule (here: on a sanction placed) ends the hold; the next report takes points again.
    const release = await save({
      name: 'Sanctioned: release the hold',
      trigger: 'sanction_placed',
      mode: 'live',
      conditions: { minReports: 1 },
      actions: { releaseHold: true },
      cooldownSeconds: 0,
    });
    expect(release.status, release.text).to.equal(201);
    const next = await report('r-h4');
    expect(next.body.status).to.equal('held');
    // Filed into an open case first: the sanction's weighing weighs the player's open cases, and the
    // review worker files a report after its 201 (without this wait the weighing could find none).
    await caseOfOffense(api.pool, (next.body as unknown as { report: { _id: string } }).report._id);
    const warned = await call(api.url, 'POST', `/v1/player/${serviceId}/sanctions`, {
      spec: '/v1/player/{serviceId}/sanctions',
      headers: studio.headers,
      json: { type: 'warning', reason: 'Calm down' },
    });
    expect(warned.status, warned.text).to.equal(201);
    await eventually('the hold released', async () => (await held()) === null);
    const after = await report('r-h5');
    expect(after.body.status).to.equal('applied');
    for (const id of [made.body.id, release.body.id]) {
      const off = await save(
        { name: 'off', mode: 'draft', conditions: { minReports: 1 }, actions: { escalate: true } },
        id,
      );
      expect(off.status, off.text).to.equal(200);
    }
  });

  it('every case explains its priority: its score is its stored priority on 0-100, and its inputs add up to it (the queue’s SQL and the explanation agree)', async () => {
    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM review_cases ORDER BY opened_at');
    expect(rows.length).to.be.at.least(10);
    let lifted = 0;
    for (const r of rows) {
      const got = await call<{
        priority: number;
        priorityScore: number;
        priorityWhy: { input: string; points: number }[];
      }>(api.url, 'GET', `/v1/admin/cases/${r.id}`, {
        spec: '/v1/admin/cases/{caseId}',
        headers: admin.headers,
      });
      expect(got.status, got.text).to.equal(200);
      // The stored priority and its explanation, from one read of the case.
      expect(got.body.priorityScore, r.id).to.equal(
        Math.min(100, Math.round((got.body.priority / 220) * 1000) / 10),
      );
      const sum = got.body.priorityWhy.reduce((n, i) => n + i.points, 0);
      expect(sum, r.id).to.be.closeTo(got.body.priorityScore, 0.05 * got.body.priorityWhy.length + 0.01);
      if (got.body.priorityWhy.some((i) => i.input === 'rule')) lifted++;
    }
    // The live raid rule set a floor of 500 on one case at least: the rule is named as the reason.
    expect(lifted).to.be.at.least(1);
  });
  it('rules act on ban evasion: triggered by a suspicion, a rule weighs the suspect’s open cases (in background first, recording only); the condition evasionSuspected holds for a suspect’s cases alone, whatever the trigger', async () => {
    const evasionWatch = {
      name: 'Suspected evaders: watch their cases',
      trigger: 'evasion_suspected',
      conditions: { evasionSuspected: true },
      actions: { tag: 'evasion-watch', priority: 400 },
      cooldownSeconds: 0,
    };
    const watch = await save({ ...evasionWatch, mode: 'background' });
    expect(watch.status, watch.text).to.equal(201);
    expect(watch.body).to.include({ trigger: 'evasion_suspected' });

    // In background, a suspicion records what the rule would do to the suspect's open cases: the one
    // it had, and the evasion case the suspicion opened (docs/linked-accounts.md "Evasion at the door"),
    // which the weighing job files first, so it never runs ahead of it.
    const first = await player();
    const firstCase = await raided(first);
    await suspect(first);
    const firstEvasion = await evasionCaseOf(first);
    expect(firstEvasion).to.not.equal(firstCase);
    await eventually(
      'the background matches recorded',
      async () => (await matches(watch.body.id)).length >= 2,
    );
    expect((await matches(watch.body.id)).map((m) => [m.mode, m.case_id]).sort()).to.deep.equal(
      [
        ['background', firstCase],
        ['background', firstEvasion],
      ].sort(),
    );
    expect(await tagsOf(first), 'a background rule changes nothing').to.not.include('evasion-watch');

    // Live, it acts on the next suspects' open cases: a suspect with no case of reports has its
    // evasion case, and nothing else, to weigh.
    const live = await save({ ...evasionWatch, mode: 'live' }, watch.body.id);
    expect(live.status, live.text).to.equal(200);
    const [second, noCase] = [await player(), await player()];
    const secondCase = await raided(second);
    await suspect(second);
    await suspect(noCase);
    await eventually(
      'the live rule tagged the suspects',
      async () =>
        (await tagsOf(second)).includes('evasion-watch') && (await tagsOf(noCase)).includes('evasion-watch'),
    );
    expect((await caseState(secondCase)).priority).to.be.at.least(400);
    const noCaseEvasion = await evasionCaseOf(noCase);
    expect((await caseState(noCaseEvasion)).priority).to.be.at.least(400);
    const liveMatches = (await matches(watch.body.id)).filter((m) => m.mode === 'live');
    expect(liveMatches.map((m) => m.case_id).sort()).to.deep.equal(
      [secondCase, await evasionCaseOf(second), noCaseEvasion].sort(),
    );
    await save(
      { name: 'off', mode: 'draft', conditions: { evasionSuspected: true }, actions: { tag: 'x' } },
      watch.body.id,
    );

    // The condition on the filing trigger: reports on a suspect are weighed with it, others not.
    const onFiling = await save({
      name: 'Reports on a suspected evader',
      mode: 'live',
      conditions: { types: ['toxicity'], evasionSuspected: true },
      actions: { tag: 'reported-evader' },
      cooldownSeconds: 0,
    });
    expect(onFiling.status, onFiling.text).to.equal(201);
    const [evader, innocent] = [await player(), await player()];
    await suspect(evader);
    const [evaderCase, innocentCase] = [await raided(evader), await raided(innocent)];
    await eventually('the suspect’s reports tagged them', async () =>
      (await tagsOf(evader)).includes('reported-evader'),
    );
    expect(await tagsOf(innocent)).to.not.include('reported-evader');
    // The backtest reads the condition as the rule does: the suspects' cases, not the innocent's.
    const backtest = await call<{ matched: number; sample: { caseId: string }[] }>(
      api.url,
      'POST',
      '/v1/admin/rule-backtests',
      {
        spec: '/v1/admin/rule-backtests',
        headers: admin.headers,
        json: { conditions: { evasionSuspected: true }, days: 1 },
      },
    );
    expect(backtest.status, backtest.text).to.equal(200);
    const sampled = backtest.body.sample.map((m) => m.caseId);
    expect(sampled).to.include.members([firstCase, secondCase, evaderCase]);
    expect(sampled).to.not.include(innocentCase);
    await save(
      { name: 'off', mode: 'draft', conditions: { evasionSuspected: true }, actions: { tag: 'x' } },
      onFiling.body.id,
    );
  });

  it('rules act on matches: a match left early or a restriction running out weighs the player’s open cases (background first); the SQL and the code read leftEarly and maxRestrictionMatchesLeft alike', async () => {
    const matchesWorker = await startTestWorker(api.config, 'matches');
    try {
      const [leaver, other, restricted] = [await player(), await player(), await player()];
      const play = async (roster: TestMatchPlayer[], endedMinutesAgo = 5) => {
        const m = testMatch('rules', roster, endedMinutesAgo);
        const res = await call(api.url, 'POST', '/v1/matches', {
          spec: '/v1/matches',
          headers: studio.headers,
          json: { matches: [m] },
        });
        expect(res.status, res.text).to.equal(202);
        await eventually('the match recorded', async () => {
          const { rows } = await api.pool.query('SELECT 1 FROM matches WHERE match_id = $1', [m.matchId]);
          return rows.length === 1;
        });
      };
      const leaverRule = {
        name: 'Leaves matches early',
        trigger: 'match_recorded',
        conditions: { leftEarly: { matches: 3, atLeast: 2 } },
        actions: { tag: 'leaver', priority: 300 },
        cooldownSeconds: 0,
      };
      const bad = await save({ ...leaverRule, conditions: { leftEarly: { matches: 101, atLeast: 3 } } });
      expect(bad.status, 'more than 100 matches back').to.equal(400);
      const rule = await save({ ...leaverRule, mode: 'background' });
      expect(rule.status, rule.text).to.equal(201);
      expect(rule.body).to.include({ trigger: 'match_recorded' });

      const leaverCase = await raided(leaver);
      await play([
        { serviceId: leaver, team: 'blue', leftEarly: true },
        { serviceId: other, team: 'red' },
      ]);
      await play([
        { serviceId: leaver, team: 'blue' },
        { serviceId: other, team: 'red' },
      ]);
      // One early leave in the last 3: not yet. The second: the background rule records it.
      expect(await matches(rule.body.id)).to.deep.equal([]);
      await play([
        { serviceId: leaver, team: 'blue', leftEarly: true },
        { serviceId: other, team: 'red' },
      ]);
      await eventually('the background match recorded', async () => (await matches(rule.body.id)).length > 0);
      expect((await matches(rule.body.id)).map((m) => [m.mode, m.case_id])).to.deep.equal([
        ['background', leaverCase],
      ]);
      expect(await tagsOf(leaver), 'a background rule changes nothing').to.not.include('leaver');
      // Live, the next early leave acts; a player who finished (other) is not weighed at all.
      const live = await save({ ...leaverRule, mode: 'live' }, rule.body.id);
      expect(live.status, live.text).to.equal(200);
      const otherCase = await raided(other);
      await play([
        { serviceId: leaver, team: 'blue', leftEarly: true },
        { serviceId: other, team: 'red' },
      ]);
      await eventually('the live rule tagged the leaver', async () =>
        (await tagsOf(leaver)).includes('leaver'),
      );
      expect((await caseState(leaverCase)).priority).to.be.at.least(300);
      expect(await tagsOf(other)).to.not.include('leaver');

      // A restriction counted in matches running out: 3 matches, 2 finished, 1 left.
      const runningOut = await save({
        name: 'Restriction running out',
        mode: 'live',
        trigger: 'match_recorded',
        conditions: { maxRestrictionMatchesLeft: 1 },
        actions: { tag: 'restriction-ending' },
        cooldownSeconds: 0,
      });
      expect(runningOut.status, runningOut.text).to.equal(201);
      const restrictedCase = await raided(restricted);
      const placed = await call(api.url, 'POST', `/v1/player/${restricted}/sanctions`, {
        spec: '/v1/player/{serviceId}/sanctions',
        headers: studio.headers,
        json: { type: 'matchmaking_restriction', reason: 'Left ranked matches.', matches: 3 },
      });
      expect(placed.status, placed.text).to.equal(201);
      // Matches that end after it began count it down.
      await play(
        [
          { serviceId: restricted, team: 'blue' },
          { serviceId: other, team: 'red' },
        ],
        0,
      );
      expect(await tagsOf(restricted), '2 left').to.not.include('restriction-ending');
      await play(
        [
          { serviceId: restricted, team: 'blue' },
          { serviceId: other, team: 'red' },
        ],
        0,
      );
      await eventually('the rule saw the restriction running out', async () =>
        (await tagsOf(restricted)).includes('restriction-ending'),
      );
      expect((await matches(runningOut.body.id)).map((m) => m.case_id)).to.deep.equal([restrictedCase]);

      // The backtest's SQL reads the new conditions as the worker's code does, on every open case.
      const { rows: open } = await api.pool.query<{ id: string }>(
        `SELECT id FROM review_cases WHERE status = 'open'`,
      );
      const facts = await caseFacts(
        api.pool,
        open.map((r) => r.id),
        false,
        true,
      );
      const sets: RuleConditions[] = [
        { leftEarly: { matches: 3, atLeast: 2 } },
        { leftEarly: { matches: 1, atLeast: 1 } },
        { leftEarly: { matches: 100, atLeast: 3 } },
        { maxRestrictionMatchesLeft: 0 },
        { maxRestrictionMatchesLeft: 1 },
        { maxRestrictionMatchesLeft: 2 },
      ];
      const matched = new Map<string, number>();
      for (const conditions of sets) {
        const values: unknown[] = [open.map((r) => r.id)];
        const where = conditionsSql(conditions, values);
        const { rows } = await api.pool.query<{ id: string }>(
          `SELECT c.id FROM review_cases c JOIN players p ON p.id = c.player_id
            WHERE c.id = ANY($1::uuid[]) AND ${where}`,
          values,
        );
        const bySql = rows.map((r) => r.id).sort();
        const byCode = facts
          .filter((f) => ruleMatches(conditions, f))
          .map((f) => f.caseId)
          .sort();
        expect(bySql, JSON.stringify(conditions)).to.deep.equal(byCode);
        matched.set(JSON.stringify(conditions), byCode.length);
      }
      expect(matched.get(JSON.stringify({ leftEarly: { matches: 3, atLeast: 2 } }))).to.be.at.least(1);
      expect(matched.get(JSON.stringify({ maxRestrictionMatchesLeft: 1 }))).to.be.at.least(1);
      expect(otherCase).to.be.a('string');
      for (const id of [rule.body.id, runningOut.body.id])
        await save({ name: 'off', mode: 'draft', conditions: { minReports: 1 }, actions: { tag: 'x' } }, id);
    } finally {
      await matchesWorker.stop();
    }
  });
});
