import { Queue } from 'bullmq';
import { expect } from 'chai';
import { claimMail } from '../../common/lifecycles/notifier-mail.js';
import { DROP_NOTIFIER_CONTACTS } from '../../common/lifecycles/notice.js';
import { JOB_NAMES, QUEUES } from '../../common/queues/index.js';
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
import { chromiumOrSkip, launchChromium } from '../helpers/browser.js';
import { call } from '../helpers/http.js';
import { eventually } from '../helpers/http-server.js';
import { noticeCase } from '../helpers/notices.js';
import { SmtpStandIn, type ReceivedMail } from '../../scripts/lib/smtp-stand-in.js';
import { startTestWorker } from '../helpers/workers.js';

interface Receipt {
  noticeId: string;
  secret: string;
}

/**
 * Issue 51: the notifier is written to (DSA Art. 16(4), 16(5), 20(5)), through a real SMTP server the
 * suite starts, with its faults: a bounce, greylisting, the server down, a worker that died mid-send.
 * Each mail is sent once, escapes what the notifier and the studio wrote, names nothing of the player,
 * and its link opens the notice's status.
 */
describe('notifier e-mail (issue 51)', function () {
  this.timeout(120_000);
  let smtp: SmtpStandIn;
  let api: TestApi;
  let review: RunningWorker;
  let outbound: RunningWorker | undefined;
  let studio: Tenant;
  let mod: TestModerator;
  let other: TestModerator;
  const GAME = '<i>Quest & "Co"</i>';

  before(async () => {
    smtp = await new SmtpStandIn(2).start();
    api = await startTestApi({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Notices <notices@trust.example>',
      MAIL_RETRY_BASE_MS: '200',
      MAIL_TIMEOUT_MS: '2000',
      NOTICE_QUOTA_PER_ADDRESS: '1000',
      NOTICE_QUOTA_PER_EMAIL: '1000',
      // What npm start sets when it runs its development mailbox.
      DEV_MAILBOX_URL: 'http://127.0.0.1:1080',
    });
    review = await startTestWorker(api.config, 'review');
    outbound = await startOutbound();
    studio = await createTenant(api.pool, 'Mail');
    await api.pool.query('UPDATE games SET title = $2 WHERE id = $1', [studio.game.id, GAME]);
    [mod, other] = [await createTestModerator(api), await createTestModerator(api)];
  });
  after(async () => {
    await outbound?.stop();
    await review?.stop();
    await api?.close();
    await smtp?.stop();
  });

  /** The webhooks worker, whose links name the test API's address. */
  const startOutbound = () => startTestWorker({ ...api.config, publicUrl: api.url }, 'webhooks');

  async function newPlayer() {
    const p = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: p.serviceId, clientId: studio.game.clientId });
    return p;
  }
  const notice = (
    player: string,
    email: string | undefined,
    name = 'A. Notifier',
    category = 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  ) =>
    call<Receipt>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      json: {
        gameId: studio.game.id,
        player,
        category,
        explanation: 'They posted slurs in the lobby chat, repeatedly.',
        ...(email ? { name, email } : {}),
        goodFaith: true,
      },
    });
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
  async function decide(appealId: string, who: TestModerator, decision: 'granted' | 'denied') {
    const claim = await call(api.url, 'POST', `/v1/admin/appeals/${appealId}/claim`, {
      spec: '/v1/admin/appeals/{appealId}/claim',
      headers: who.headers,
    });
    expect(claim.status, claim.text).to.equal(200);
    const res = await call(api.url, 'POST', `/v1/admin/appeals/${appealId}/decide`, {
      spec: '/v1/admin/appeals/{appealId}/decide',
      headers: who.headers,
      json: { decision, note: `${decision} by ${who.username}` },
    });
    expect(res.status, res.text).to.equal(200);
  }
  /** The mails `to` has received, once there are `n` (and never more after a pause). */
  async function mailsTo(to: string, n: number): Promise<ReceivedMail[]> {
    await eventually(`${n} mails to ${to}`, async () => (smtp.to(to).length >= n ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    const got = smtp.to(to);
    expect(got, got.map((m) => m.subject).join(' | ')).to.have.length(n);
    return got;
  }
  const mailRows = async (noticeId: string) =>
    (
      await api.pool.query<{
        id: string;
        kind: string;
        state: string;
        attempts: number;
        last_error: string | null;
      }>(
        'SELECT id, kind, state, attempts, last_error FROM notifier_mails WHERE notice_id = $1 ORDER BY created_at, id',
        [noticeId],
      )
    ).rows;
  const linkOf = (m: ReceivedMail) => /(http:\/\/\S+\/notice\/status#\S+)/.exec(m.text)?.[1];

  it('tells a notifier each step by e-mail, once each: receipt, dismissal, complaint, its outcome, the new decision', async () => {
    const p = await newPlayer();
    const to = `ann-${p.serviceId}@example.org`.toLowerCase();
    const sent = await notice(p.serviceId, to, '<b>Ann & "Co"</b>');
    expect(sent.status, sent.text).to.equal(201);
    const { noticeId, secret } = sent.body;

    const [receipt] = await mailsTo(to, 1);
    expect(receipt!.subject).to.equal(`We received your notice about a player of ${GAME}`);
    expect(receipt!.from).to.equal('notices@trust.example');
    expect(receipt!.messageId).to.match(/^<[0-9a-f-]{36}@trust\.example>$/);
    expect(receipt!.headers.get('auto-submitted')).to.equal('auto-generated');
    expect(receipt!.text).to.include('Hello <b>Ann & "Co"</b>,').and.include(noticeId);
    // The HTML escapes the notifier's name and the studio's title: no markup of theirs gets through.
    expect(receipt!.html).to.include('Hello &lt;b&gt;Ann &amp; &quot;Co&quot;&lt;/b&gt;,');
    expect(receipt!.html).to.include('&lt;i&gt;Quest &amp; &quot;Co&quot;&lt;/i&gt;');
    expect(receipt!.html).not.to.include('<b>Ann').and.not.to.include('<i>Quest');
    // Nothing of the player: no service id, no gamer tag.
    for (const m of [receipt!.text, receipt!.html, receipt!.subject])
      expect(m).not.to.include(p.serviceId).and.not.to.include(p.gamerTag);
    // The link holds the receipt in its fragment.
    const link = new URL(linkOf(receipt!)!);
    expect(link.origin).to.equal(api.url);
    expect(new URLSearchParams(link.hash.slice(1)).get('id')).to.equal(noticeId);
    expect(new URLSearchParams(link.hash.slice(1)).get('secret')).to.equal(secret);

    const caseId = await noticeCase(api.pool, noticeId);
    await resolve(caseId, mod, 'dismissed');
    const decided = (await mailsTo(to, 2))[1]!;
    expect(decided.subject).to.equal(`The decision on your notice about a player of ${GAME}`);
    expect(decided.text).to.include('no action was taken').and.include('You may contest this decision');
    expect(decided.text).to.include('out-of-court dispute settlement body (DSA Art. 21)');

    const complaint = await call(api.url, 'POST', `/v1/notices/${noticeId}/complaint`, {
      spec: '/v1/notices/{noticeId}/complaint',
      headers: { 'Notice-Secret': secret },
      json: { statement: 'The slurs are in the chat log at 21:04.' },
    });
    expect(complaint.status, complaint.text).to.equal(201);
    expect((await mailsTo(to, 3))[2]!.subject).to.equal(
      'We received your complaint about the decision on your notice',
    );
    const appealId = (
      await api.pool.query<{ id: string }>('SELECT id FROM appeals WHERE notice_id = $1', [noticeId])
    ).rows[0]!.id;
    await decide(appealId, other, 'granted');
    const outcome = (await mailsTo(to, 4))[3]!;
    expect(outcome.subject).to.equal('The decision on your complaint');
    expect(outcome.text).to.include('Your complaint was upheld');

    // Reviewed again and upheld: the new decision is told, and it cannot be contested (action taken).
    await resolve(await noticeCase(api.pool, noticeId), mod, 'upheld');
    const again = (await mailsTo(to, 5))[4]!;
    expect(again.text)
      .to.include('action was taken against their account')
      .and.not.include('You may contest');

    const ids = smtp.to(to).map((m) => m.messageId);
    expect(new Set(ids).size, 'one Message-ID a mail').to.equal(5);
    expect((await mailRows(noticeId)).map((r) => [r.kind, r.state])).to.deep.equal([
      ['notice_received', 'sent'],
      ['notice_decided', 'sent'],
      ['complaint_received', 'sent'],
      ['complaint_decided', 'sent'],
      ['notice_decided', 'sent'],
    ]);
  });

  it("an upheld notice reversed on the player's appeal: the notifier is told the reversal, once, and that it cannot be contested", async () => {
    const p = await newPlayer();
    const to = `rev-${p.serviceId}@example.org`.toLowerCase();
    const sent = await notice(p.serviceId, to);
    expect(sent.status, sent.text).to.equal(201);
    await resolve(await noticeCase(api.pool, sent.body.noticeId), mod, 'upheld');
    expect((await mailsTo(to, 2))[1]!.text).to.include('action was taken against their account');
    const offenseId = (
      await api.pool.query<{ offense_id: string }>('SELECT offense_id FROM notices WHERE id = $1', [
        sent.body.noticeId,
      ])
    ).rows[0]!.offense_id;
    const appealOf = async () => {
      const res = await call<{ id: string }>(api.url, 'POST', `/v1/player/${p.serviceId}/appeals`, {
        spec: '/v1/player/{serviceId}/appeals',
        headers: studio.headers,
        json: { offenseId, reason: 'incorrect', statement: 'Not me.' },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    };
    await decide(await appealOf(), other, 'granted');
    const reversal = (await mailsTo(to, 3))[2]!;
    expect(reversal.subject).to.equal(`The decision on your notice about a player of ${GAME}`);
    expect(reversal.text)
      .to.include('Action was first taken, then reversed')
      .and.not.include('You may contest');
    expect((await mailRows(sent.body.noticeId)).map((r) => r.kind)).to.deep.equal([
      'notice_received',
      'notice_decided',
      'notice_decided',
    ]);
  });

  it("the link opens the notice's status in a browser, and takes the receipt out of the address bar", async function () {
    chromiumOrSkip(this);
    const p = await newPlayer();
    const to = `link-${p.serviceId}@example.org`.toLowerCase();
    const sent = await notice(p.serviceId, to);
    expect(sent.status, sent.text).to.equal(201);
    const link = linkOf((await mailsTo(to, 1))[0]!)!;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') violations.push(m.text());
      });
      await page.goto(link);
      await page.getByRole('status').filter({ hasText: 'waiting for a moderator' }).waitFor();
      expect(page.url(), 'no secret left in the address').not.to.include(sent.body.secret);
      expect(violations, 'no Content-Security-Policy refusal').to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('GET / lists the development mailbox npm start runs, for JSON and for a browser', async () => {
    const json = await fetch(`${api.url}/`, { headers: { accept: 'application/json' } });
    expect(((await json.json()) as { mailbox: string }).mailbox).to.equal('http://127.0.0.1:1080');
    const html = await (await fetch(`${api.url}/`, { headers: { accept: 'text/html' } })).text();
    expect(html).to.include('<a href="http://127.0.0.1:1080">Development mailbox</a>');
  });

  it('owes no mail to a notice without an e-mail', async () => {
    const p = await newPlayer();
    // Child sexual abuse may be notified anonymously (Art. 16(2)(c)).
    const sent = await notice(p.serviceId, undefined, undefined, 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS');
    expect(sent.status, sent.text).to.equal(201);
    await resolve(await noticeCase(api.pool, sent.body.noticeId), mod, 'dismissed');
    expect(await mailRows(sent.body.noticeId)).to.deep.equal([]);
    const { rows } = await api.pool.query('SELECT secret_sealed FROM notices WHERE id = $1', [
      sent.body.noticeId,
    ]);
    expect(rows[0].secret_sealed, 'no sealed secret without an e-mail').to.equal(null);
  });

  it('a bounce ends the mail rejected, greylisting is retried until it passes, and neither holds up the others', async () => {
    const stamp = Date.now().toString(36);
    const [bounce, later, fine] = ['bounce', 'later', 'fine'].map((k) => `${k}-${stamp}@example.org`);
    const ids: string[] = [];
    for (const to of [bounce!, later!, fine!]) {
      // A player each: one notice a player and kind an hour from a sender.
      const sent = await notice((await newPlayer()).serviceId, to);
      expect(sent.status, sent.text).to.equal(201);
      ids.push(sent.body.noticeId);
    }
    await mailsTo(fine!, 1);
    await mailsTo(later!, 1);
    await eventually('the bounce recorded', async () =>
      (await mailRows(ids[0]!))[0]?.state === 'rejected' ? true : undefined,
    );
    const [rejected] = await mailRows(ids[0]!);
    expect(rejected).to.include({ state: 'rejected', attempts: 1 });
    expect(rejected!.last_error).to.include('550').and.include('RCPT');
    expect(rejected!.last_error, 'the address is never kept').not.to.include('@');
    expect(smtp.to(bounce!)).to.have.length(0);
    const [greylisted] = await mailRows(ids[1]!);
    expect(greylisted).to.include({ state: 'sent', attempts: 3 });
  });

  it('a dead SMTP server loses nothing: the mail waits, is retried, and goes once the server is back', async () => {
    const p = await newPlayer();
    const to = `down-${p.serviceId}@example.org`.toLowerCase();
    await smtp.stop();
    try {
      const sent = await notice(p.serviceId, to);
      expect(sent.status, sent.text).to.equal(201);
      await eventually('two attempts refused', async () => {
        const [m] = await mailRows(sent.body.noticeId);
        return m && m.attempts >= 2 && m.state === 'pending' ? m : undefined;
      });
      const [m] = await mailRows(sent.body.noticeId);
      expect(m!.last_error).to.match(/ECONNECTION|ECONNREFUSED/);
    } finally {
      await smtp.start();
    }
    expect((await mailsTo(to, 1))[0]!.subject).to.include('We received your notice');
  });

  it('a worker that died holding a mail: its claim runs out and the mail is sent once; a second job for it sends nothing more', async () => {
    await outbound!.stop();
    outbound = undefined;
    const p = await newPlayer();
    const to = `crash-${p.serviceId}@example.org`.toLowerCase();
    const sent = await notice(p.serviceId, to);
    expect(sent.status, sent.text).to.equal(201);
    const [row] = await mailRows(sent.body.noticeId);
    // What a worker that died mid-call leaves: the mail claimed (for 2 s here), one attempt spent.
    const claimed = await claimMail(api.pool, row!.id, 2);
    expect(claimed && 'claimed' in claimed).to.equal(true);
    outbound = await startOutbound();
    // A second job for the same mail (the reconciler's re-add, a duplicate): the claim keeps it to one send.
    const queue = new Queue(QUEUES.webhooks, {
      connection: { url: api.config.redisUrl! },
      prefix: api.config.queuePrefix,
    });
    try {
      await queue.add(JOB_NAMES.sendMail, { mailId: row!.id }, { jobId: `mail-${row!.id}-again` });
    } finally {
      await queue.close();
    }
    const [mail] = await mailsTo(to, 1);
    expect(mail!.messageId).to.equal(`<${row!.id}@trust.example>`);
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.to(to)).to.have.length(1);
    expect((await mailRows(sent.body.noticeId))[0]).to.include({ state: 'sent', attempts: 2 });
  });

  it('a mail whose notifier contact retention removed is withdrawn, unsent; one owed too long fails', async () => {
    await outbound!.stop();
    outbound = undefined;
    const p = await newPlayer();
    const gone = `gone-${p.serviceId}@example.org`.toLowerCase();
    const first = await notice(p.serviceId, gone);
    expect(first.status, first.text).to.equal(201);
    await api.pool.query(`UPDATE notices SET created_at = now() - interval '400 days' WHERE id = $1`, [
      first.body.noticeId,
    ]);
    await api.pool.query(DROP_NOTIFIER_CONTACTS, [10_000, new Date(Date.now() - 365 * 86_400_000)]);
    const { rows } = await api.pool.query('SELECT secret_sealed, notifier_email FROM notices WHERE id = $1', [
      first.body.noticeId,
    ]);
    expect(rows[0]).to.deep.equal({ secret_sealed: null, notifier_email: null });

    const q = await newPlayer();
    const late = `later-late-${q.serviceId}@example.org`.toLowerCase();
    const second = await notice(q.serviceId, late);
    expect(second.status, second.text).to.equal(201);
    // Owed four days ago (MAIL_RETRY_HOURS is 72): greylisted once more, it fails instead of waiting.
    await api.pool.query(
      `UPDATE notifier_mails SET created_at = now() - interval '4 days' WHERE notice_id = $1`,
      [second.body.noticeId],
    );
    outbound = await startOutbound();
    await eventually('both ended', async () => {
      const a = (await mailRows(first.body.noticeId))[0];
      const b = (await mailRows(second.body.noticeId))[0];
      return a?.state !== 'pending' && b?.state !== 'pending' ? [a, b] : undefined;
    });
    expect((await mailRows(first.body.noticeId))[0]).to.include({ state: 'withdrawn' });
    expect((await mailRows(second.body.noticeId))[0]).to.include({ state: 'failed' });
    expect(smtp.to(gone)).to.have.length(0);
  });
});
