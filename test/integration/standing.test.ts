import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
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

const ARTIFACTS = path.resolve('test-artifacts/standing');
const XSS = '<img src=x onerror="window.__xss=1">';

/**
 * Issue 25, the player's standing page in Chromium: a player signs in with their account, sees
 * their score, sanctions and every decision with its statement of reasons (as text, whatever a
 * moderator or a studio wrote), files an appeal from the page and reads its decision; no script, a
 * strict Content-Security-Policy, and no moderate, serious or critical accessibility fault.
 */
describe("the player's standing page in headless Chromium", function () {
  this.timeout(120_000);
  let api: TestApi;
  let browser: Browser;
  let game: Tenant;
  let mod: TestModerator;
  let admin: TestModerator;

  before(async function () {
    chromiumOrSkip(this);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi();
    game = await createTenant(api.pool, 'Standing');
    mod = await createTestModerator(api);
    admin = await createTestModerator(api, 'admin');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const accessible = (page: Page, name: string) => expectAccessible(page, ARTIFACTS, name);

  it('signs in, reads each decision and why (as text), appeals one and reads the decision on it', async () => {
    const player = await createTestPlayer(api.pool);
    const report = await call(api.url, 'POST', `/v1/anticheat/submitReport/${player.serviceId}`, {
      spec: '/v1/anticheat/submitReport/{serviceId}',
      headers: game.headers,
      json: { report: { isCheatDetected: true, severity: 'medium', description: `${XSS} studio only` } },
    });
    expect(report.status).to.equal(201);
    const ban = await call<{ id: string }>(
      api.url,
      'POST',
      `/v1/admin/players/${player.serviceId}/sanctions`,
      {
        spec: '/v1/admin/players/{serviceId}/sanctions',
        headers: mod.headers,
        json: { type: 'temporary_ban', reason: `Aimbot on replay ${XSS}`, durationSeconds: 86_400 },
      },
    );
    expect(ban.status).to.equal(201);

    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    const outside: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => {
      if (!r.url().startsWith(api.url)) outside.push(r.url());
    });
    await page.goto(`${api.url}/`);
    const [first] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/standing')),
      page.getByRole('link', { name: 'Your standing' }).click(),
    ]);
    const csp = first.headers()['content-security-policy']!;
    expect(csp).to.match(
      /default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'none'/,
    );
    expect(csp).not.to.include('unsafe-inline');
    await page.getByRole('heading', { name: 'Your standing' }).waitFor();
    await accessible(page, 'sign-in');
    await page.getByLabel('Gamer tag').fill(player.gamerTag);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The gamer tag or password is not right.' }).waitFor();
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Your standing, ${player.gamerTag}` }).waitFor();
    expect(await page.getByTestId('trust-score').textContent()).to.equal('90');

    // The ban: what, where, how long, the reason the moderator wrote (as text), decided by a person.
    const decision = page.getByRole('article', {
      name: /^A temporary ban: you cannot play, in every game, until /,
    });
    await decision.getByText(`Aimbot on replay ${XSS}`).waitFor();
    await decision.getByText('No: a person decided it.').waitFor();
    // The penalty: automated, by the penalty rule; nothing of what the studio wrote.
    const points = page.getByRole('article', { name: 'Your trust score was lowered by 10 points.' });
    await points.getByText(/^Yes\. The points were taken automatically/).waitFor();
    expect(await page.content()).not.to.include('studio only');
    await accessible(page, 'standing');

    // The player's own data, readable on a page of its own: every part, values as text.
    await page.getByRole('link', { name: 'Read your data' }).click();
    await page.getByRole('heading', { name: 'Your data', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Sanctions' }).getByText(`Aimbot on replay ${XSS}`).waitFor();
    await page.getByRole('table', { name: 'Reports about you' }).getByRole('row').nth(1).waitFor();
    expect(await page.evaluate('window.__xss')).to.equal(undefined);
    await accessible(page, 'standing-record');
    await page.getByRole('link', { name: 'Back to your standing' }).click();
    await page.getByRole('heading', { name: `Your standing, ${player.gamerTag}` }).waitFor();
    // And the same as a file: everything about them, the reports as a summary (nothing the studio
    // wrote), no moderators' internal notes.
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the same as a JSON file' }).click(),
    ]);
    expect(file.suggestedFilename()).to.match(/^player-.*-export\.json$/);
    const download = { text: fs.readFileSync((await file.path())!, 'utf8') };
    const mine = JSON.parse(download.text) as {
      manifest: { viewer: string; parts: Record<string, string> };
      player: { gamerTag: string };
      offenses: unknown[];
      sanctions: unknown[];
      statementsOfReasons: unknown[];
    };
    expect(mine.manifest.viewer).to.equal('the player');
    expect(mine.manifest.parts).to.not.have.property('notes');
    expect(mine.player.gamerTag).to.equal(player.gamerTag);
    expect(mine.offenses).to.have.length(1);
    expect(mine.sanctions).to.have.length(1);
    expect(mine.statementsOfReasons.length).to.be.at.least(2);
    expect(download.text).not.to.include('studio only');
    for (const path of ['/standing/export', '/standing/record']) {
      const signedOut = await fetch(`${api.url}${path}`, { redirect: 'manual' });
      expect([signedOut.status, signedOut.headers.get('location')]).to.deep.equal([302, '/standing']);
    }

    // Appeal the ban from the page.
    await decision.getByText(/^Appeal this decision/).click();
    await decision.getByLabel('Why').selectOption('incorrect');
    await decision.getByLabel(/^Your statement/).fill(`<script>window.__xss=2</script> I was at work.`);
    await decision.getByRole('button', { name: 'File the appeal' }).click();
    await page.getByRole('status').filter({ hasText: 'Your appeal was filed.' }).waitFor();
    await decision.getByText('Your appeal: open').waitFor();
    // The player's own words are shown back, as text.
    const appealed = decision.getByRole('region', { name: 'Your appeal' });
    await appealed.getByText('The decision is wrong: I did not do this').waitFor();
    await appealed.getByText('<script>window.__xss=2</script> I was at work.', { exact: true }).waitFor();
    // Times in words as the rest of the page writes them: no ISO time in a title or under "in force".
    const title = await decision.getByRole('heading').first().textContent();
    expect(title).to.match(/until \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
    expect(await page.locator('main').textContent()).not.to.match(/\d\dT\d\d:\d\d/);
    const { rows } = await api.pool.query<{ id: string; statement: string; filed_by_studio: string | null }>(
      'SELECT id, statement, filed_by_studio FROM appeals WHERE sanction_id = $1',
      [ban.body.id],
    );
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      statement: '<script>window.__xss=2</script> I was at work.',
      filed_by_studio: null,
    });

    // A moderator grants it; the page says so, with the moderator's note, and the ban is revoked.
    const act = (action: string, json?: object) =>
      call(api.url, 'POST', `/v1/admin/appeals/${rows[0]!.id}/${action}`, {
        spec: `/v1/admin/appeals/{appealId}/${action}` as never,
        headers: admin.headers,
        ...(json ? { json } : {}),
      });
    await act('claim');
    expect(
      (await act('decide', { decision: 'granted', note: `Work logs confirm it ${XSS}` })).status,
    ).to.equal(200);
    await page.reload();
    await decision.getByText(`Your appeal: granted`).waitFor();
    await decision.getByText(/by a moderator \(a person\)/).waitFor();
    await decision.getByText(`The moderator's note: Work logs confirm it ${XSS}`, { exact: false }).waitFor();
    await decision.getByText(/^Revoked on /).waitFor();
    await accessible(page, 'standing-appeal-granted');
    expect(await page.locator('main img, main script').count()).to.equal(0);
    expect(await page.evaluate('window.__xss')).to.equal(undefined);

    // Signed out, the page asks to sign in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(errors).to.deep.equal([]);
    expect(outside).to.deep.equal([]);
    await context.close();
  });

  it('refuses a form without its CSRF token, and an appeal without a session', async () => {
    const res = await fetch(`${api.url}/standing/appeal`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'offenseId=x&reason=incorrect&statement=hi',
    });
    expect(res.status).to.equal(403);
    expect(await res.text()).to.include('This form expired or did not come from this page.');
  });
});
