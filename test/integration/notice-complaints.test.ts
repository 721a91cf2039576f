import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
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
import { noticeCase } from '../helpers/notices.js';

interface Receipt {
  noticeId: string;
  secret: string;
  warning: string | null;
  code?: string;
}
interface Standing {
  status: string;
  words: string;
  decidedAt: string | null;
  complaint: { status: string; words: string } | null;
  contest: { possible: boolean; until: string | null; why: string | null };
  warning: string | null;
  code?: string;
  detail?: string;
}
interface Measure {
  id: string;
  kind: string;
  marks: number;
  endsAt: string | null;
  inForce: boolean;
  sender: { kind: string; reporterId?: string };
}

/**
 * Issue 37, second half: a notifier contests a "no action" (DSA Art. 20) and a reversed dismissal
 * reopens the case; manifestly unfounded notices, complaints and in-game reports lead to a warning
 * and then a suspension at the documented counts (Art. 23), audited, and lifted by an admin.
 */
describe('notices: complaints (DSA Art. 20) and misuse (Art. 23)', function () {
  this.timeout(120_000);
  let now = Date.now();
  let api: TestApi;
  let review: RunningWorker;
  let studio: Tenant;
  let admin: TestModerator;
  let mod: TestModerator;
  let other: TestModerator;

  before(async () => {
    now = Date.now(); // when the suite starts, not when its file was loaded
    api = await startTestApi(
      {
        NOTICE_QUOTA_PER_ADDRESS: '1000',
        NOTICE_QUOTA_PER_EMAIL: '1000',
        MISUSE_WARN_AFTER: '2',
        MISUSE_SUSPEND_AFTER: '3',
        MISUSE_SUSPENSION_DAYS: '7',
      },
      { clock: () => new Date(now) },
    );
    review = await startTestWorker(api.config, 'review');
    studio = await createTenant(api.pool, 'Complaints');
    [admin, mod, other] = [
      await createTestModerator(api, 'admin'),
      await createTestModerator(api),
      await createTestModerator(api),
    ];
  });
  after(async () => {
    await review?.stop();
    await api?.close();
  });

  async function newPlayer() {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
    return p;
  }
  const notice = (player: string, email: string, extra: object = {}) =>
    call<Receipt>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      json: {
        gameId: studio.game.id,
        player,
        category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
        explanation: 'They posted slurs in the lobby chat, repeatedly.',
        name: 'A. Notifier',
        email,
        goodFaith: true,
        ...extra,
      },
    });
  const standing = (id: string, secret: string) =>
    call<Standing>(api.url, 'GET', `/v1/notices/${id}`, {
      spec: '/v1/notices/{noticeId}',
      headers: { 'Notice-Secret': secret },
    });
  const complain = (
    id: string,
    secret: string,
    statement: unknown = 'The slurs are in the chat log.',
    evidence?: unknown[],
  ) =>
    call<Standing>(api.url, 'POST', `/v1/notices/${id}/complaint`, {
      spec: '/v1/notices/{noticeId}/complaint',
      headers: { 'Notice-Secret': secret },
      json: { statement, ...(evidence ? { evidence } : {}) },
    });
  const caseOf = (noticeId: string) => noticeCase(api.pool, noticeId);
  const offenseOf = async (noticeId: string) =>
    (await api.pool.query<{ offense_id: string }>('SELECT offense_id FROM notices WHERE id = $1', [noticeId]))
      .rows[0]!.offense_id;
  async function resolve(caseId: string, who: TestModerator, outcome: 'upheld' | 'dismissed') {
    const claim = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: who.headers,
    });
    expect(claim.status, claim.text).to.equal(200);
    const res = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: who.headers,
      json: { outcome, note: `${outcome} by ${who.username}` },
    });
    expect(res.status, res.text).to.equal(200);
  }
  async function decide(appealId: string, who: TestModerator, body: object) {
    const claim = await call(api.url, 'POST', `/v1/admin/appeals/${appealId}/claim`, {
      spec: '/v1/admin/appeals/{appealId}/claim',
      headers: who.headers,
    });
    if (claim.status !== 200) return claim;
    return call<{ status: string; decision: { reopenedCaseId?: string } }>(
      api.url,
      'POST',
      `/v1/admin/appeals/${appealId}/decide`,
      { spec: '/v1/admin/appeals/{appealId}/decide', headers: who.headers, json: body },
    );
  }
  const complaintOf = async (noticeId: string) =>
    (await api.pool.query<{ id: string }>('SELECT id FROM appeals WHERE notice_id = $1', [noticeId])).rows[0]!
      .id;
  const mark = (offenseId: string, who: TestModerator = mod) =>
    call<{ marks: number; measure: Measure | null; code?: string }>(
      api.url,
      'POST',
      `/v1/admin/offenses/${offenseId}/unfounded`,
      {
        spec: '/v1/admin/offenses/{offenseId}/unfounded',
        headers: who.headers,
        json: { note: 'Nothing of the kind happened: manifestly unfounded.' },
      },
    );
  /** A value of the transparency report of the last minutes for a platform. */
  const reported = async (platform: string, section: string, field: string, breakdown: string) => {
    const from = new Date(now - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const res = await call<{ rows: { section: string; field: string; breakdown: string; value: unknown }[] }>(
      api.url,
      'GET',
      `/v1/admin/transparency-report?from=${from}&to=${to}&platform=${platform}`,
      { spec: '/v1/admin/transparency-report', headers: admin.headers },
    );
    expect(res.status, res.text).to.equal(200);
    return res.body.rows.find((r) => r.section === section && r.field === field && r.breakdown === breakdown)
      ?.value;
  };
  const auditActions = async (since: Date) =>
    (
      await api.pool.query<{ action: string; moderator_id: string }>(
        `SELECT action, moderator_id FROM moderation_audit WHERE created_at >= $1 ORDER BY id`,
        [since],
      )
    ).rows;

  it("a notifier contests a dismissal: another moderator grants it, the case reopens, and a later uphold takes the notice's points once", async () => {
    const p = await newPlayer();
    const sent = await notice(p.serviceId, `c1-${p.serviceId}@example.org`);
    expect(sent.status, sent.text).to.equal(201);
    const caseId = await caseOf(sent.body.noticeId);

    // Not decided yet: nothing to contest.
    const early = await complain(sent.body.noticeId, sent.body.secret);
    expect([early.status, early.body.code]).to.deep.equal([409, 'not_contestable']);
    expect((await standing(sent.body.noticeId, sent.body.secret)).body.contest).to.include({
      possible: false,
    });

    const before = await trustScore(api.pool, p.serviceId);
    await resolve(caseId, mod, 'dismissed');
    const dismissed = await standing(sent.body.noticeId, sent.body.secret);
    expect(dismissed.body.status).to.equal('no_action');
    expect(dismissed.body.contest.possible).to.equal(true);
    // Six months (183 days) from the decision.
    expect(Date.parse(dismissed.body.contest.until!) - Date.parse(dismissed.body.decidedAt!)).to.equal(
      183 * 86_400_000,
    );

    // A wrong secret is the same 404 as for reading; a bad statement is a 400 naming it; neither files.
    expect((await complain(sent.body.noticeId, 'wrong')).status).to.equal(404);
    const bad = await complain(sent.body.noticeId, sent.body.secret, '');
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('statement');

    const filed = await complain(
      sent.body.noticeId,
      sent.body.secret,
      '<script>alert(1)</script> it happened',
    );
    expect(filed.status, filed.text).to.equal(201);
    expect(filed.body.complaint).to.include({ status: 'open' });
    expect(filed.body.contest.possible).to.equal(false);
    const twice = await complain(sent.body.noticeId, sent.body.secret);
    expect([twice.status, twice.body.code]).to.deep.equal([409, 'complaint_exists']);

    // In the appeals queue, as a notifier's complaint about the notice; never in the player's own appeals.
    const appealId = await complaintOf(sent.body.noticeId);
    const queue = await call<{
      items: { id: string; subject: { kind: string }; filedBy: { kind: string } }[];
    }>(api.url, 'GET', '/v1/admin/appeals?status=open&limit=100', {
      spec: '/v1/admin/appeals',
      headers: mod.headers,
    });
    const listed = queue.body.items.find((a) => a.id === appealId);
    expect(listed).to.deep.include({ subject: { kind: 'notice', id: sent.body.noticeId } });
    expect(listed!.filedBy).to.deep.equal({ kind: 'notifier' });
    const { rows: own } = await api.pool.query(
      `SELECT 1 FROM appeals a JOIN players p ON p.id = a.player_id WHERE p.service_id = $1 AND a.notice_id IS NULL`,
      [p.serviceId],
    );
    expect(own).to.have.length(0);

    // The moderator who dismissed it may not decide it.
    const self = await decide(appealId, mod, { decision: 'granted', note: 'I was wrong' });
    expect([self.status, (self.body as { code?: string }).code]).to.deep.equal([403, 'own_decision']);
    // Another moderator grants it: the same case is open again, with the notice's points held.
    const granted = await decide(appealId, other, { decision: 'granted', note: 'the chat log shows it' });
    expect(granted.status, granted.text).to.equal(200);
    expect((granted.body as { decision: { reopenedCaseId?: string } }).decision.reopenedCaseId).to.equal(
      caseId,
    );
    const { rows: c } = await api.pool.query<{
      status: string;
      outcome: string | null;
      reopen_count: number;
    }>('SELECT status, outcome, reopen_count FROM review_cases WHERE id = $1', [caseId]);
    expect(c[0]).to.deep.equal({ status: 'open', outcome: null, reopen_count: 1 });
    // The reopened case holds the notice's points once (it read twice as many before).
    const { rows: figures } = await api.pool.query<{ held_points: number; penalty_held: number }>(
      `SELECT c.held_points, o.penalty_held FROM review_cases c, offenses o WHERE c.id = $1 AND o.id = $2`,
      [caseId, await offenseOf(sent.body.noticeId)],
    );
    expect(figures[0]!.penalty_held).to.be.greaterThan(0);
    expect(figures[0]!.held_points).to.equal(figures[0]!.penalty_held);
    const reopened = await standing(sent.body.noticeId, sent.body.secret);
    expect(reopened.body.status).to.equal('received');
    expect(reopened.body.complaint).to.include({ status: 'granted' });
    expect(await trustScore(api.pool, p.serviceId), 'nothing moves until it is decided').to.equal(before);

    // Decided again, upheld: the held points are taken now, once.
    const { rows: held } = await api.pool.query<{ penalty_held: number; status: string }>(
      'SELECT penalty_held, status FROM offenses WHERE id = $1',
      [await offenseOf(sent.body.noticeId)],
    );
    expect(held[0]!.status).to.equal('held');
    await resolve(caseId, other, 'upheld');
    expect(await trustScore(api.pool, p.serviceId)).to.equal(Math.max(0, before - held[0]!.penalty_held));
    const actionTaken = await standing(sent.body.noticeId, sent.body.secret);
    expect(actionTaken.body.status).to.equal('action_taken');
    expect(actionTaken.body.contest.possible).to.equal(false);
    expect(actionTaken.text).to.not.include(other.username);
    // Decided again: the complaint's words no longer say the notice is being reviewed.
    expect(actionTaken.body.complaint).to.include({ status: 'granted' });
    expect(actionTaken.body.complaint!.words).to.not.include('being reviewed');
    expect(actionTaken.body.complaint!.words).to.include('where it stands now is that new decision');

    // The audit log names the complaint's decision in words.
    const audit = await call<{ items: { summary: string; details: { appealId?: string } }[] }>(
      api.url,
      'GET',
      `/v1/admin/audit?caseId=${caseId}`,
      { spec: '/v1/admin/audit', headers: admin.headers },
    );
    expect(audit.body.items.map((i) => i.summary)).to.include(
      "Granted a notifier's complaint (the case reopened)",
    );
  });

  it("a complaint carries evidence: added to the notice's, marked as the complaint's, enriched by the evidence worker; bad evidence changes nothing", async () => {
    const enrichment = await startTestWorker(api.config, 'enrichment');
    try {
      const p = await newPlayer();
      const sent = await notice(p.serviceId, `ev-${p.serviceId}@example.org`);
      expect(sent.status, sent.text).to.equal(201);
      const caseId = await caseOf(sent.body.noticeId);
      await resolve(caseId, mod, 'dismissed');

      // Refused whole: a link that is not http(s), and more items than a complaint takes.
      const bad = await complain(sent.body.noticeId, sent.body.secret, undefined, [
        { type: 'screenshot', url: 'ftp://files.example/shot.png' },
      ]);
      expect(bad.status).to.equal(400);
      const many = await complain(
        sent.body.noticeId,
        sent.body.secret,
        undefined,
        Array.from({ length: 6 }, (_, i) => ({ type: 'text', content: `line ${i}` })),
      );
      expect(many.status).to.equal(400);
      expect((await standing(sent.body.noticeId, sent.body.secret)).body.complaint).to.equal(null);

      const ok = await complain(sent.body.noticeId, sent.body.secret, 'The chat log shows it.', [
        { type: 'text', content: '<script>alert(1)</script> you are worthless' },
        { type: 'screenshot', url: 'http://127.0.0.1:9/chat.png' },
      ]);
      expect(ok.status, ok.text).to.equal(201);
      const offenseId = await offenseOf(sent.body.noticeId);
      const evidence = await eventually('the complaint evidence enriched', async () => {
        const { rows } = await api.pool.query<{ evidence: Record<string, unknown>[] }>(
          'SELECT evidence FROM offenses WHERE id = $1',
          [offenseId],
        );
        const items = rows[0]!.evidence.filter((e) => e.addedBy === 'complaint');
        return items.length === 2 && items.every((e) => e.enrichment) ? items : undefined;
      });
      expect(evidence.map((e) => [e.type, e.content ?? e.url])).to.deep.equal([
        ['text', '<script>alert(1)</script> you are worthless'],
        ['screenshot', 'http://127.0.0.1:9/chat.png'],
      ]);
      // The moderator deciding the complaint sees it in the case, as the notice's.
      const detail = await call<{ offenses: { _id: string; evidence: { addedBy?: string }[] }[] }>(
        api.url,
        'GET',
        `/v1/admin/cases/${caseId}`,
        { spec: '/v1/admin/cases/{caseId}', headers: mod.headers },
      );
      expect(detail.status, detail.text).to.equal(200);
      const own = detail.body.offenses.find((o) => o._id === offenseId)!;
      expect(own.evidence.filter((e) => e.addedBy === 'complaint')).to.have.length(2);
    } finally {
      await enrichment.stop();
    }
  });

  it("a granted complaint files the notice into the player's open case of that kind when there is one; a denied one changes nothing", async () => {
    const p = await newPlayer();
    const first = await notice(p.serviceId, `c2a-${p.serviceId}@example.org`);
    const firstCase = await caseOf(first.body.noticeId);
    await resolve(firstCase, mod, 'dismissed');
    // A new notice of the same kind opens a new case before the complaint is decided.
    const second = await notice(p.serviceId, `c2b-${p.serviceId}@example.org`);
    const openCase = await caseOf(second.body.noticeId);
    expect(openCase).to.not.equal(firstCase);
    expect((await complain(first.body.noticeId, first.body.secret)).status).to.equal(201);
    const granted = await decide(await complaintOf(first.body.noticeId), other, {
      decision: 'granted',
      note: 'look again',
    });
    expect(granted.status, granted.text).to.equal(200);
    expect((granted.body as { decision: { reopenedCaseId?: string } }).decision.reopenedCaseId).to.equal(
      openCase,
    );
    const { rows } = await api.pool.query<{ case_id: string; reports_count: number; status: string }>(
      `SELECT co.case_id, c.reports_count, c.status FROM case_offenses co JOIN review_cases c ON c.id = co.case_id
        WHERE co.offense_id = $1`,
      [await offenseOf(first.body.noticeId)],
    );
    expect(rows[0]).to.deep.equal({ case_id: openCase, reports_count: 2, status: 'open' });
    const { rows: old } = await api.pool.query<{ status: string }>(
      'SELECT status FROM review_cases WHERE id = $1',
      [firstCase],
    );
    expect(old[0]!.status, 'the dismissed case stays as it was decided').to.equal('resolved');

    // A denied complaint: the dismissal stands.
    const q = await newPlayer();
    const third = await notice(q.serviceId, `c2c-${q.serviceId}@example.org`);
    const thirdCase = await caseOf(third.body.noticeId);
    await resolve(thirdCase, mod, 'dismissed');
    await complain(third.body.noticeId, third.body.secret);
    const denied = await decide(await complaintOf(third.body.noticeId), other, {
      decision: 'denied',
      note: 'the log shows nothing',
    });
    expect(denied.status, denied.text).to.equal(200);
    const after = await standing(third.body.noticeId, third.body.secret);
    expect(after.body.status).to.equal('no_action');
    expect(after.body.complaint).to.include({ status: 'denied' });
    // keep is not for complaints; unfounded is not for players' appeals.
    const r = await newPlayer();
    const fourth = await notice(r.serviceId, `c2d-${r.serviceId}@example.org`);
    await resolve(await caseOf(fourth.body.noticeId), mod, 'dismissed');
    await complain(fourth.body.noticeId, fourth.body.secret);
    const withKeep = await decide(await complaintOf(fourth.body.noticeId), other, {
      decision: 'granted',
      note: 'x',
      keep: [{ sanctionId: '00000000-0000-4000-8000-000000000000', reason: 'x' }],
    });
    expect(withKeep.status).to.equal(400);
  });

  it('combinations: a granted complaint withdraws the notice’s unfounded mark; a reversal on the player’s appeal cannot be contested', async () => {
    // Marked unfounded, then contested and granted: the mark goes with the dismissal it stood on.
    const p = await newPlayer();
    const sent = await notice(p.serviceId, `c4a-${p.serviceId}@example.org`);
    const caseId = await caseOf(sent.body.noticeId);
    await resolve(caseId, mod, 'dismissed');
    const offenseId = await offenseOf(sent.body.noticeId);
    expect((await mark(offenseId)).status).to.equal(201);
    expect((await complain(sent.body.noticeId, sent.body.secret)).status).to.equal(201);
    const granted = await decide(await complaintOf(sent.body.noticeId), other, {
      decision: 'granted',
      note: 'the notice was right',
    });
    expect(granted.status, granted.text).to.equal(200);
    const { rows } = await api.pool.query('SELECT 1 FROM misuse_marks WHERE offense_id = $1', [offenseId]);
    expect(rows, 'the mark is withdrawn').to.have.length(0);
    const audit = await call<{ items: { summary: string }[] }>(
      api.url,
      'GET',
      `/v1/admin/audit?caseId=${caseId}`,
      {
        spec: '/v1/admin/audit',
        headers: admin.headers,
      },
    );
    expect(audit.body.items.map((i) => i.summary)).to.include(
      "Granted a notifier's complaint (the case reopened; its unfounded mark withdrawn)",
    );

    // Upheld, then reversed on the player's appeal: the notifier reads the reversal, and cannot contest it.
    const q = await newPlayer();
    const upheld = await notice(q.serviceId, `c4b-${q.serviceId}@example.org`);
    await resolve(await caseOf(upheld.body.noticeId), mod, 'upheld');
    const appeal = await call<{ id: string }>(api.url, 'POST', `/v1/player/${q.serviceId}/appeals`, {
      spec: '/v1/player/{serviceId}/appeals',
      headers: studio.headers,
      json: { offenseId: await offenseOf(upheld.body.noticeId), reason: 'incorrect', statement: 'Not me.' },
    });
    expect(appeal.status, appeal.text).to.equal(201);
    expect(
      (await decide(appeal.body.id, other, { decision: 'granted', note: 'shared account' })).status,
    ).to.equal(200);
    const reversed = await standing(upheld.body.noticeId, upheld.body.secret);
    expect(reversed.body.status).to.equal('no_action');
    expect(reversed.body.contest).to.include({ possible: false });
    expect(reversed.body.contest.why).to.match(/player's appeal/);
    const refused = await complain(upheld.body.noticeId, upheld.body.secret);
    expect([refused.status, refused.body.code]).to.deep.equal([409, 'not_contestable']);
  });

  it('an admin who dismissed a notice may neither claim nor decide the complaint about it; another moderator does', async () => {
    const p = await newPlayer();
    const sent = await notice(p.serviceId, `c-admin-${p.serviceId}@example.org`);
    await resolve(await caseOf(sent.body.noticeId), admin, 'dismissed');
    expect((await complain(sent.body.noticeId, sent.body.secret)).status).to.equal(201);
    const appealId = await complaintOf(sent.body.noticeId);
    for (const decision of ['granted', 'denied']) {
      const own = await decide(appealId, admin, { decision, note: 'my own dismissal' });
      expect([own.status, (own.body as { code?: string }).code]).to.deep.equal([403, 'own_decision']);
    }
    const { rows } = await api.pool.query<{ status: string }>('SELECT status FROM appeals WHERE id = $1', [
      appealId,
    ]);
    expect(rows[0]!.status).to.equal('open');
    const denied = await decide(appealId, mod, { decision: 'denied', note: 'the dismissal stands' });
    expect(denied.status, denied.text).to.equal(200);
    const read = await standing(sent.body.noticeId, sent.body.secret);
    expect(read.body.complaint).to.include({ status: 'denied' });
  });

  it('complaints close six months after the decision, and not for action taken', async () => {
    const p = await newPlayer();
    const upheld = await notice(p.serviceId, `c3a-${p.serviceId}@example.org`);
    await resolve(await caseOf(upheld.body.noticeId), mod, 'upheld');
    const refused = await complain(upheld.body.noticeId, upheld.body.secret);
    expect([refused.status, refused.body.code]).to.deep.equal([409, 'not_contestable']);
    expect(refused.body.detail).to.match(/Action was taken/);

    const q = await newPlayer();
    const late = await notice(q.serviceId, `c3b-${q.serviceId}@example.org`);
    await resolve(await caseOf(late.body.noticeId), mod, 'dismissed');
    const saved = now;
    try {
      now += 184 * 86_400_000;
      const closed = await complain(late.body.noticeId, late.body.secret);
      expect([closed.status, closed.body.code]).to.deep.equal([409, 'not_contestable']);
      expect(closed.body.detail).to.match(/within 183 days/);
    } finally {
      now = saved;
    }
  });

  it('Art. 23: marks of manifestly unfounded notices warn the notifier, then suspend it; audited; an admin lifts it', async () => {
    const since = (await api.pool.query<{ t: Date }>('SELECT now() AS t')).rows[0]!.t;
    const email = `misuse-${Date.now()}@example.org`;
    const offenses: string[] = [];
    const receipts: Receipt[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await newPlayer();
      const sent = await notice(p.serviceId, email);
      expect(sent.status, sent.text).to.equal(201);
      receipts.push(sent.body);
      offenses.push(await offenseOf(sent.body.noticeId));
      if (i < 3) await resolve(await caseOf(sent.body.noticeId), mod, 'dismissed');
    }
    // Only a dismissed notice can be marked.
    const open = await mark(offenses[3]!);
    expect([open.status, open.body.code]).to.deep.equal([409, 'not_dismissed']);

    const m1 = await mark(offenses[0]!);
    expect(m1.status, m1.text).to.equal(201);
    expect(m1.body).to.include({ marks: 1, measure: null });
    expect((await mark(offenses[0]!)).body.code, 'once a subject').to.equal('already_marked');

    const m2 = await mark(offenses[1]!);
    expect(m2.body.measure).to.include({ kind: 'warning', marks: 2 });
    // The warned notifier reads the warning with its next receipt and on its page; still heard.
    const fifth = await notice((await newPlayer()).serviceId, email);
    expect(fifth.status).to.equal(201);
    expect(fifth.body.warning).to.match(/Art\. 23/);
    expect((await standing(receipts[0]!.noticeId, receipts[0]!.secret)).body.warning).to.match(/Art\. 23/);

    const m3 = await mark(offenses[2]!);
    expect(m3.body.measure).to.include({ kind: 'suspension', marks: 3, inForce: true });
    expect(Date.parse(m3.body.measure!.endsAt!) - now).to.be.within(
      7 * 86_400_000 - 60_000,
      7 * 86_400_000 + 60_000,
    );
    // Suspended: its notices and complaints are refused, saying until when; another e-mail is heard.
    const refused = await notice((await newPlayer()).serviceId, email);
    expect([refused.status, refused.body.code]).to.deep.equal([403, 'notifier_suspended']);
    expect(refused.text).to.include(m3.body.measure!.endsAt!);
    const contest = await complain(receipts[2]!.noticeId, receipts[2]!.secret);
    expect([contest.status, contest.body.code]).to.deep.equal([403, 'notifier_suspended']);
    expect(
      (await notice((await newPlayer()).serviceId, `someone-else-${Date.now()}@example.org`)).status,
    ).to.equal(201);

    const actions = (await auditActions(since)).map((a) => a.action);
    expect(actions.filter((a) => a === 'mark_unfounded')).to.have.length(3);
    expect(actions).to.include.members(['warn_sender', 'suspend_sender']);
    // Counted in the operator's transparency report (its notice channel).
    expect(
      await reported('operator', 'misuse', 'suspensions_of_notices_article_23', 'notifiers suspended'),
    ).to.be.at.least(1);
    // And in the report of the studio whose game the notices were about (it read 0 there: issue 51).
    expect(
      await reported(studio.studioId, 'misuse', 'suspensions_of_notices_article_23', 'notifiers suspended'),
    ).to.be.at.least(1);

    const listed = await call<{ items: Measure[] }>(
      api.url,
      'GET',
      '/v1/admin/misuse/measures?inForce=true',
      {
        spec: '/v1/admin/misuse/measures',
        headers: mod.headers,
      },
    );
    expect(listed.body.items.map((m) => m.id)).to.include(m3.body.measure!.id);
    expect(listed.text, 'never the e-mail').to.not.include(email);

    // Lifting is for admins, with a note; then the notifier is heard again.
    const lift = (who: TestModerator) =>
      call<Measure & { code?: string }>(
        api.url,
        'POST',
        `/v1/admin/misuse/measures/${m3.body.measure!.id}/lift`,
        {
          spec: '/v1/admin/misuse/measures/{measureId}/lift',
          headers: who.headers,
          json: { note: 'contacted them; they understood' },
        },
      );
    expect((await lift(mod)).status).to.equal(403);
    const lifted = await lift(admin);
    expect(lifted.status, lifted.text).to.equal(200);
    expect(lifted.body.inForce).to.equal(false);
    expect((await lift(admin)).body.code).to.equal('suspension_not_in_force');
    expect((await notice((await newPlayer()).serviceId, email)).status).to.equal(201);
  });

  it("Art. 23 for a studio's in-game reporter: marks warn it, then its reports weigh nothing until the period ends", async () => {
    const reporterId = `rep-${Date.now()}`;
    const report = async (serviceId: string) =>
      call<{ report: { _id: string; status: string; statusReason?: string } }>(
        api.url,
        'POST',
        `/v1/toxicity/submitReport/${serviceId}`,
        {
          spec: '/v1/toxicity/submitReport/{serviceId}',
          headers: studio.headers,
          json: {
            report: { isToxic: true, severity: 'high', source: 'player', reporterId },
          },
        },
      );
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await newPlayer();
      const res = await report(p.serviceId);
      expect(res.status, res.text).to.equal(201);
      ids.push(res.body.report._id);
      const caseId = await eventually('the report filed into a case', async () => {
        const { rows } = await api.pool.query<{ case_id: string }>(
          'SELECT case_id FROM case_offenses WHERE offense_id = $1',
          [res.body.report._id],
        );
        return rows[0]?.case_id;
      });
      await resolve(caseId, mod, 'dismissed');
    }
    await mark(ids[0]!);
    const warned = await mark(ids[1]!);
    expect(warned.body.measure).to.include({ kind: 'warning' });
    expect(warned.body.measure!.sender).to.include({ kind: 'reporter', reporterId });
    const outcome = await call<{ reporterStanding: { measure: string } | null }>(
      api.url,
      'GET',
      `/v1/reports/${ids[1]}/outcome`,
      { spec: '/v1/reports/{reportId}/outcome', headers: studio.headers },
    );
    expect(outcome.status, outcome.text).to.equal(200);
    expect(outcome.body.reporterStanding).to.include({ measure: 'warning' });
    const suspended = await mark(ids[2]!);
    expect(suspended.body.measure).to.include({ kind: 'suspension' });

    const p = await newPlayer();
    const before = await trustScore(api.pool, p.serviceId);
    const muted = await report(p.serviceId);
    expect(muted.body.report).to.include({ status: 'recorded', statusReason: 'reporter_muted' });
    expect(await trustScore(api.pool, p.serviceId)).to.equal(before);

    // The period over (as if its days had passed), the reporter's reports weigh again by themselves.
    await api.pool.query(
      `UPDATE reporters SET muted_until = now() - interval '1 second' WHERE studio_id = $1 AND reporter_id = $2`,
      [studio.studioId, reporterId],
    );
    const q = await newPlayer();
    const weighed = await report(q.serviceId);
    expect(weighed.body.report.status).to.not.equal('recorded');

    // A game server's finding names no reporter: nothing to count it against.
    const server = await call<{ report: { _id: string } }>(
      api.url,
      'POST',
      `/v1/toxicity/submitReport/${q.serviceId}`,
      {
        spec: '/v1/toxicity/submitReport/{serviceId}',
        headers: studio.headers,
        json: { report: { isToxic: true, severity: 'low', source: 'game_server' } },
      },
    );
    // The studio's transparency report counts its reporter's warning and suspension.
    expect(
      await reported(
        studio.studioId,
        'misuse',
        'suspensions_of_notices_article_23',
        'in-game reporters suspended',
      ),
    ).to.equal(1);
    // Its warnings: the reporter's one, and those of the notifiers warned for notices about its games.
    const { rows: notifierWarnings } = await api.pool.query<{ n: number }>(
      `SELECT count(DISTINCT m.id)::int AS n FROM misuse_measures m
         JOIN misuse_marks mk ON mk.sender_key = m.sender_key
         JOIN notices n ON n.offense_id = mk.offense_id OR n.id = (SELECT a.notice_id FROM appeals a WHERE a.id = mk.appeal_id)
         JOIN games g ON g.id = n.game_id
        WHERE m.kind = 'warning' AND g.studio_id = $1 AND m.sender_key NOT LIKE 'reporter:%'`,
      [studio.studioId],
    );
    expect(notifierWarnings[0]!.n, 'the earlier test warned a notifier about this game').to.be.greaterThan(0);
    expect(await reported(studio.studioId, 'misuse', 'warnings_article_23', 'total')).to.equal(
      1 + notifierWarnings[0]!.n,
    );
    expect(
      await reported(studio.studioId, 'misuse', 'suspensions_of_notices_article_23', 'reporters muted'),
    ).to.equal(0);
    const { rows: complaints } = await api.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM appeals a JOIN notices n ON n.id = a.notice_id WHERE n.game_id = $1',
      [studio.game.id],
    );
    expect(await reported(studio.studioId, 'complaints', 'number_of_complaints', 'by notifiers')).to.equal(
      complaints[0]!.n,
    );
    expect(complaints[0]!.n).to.be.greaterThan(0);
    const noSender = await mark(server.body.report._id);
    expect([noSender.status, noSender.body.code]).to.deep.equal([409, 'no_sender']);
  });
});
