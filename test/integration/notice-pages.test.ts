import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
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
import { chromiumOrSkip, expectAccessible, launchChromium } from '../helpers/browser.js';
import { call } from '../helpers/http.js';
import { startTestWorker } from '../helpers/workers.js';
import { noticeCase } from '../helpers/notices.js';

const ARTIFACTS = path.resolve('test-artifacts/notices');
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

/**
 * Issue 37, the public notice pages in Chromium: a notice filed from /notice by keyboard alone, with
 * script payloads in every field, read as text by the moderator, decided; the notifier reads the
 * decision on /notice/status with the receipt's secret and nothing else. No script, a strict CSP, and
 * no moderate, serious or critical accessibility fault on either page.
 */
describe('the public notice pages in headless Chromium', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let browser: Browser;
  let game: Tenant;
  let mod: TestModerator;

  before(async function () {
    chromiumOrSkip(this);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({
      NOTICE_PRIVACY_CONTROLLER: `Notice Studio GmbH ${XSS}`,
      NOTICE_PRIVACY_CONTACT: 'privacy@notice.example',
      RETENTION_NOTIFIER_DAYS: '90',
    });
    review = await startTestWorker(api.config, 'review');
    game = await createTenant(api.pool, 'Notice Studio');
    await api.pool.query('UPDATE games SET title = $2 WHERE id = $1', [game.game.id, `Notice Game ${XSS}`]);
    mod = await createTestModerator(api);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await review?.stop();
    await api?.close();
  });

  const accessible = (page: Page, name: string) => expectAccessible(page, ARTIFACTS, name);

  /** Types into the focused field, then moves on with Tab: the keyboard only. */
  async function typeAndTab(page: Page, text: string) {
    if (text) await page.keyboard.type(text);
    await page.keyboard.press('Tab');
  }

  it('a notice by keyboard alone, script payloads in every field: text to the moderator, decided, the notifier reads it with the secret', async () => {
    const player = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: game.game.clientId });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    const outside: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(api.url)) outside.push(r.url());
    });

    await page.goto(`${api.url}/`);
    const [first] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/notice')),
      page.getByRole('link', { name: 'Report illegal content or behaviour' }).click(),
    ]);
    const csp = first.headers()['content-security-policy']!;
    expect(csp).to.match(
      /default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'none'/,
    );
    await page.getByRole('heading', { name: 'Report illegal content or behaviour' }).waitFor();
    // The privacy notice (GDPR Art. 13), from the studio's settings, as text.
    const privacy = page.getByRole('region', { name: 'Your personal data' });
    await privacy.getByText(`Notice Studio GmbH ${XSS}`).waitFor();
    await privacy.getByText('privacy@notice.example').waitFor();
    await privacy.getByText(/deleted 90 days after your notice/).waitFor();
    await privacy.getByText(/we write to you when we receive your notice, when it is decided/).waitFor();
    await accessible(page, 'form');

    // Sent empty first: every field to correct is named, linked to its field, nothing stored.
    await page.getByRole('button', { name: 'Send the notice' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).to.include('explanation');
    await accessible(page, 'form-errors');

    // Now by keyboard: the game and category by their options, every text field with a payload.
    await page.getByLabel('Game', { exact: true }).focus();
    await page.keyboard.type('Notice Game');
    await page.keyboard.press('Tab');
    await typeAndTab(page, player.gamerTag);
    await page.keyboard.type('Illegal or harmful');
    await page.keyboard.press('Tab');
    await typeAndTab(page, `Hate speech in the lobby ${XSS}`);
    await typeAndTab(page, `match ${XSS}`.slice(0, 120));
    await typeAndTab(page, `chat line ${XSS}`);
    await typeAndTab(page, 'https://evidence.example/shot.png');
    await page.keyboard.press('Tab'); // past "a life or safety is at risk", unticked
    await page.keyboard.press('Space'); // "the person harmed is a child": ticked
    await page.keyboard.press('Tab');
    await typeAndTab(page, `A. Parent ${XSS}`);
    await typeAndTab(page, 'parent@example.org');
    await page.keyboard.press('Space'); // the good-faith box
    await page.keyboard.press('Tab'); // past its label's link-free text to the button
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your notice was received' }).waitFor();
    await accessible(page, 'receipt');
    const cells = await page.locator('dd').allTextContents();
    const [noticeId, secret] = [cells[0]!, cells[1]!];
    expect(noticeId).to.match(/^[0-9a-f-]{36}$/);

    // The moderator reads every payload as text.
    const caseId = await noticeCase(api.pool, noticeId);
    const detail = await call<{ offenses: { description: string; evidence: { content?: string }[] }[] }>(
      api.url,
      'GET',
      `/v1/admin/cases/${caseId}`,
      { spec: '/v1/admin/cases/{caseId}', headers: mod.headers },
    );
    expect(detail.body.offenses[0]!.description).to.equal(`Hate speech in the lobby ${XSS}`);
    // The box ticked on the form made the notice urgent.
    expect((detail.body as unknown as { urgent: boolean }).urgent).to.equal(true);
    expect(detail.body.offenses[0]!.evidence.map((e) => e.content)).to.include(`chat line ${XSS}`);
    const { rows } = await api.pool.query('SELECT notifier_name FROM notices WHERE id = $1', [noticeId]);
    expect(rows[0]).to.deep.equal({ notifier_name: `A. Parent ${XSS}` });
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'upheld', note: `confirmed ${XSS}` },
    });

    // The notifier: a wrong secret says nothing; the right one, the decision.
    await page.getByRole('link', { name: 'See where it stands' }).click();
    await page.getByRole('heading', { name: 'Where your notice stands' }).waitFor();
    await accessible(page, 'status-form');
    await page.getByLabel('Notice id').focus();
    await typeAndTab(page, noticeId);
    await page.keyboard.type('not the secret');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'No notice has this id and secret.' }).waitFor();
    await page.getByLabel('Secret').fill(secret);
    await page.getByLabel('Secret').press('Enter');
    await page.getByText('action was taken against their account').waitFor();
    await page.getByText('No: a moderator decided it; no automated means were used.').waitFor();
    await page
      .getByRole('region', { name: 'Your personal data' })
      .getByText('privacy@notice.example')
      .waitFor();
    await accessible(page, 'status');
    const html = await page.content();
    expect(html).to.not.include('confirmed').and.not.include(mod.username);
    // The game's name came as text too.
    expect(await page.locator('dd').nth(2).textContent()).to.equal(`Notice Game ${XSS}`);

    expect(errors, 'no script ran, no dialog opened').to.deep.equal([]);
    expect(await page.evaluate('typeof window.__xss')).to.equal('undefined');
    expect(outside, 'no request left the service').to.deep.equal([]);
    await context.close();
  });

  it('a dismissal contested from the status page by keyboard, a payload in the statement: the complaint is text to the moderator, granted, and the page says so', async () => {
    const other = await createTestModerator(api);
    const player = await createTestPlayer(api.pool);
    await linkPlayer(api.pool, { serviceId: player.serviceId, clientId: game.game.clientId });
    const sent = await call<{ noticeId: string; secret: string }>(api.url, 'POST', '/v1/notices', {
      spec: '/v1/notices',
      json: {
        gameId: game.game.id,
        player: player.serviceId,
        category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
        explanation: 'They threatened another player in voice and text chat.',
        name: 'A. Witness',
        email: `witness-${player.serviceId}@example.org`,
        goodFaith: true,
      },
    });
    expect(sent.status, sent.text).to.equal(201);
    const caseId = await noticeCase(api.pool, sent.body.noticeId);
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
      spec: '/v1/admin/cases/{caseId}/claim',
      headers: mod.headers,
    });
    await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'dismissed', note: 'not enough to go on' },
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(`${api.url}/notice/status`);
    await page.getByLabel('Notice id').focus();
    await typeAndTab(page, sent.body.noticeId);
    await page.keyboard.type(sent.body.secret);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Contest the decision' }).waitFor();
    await accessible(page, 'status-contestable');
    // Sent empty first: the statement is named, nothing filed.
    await page.getByRole('button', { name: 'Send the complaint' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).to.include('statement');
    const { rows: none } = await api.pool.query('SELECT 1 FROM appeals WHERE notice_id = $1', [
      sent.body.noticeId,
    ]);
    expect(none).to.have.length(0);
    await page.getByLabel('Why the decision is wrong').focus();
    await page.keyboard.type(`The recording shows it ${XSS}`);
    await page.keyboard.press('Tab'); // to "More of what they wrote"
    await page.keyboard.type(`more chat ${XSS}`);
    await page.keyboard.press('Tab'); // past the links, to the button
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page
      .getByText('Your complaint was received and is with a moderator other than the one who decided.')
      .waitFor();
    // Its evidence joined the notice's, marked as the complaint's, as text.
    const { rows: ev } = await api.pool.query<{ evidence: { addedBy?: string; content?: string }[] }>(
      'SELECT o.evidence FROM notices n JOIN offenses o ON o.id = n.offense_id WHERE n.id = $1',
      [sent.body.noticeId],
    );
    expect(ev[0]!.evidence.filter((e) => e.addedBy === 'complaint').map((e) => e.content)).to.deep.equal([
      `more chat ${XSS}`,
    ]);
    expect(await page.getByRole('heading', { name: 'Contest the decision' }).count(), 'once').to.equal(0);
    await accessible(page, 'status-complained');

    // The moderator reads the statement as text, and another one grants it.
    const { rows } = await api.pool.query<{ id: string; statement: string }>(
      'SELECT id, statement FROM appeals WHERE notice_id = $1',
      [sent.body.noticeId],
    );
    expect(rows[0]!.statement).to.equal(`The recording shows it ${XSS}`);
    const detail = await call<{ statement: string; subject: { kind: string } }>(
      api.url,
      'GET',
      `/v1/admin/appeals/${rows[0]!.id}`,
      { spec: '/v1/admin/appeals/{appealId}', headers: other.headers },
    );
    expect(detail.status, detail.text).to.equal(200);
    expect(detail.body.subject.kind).to.equal('notice');
    await call(api.url, 'POST', `/v1/admin/appeals/${rows[0]!.id}/claim`, {
      spec: '/v1/admin/appeals/{appealId}/claim',
      headers: other.headers,
    });
    const granted = await call(api.url, 'POST', `/v1/admin/appeals/${rows[0]!.id}/decide`, {
      spec: '/v1/admin/appeals/{appealId}/decide',
      headers: other.headers,
      json: { decision: 'granted', note: 'the recording is clear' },
    });
    expect(granted.status, granted.text).to.equal(200);
    await page.goto(`${api.url}/notice/status`);
    await page.getByLabel('Notice id').fill(sent.body.noticeId);
    await page.getByLabel('Secret').fill(sent.body.secret);
    await page.getByLabel('Secret').press('Enter');
    await page.getByText('Your complaint was upheld: the notice is being reviewed again.').waitFor();
    await page.getByText('Your notice was received and is waiting for a moderator.').waitFor();
    await accessible(page, 'status-reopened');
    expect(errors, 'no script ran, no dialog opened').to.deep.equal([]);
    expect(await page.evaluate('typeof window.__xss')).to.equal('undefined');
    await context.close();
  });
});
