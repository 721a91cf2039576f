import { AxeBuilder } from '@axe-core/playwright';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { linkPlayer } from '../../common/usecases/provisioning.js';
import { startTestWorker } from '../helpers/workers.js';
import { TransparencyDatabaseStandIn } from '../../scripts/lib/transparency-database.js';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { type RunningWorker } from '../../worker/run.js';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import {
  caseOfOffense,
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { eventually } from '../helpers/http-server.js';
import { chromiumOrSkip, expectAccessible, launchChromium } from '../helpers/browser.js';
import { noticeCase } from '../helpers/notices.js';

/** Screenshots of every screen, kept as test artefacts (git-ignored). */
const ARTIFACTS = path.resolve('test-artifacts/console');
const XSS = '<img src=x onerror="window.__xss=1">';

describe('moderator console in headless Chromium', function () {
  this.timeout(120_000);
  let api: TestApi;
  let review: RunningWorker;
  let browser: Browser;
  let tenant: Tenant;
  let admin: TestModerator;
  let moderator: TestModerator;

  before(async function () {
    chromiumOrSkip(this);
    await ensureConsoleBuilt();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi();
    review = await startTestWorker(api.config, 'review');
    tenant = await createTenant(api.pool, 'Console Studio');
    admin = await createTestModerator(api, 'admin');
    moderator = await createTestModerator(api, 'moderator');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await review?.stop();
    await api?.close();
  });

  const uid = () => crypto.randomBytes(4).toString('hex');
  /** Uncaught errors in any console page: a test fails on them, whatever it checked. */
  let pageErrors: string[] = [];
  afterEach(() => {
    const errors = pageErrors;
    pageErrors = [];
    expect(errors, 'uncaught errors in the console').to.deep.equal([]);
  });

  /** A player the studio creates (any gamer tag), and a report against them that opens a case. */
  async function player(gamerTag = `P-${uid()}`) {
    const res = await fetch(`${api.url}/v1/players`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ serviceId: `con-${uid()}`, gamerTag, fullName: 'Console Player' }),
    });
    expect(res.status).to.equal(201);
    return ((await res.json()) as { serviceId: string }).serviceId;
  }
  async function report(serviceId: string, kind: 'anticheat' | 'toxicity' | 'griefing', body: object) {
    const res = await fetch(`${api.url}/v1/${kind}/submitReport/${serviceId}`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ report: body }),
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    const offenseId = ((await res.json()) as { report: { _id: string } }).report._id;
    const caseId = await eventually('the case', async () => {
      const { rows } = await api.pool.query<{ case_id: string }>(
        'SELECT case_id FROM case_offenses WHERE offense_id = $1',
        [offenseId],
      );
      return rows[0]?.case_id;
    });
    return { offenseId, caseId };
  }
  const cheat = (serviceId: string) =>
    report(serviceId, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
      description: 'wallhack',
      // Evidence on the card: its heading sits under the screen's own (axe's heading-order).
      evidence: [{ type: 'text', content: 'aim snaps through walls' }],
    });

  async function signedIn(who: TestModerator): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e.stack ?? e)));
    await page.goto(`${api.url}/console`);
    await page.getByLabel('Username').fill(who.username);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    return { context, page };
  }

  const checkScreen = (page: Page, name: string) => expectAccessible(page, ARTIFACTS, name);

  async function caseRow(caseId: string) {
    const { rows } = await api.pool.query<{ status: string; outcome: string | null }>(
      'SELECT status, outcome FROM review_cases WHERE id = $1',
      [caseId],
    );
    return rows[0]!;
  }

  it('serves /, /docs and /console with a strict CSP, long-cached assets and no outside requests', async () => {
    const root = await fetch(`${api.url}/`, { headers: { accept: 'application/json' } });
    expect(await root.json()).to.deep.equal({
      name: 'player-trust',
      docs: '/docs',
      console: '/console',
      openapi: '/v1/openapi.json',
      standing: '/standing',
      notice: '/notice',
      noticeStatus: '/notice/status',
      mailbox: null,
    });
    const page = await fetch(`${api.url}/console/cases/anything`);
    expect(page.status).to.equal(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
    expect(csp).to.not.include('unsafe-inline');
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    const html = await page.text();
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${api.url}${asset}`);
    expect(js.status).to.equal(200);
    expect(js.headers.get('cache-control')).to.match(/max-age=31536000.*immutable/);
    expect(html).to.not.match(/<script>|<style>| style=|https?:\/\//);

    const context = await browser.newContext();
    const tab = await context.newPage();
    const outside: string[] = [];
    const errors: string[] = [];
    tab.on('request', (r) => {
      if (!r.url().startsWith(api.url)) outside.push(r.url());
    });
    tab.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await tab.goto(`${api.url}/`);
    await tab.getByRole('link', { name: 'API reference' }).click();
    // Tags start closed (api/routes/console/routes.ts says why): the players' one opens with a click.
    await tab.locator('#operations-tag-players').click();
    await tab.getByText('/v1/player/{serviceId}', { exact: true }).first().waitFor();
    expect(await tab.title()).to.equal('player-trust API reference');
    // Swagger UI's own markup has known axe findings (method-badge contrast, nested controls): they
    // are recorded as an artefact; the console's screens are the ones held to no serious findings.
    await tab.screenshot({ path: path.join(ARTIFACTS, 'docs.png'), fullPage: true });
    const axe = await new AxeBuilder({ page: tab }).analyze();
    fs.writeFileSync(
      path.join(ARTIFACTS, 'docs-axe.json'),
      JSON.stringify(
        axe.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })),
        null,
        2,
      ),
    );
    expect(outside).to.deep.equal([]);
    expect(errors.filter((e) => /Content Security Policy|Refused/.test(e))).to.deep.equal([]);
    await context.close();

    // The console's first load, signed out: no request fails (no favicon 404, no 401 for "who is
    // signed in?"), and the browser logs no error.
    const fresh = await browser.newContext();
    const first = await fresh.newPage();
    const failed: string[] = [];
    const logged: string[] = [];
    first.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    first.on('console', (m) => {
      if (m.type() === 'error') logged.push(m.text());
    });
    await first.goto(`${api.url}/console`);
    await first.getByLabel('Username').waitFor();
    await first.goto(`${api.url}/`);
    expect((await fetch(`${api.url}/favicon.ico`)).headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(failed).to.deep.equal([]);
    expect(logged).to.deep.equal([]);
    await fresh.close();
  });

  it('signs in to an HttpOnly SameSite=Strict cookie (nothing in storage), refuses a write without the CSRF token, signs out', async () => {
    const login = await browser.newContext();
    const first = await login.newPage();
    await first.goto(`${api.url}/console`);
    await checkScreen(first, 'sign-in');
    await first.getByLabel('Username').fill(moderator.username);
    await first.getByLabel('Password').fill('not the password');
    await first.getByRole('button', { name: 'Sign in' }).click();
    await first.getByRole('alert').filter({ hasText: 'not right' }).waitFor();
    await login.close();

    const { context, page } = await signedIn(moderator);
    const cookie = (await context.cookies()).find((c) => c.name === 'pt_console')!;
    expect(cookie).to.include({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).to.equal(0);
    expect(await page.evaluate('document.cookie')).to.equal('');
    const { caseId } = await cheat(await player());
    const forged = await page.evaluate(async (id) => {
      const res = await fetch(`/v1/admin/cases/${id}/claim`, { method: 'POST' });
      return { status: res.status, body: (await res.json()) as { code: string } };
    }, caseId);
    expect(forged).to.deep.equal({ status: 403, body: forged.body });
    expect(forged.body.code).to.equal('csrf_failed');
    expect((await caseRow(caseId)).status).to.equal('open');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Signed out, the cookie is gone: no session to describe (204, as on a first visit).
    const after = await page.evaluate(async () => (await fetch('/v1/admin/console-session')).status);
    expect(after).to.equal(204);
    expect((await context.cookies()).find((c) => c.name === 'pt_console')).to.equal(undefined);
    await context.close();
  });

  it('works a case with the keyboard only: open, claim, uphold with a sanction, submit and next', async () => {
    const serviceId = await player();
    const { caseId } = await cheat(serviceId);
    const { context, page } = await signedIn(moderator);
    await page.goto(`${api.url}/console?player=${serviceId}`);
    await page.locator(`tr[data-case-id="${caseId}"]`).waitFor();
    await checkScreen(page, 'queue');
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await checkScreen(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/console/cases/${caseId}`);
    await page.locator('.offense').getByText('wallhack').waitFor();
    await page.keyboard.press('c');
    await page.getByTestId('claim').filter({ hasText: 'you' }).waitFor();
    // Why it stands where it does: a high-severity case's first reason is its severity.
    await page
      .getByRole('region', { name: 'Why it stands here in the queue' })
      .getByRole('listitem')
      .first()
      .filter({ hasText: /^\+22\.7: highest severity high$/ })
      .waitFor();
    await checkScreen(page, 'case');
    await page.keyboard.press('u');
    await page.keyboard.type('Clear wallhack on the replay.');
    await page.keyboard.press('Tab'); // to the sanction
    await page.keyboard.press('ArrowDown'); // warning
    await page.keyboard.press('ArrowDown'); // chat restriction
    await page.keyboard.press('Tab'); // its days
    await page.keyboard.press('Tab'); // where it applies: every game, or a studio's games by name
    await page.keyboard.press('ArrowDown'); // the games of the studio that filed the report
    await page.keyboard.press('Tab'); // the category of its EU database statement: the kind's, unless chosen
    const category = page.getByLabel('Category of its EU database statement');
    expect(await category.locator('option:checked').textContent()).to.equal("the kind's (cheating)");
    await page.keyboard.press('ArrowDown'); // one chosen instead: the first of the list
    await page.keyboard.press('Tab'); // the reason the player reads, apart from the note
    await page.keyboard.type('Cheating: a wallhack, seen on the replay.');
    // Enter is a new line in the reason (several lines show): it submits nothing.
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).to.match(new RegExp(`${caseId}$`));
    expect(await caseRow(caseId)).to.deep.equal({ status: 'open', outcome: null });
    await page.keyboard.press('Control+Enter'); // submit and next, as in the note
    await page.waitForURL((url) => !url.pathname.endsWith(caseId));
    expect(await caseRow(caseId)).to.deep.equal({ status: 'resolved', outcome: 'upheld' });
    const { rows } = await api.pool.query<{
      type: string;
      reason: string;
      scope: string | null;
      category: string | null;
    }>(
      `SELECT s.type, s.reason, s.scope_studio_id AS scope, s.dsa_category AS category
         FROM sanctions s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1`,
      [serviceId],
    );
    expect(rows).to.deep.equal([
      {
        type: 'chat_restriction',
        reason: 'Cheating: a wallhack, seen on the replay.',
        scope: tenant.studioId,
        category: 'STATEMENT_CATEGORY_ANIMAL_WELFARE',
      },
    ]);
    await context.close();
  });

  it("dismisses from the case screen, and the player's screen shows the score restored", async () => {
    const serviceId = await player();
    const { caseId } = await cheat(serviceId);
    const { context, page } = await signedIn(moderator);
    await page.goto(`${api.url}/console/cases/${caseId}`);
    await page.getByTestId('trust-score').filter({ hasText: /^\d+$/ }).waitFor();
    expect(Number(await page.getByTestId('trust-score').textContent())).to.be.lessThan(100);
    await page.getByLabel(/Dismiss \(d\)/).check();
    await page.getByLabel(/^Note \(required/).fill('Replay shows no cheating.');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Case dismissed.' }).waitFor();
    await page.getByRole('link', { name: /^P-/ }).first().click();
    await page.getByRole('heading', { name: /^Player / }).waitFor();
    await page.getByTestId('trust-score').filter({ hasText: '100' }).waitFor();
    expect(await page.locator('svg circle').count()).to.equal(2); // the offense, then the dismissal
    // The chart has a time axis from the first change to the last: its ticks (seconds apart here)
    // each read differently, and the line moves in steps, never a slope between two changes.
    const ticks = await page.locator('svg text.time').allTextContents();
    expect(ticks.length).to.be.within(2, 4);
    expect(new Set(ticks).size, ticks.join(' | ')).to.equal(ticks.length);
    for (const t of ticks) expect(t).to.match(/\d/);
    const line = (await page.locator('svg path.line').getAttribute('d'))!;
    expect(line).to.match(/^M[\d.]+,[\d.]+( H[\d.]+ V[\d.]+)+$/);
    // The offense says what became of it, not only the score.
    await page
      .locator('.offense .outcome')
      .filter({ hasText: /^Restored: (\d+) of \1 points given back by a dismissal on / })
      .waitFor();
    await checkScreen(page, 'player');
    await context.close();
  });

  it('the player filter keeps every key typed at machine speed, and the queue follows it', async () => {
    // 18 characters, typed with no delay between keys (the filter lost some of them when each key
    // rewrote it from the address).
    const serviceId = `typed-fast-${uid()}`.slice(0, 18);
    const created = await fetch(`${api.url}/v1/players`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ serviceId, gamerTag: `T-${uid()}`, fullName: 'Typed Fast' }),
    });
    expect(created.status).to.equal(201);
    await cheat(serviceId);
    await cheat(await player());
    const { context, page } = await signedIn(moderator);
    const filter = page.getByLabel('Player');
    await filter.pressSequentially(serviceId, { delay: 0 });
    expect(await filter.inputValue()).to.equal(serviceId);
    await page.waitForURL((url) => url.searchParams.get('player') === serviceId);
    // The list reloads for the filter (the unfiltered one had this row too): only its case, once loaded.
    await eventually("only the typed player's case", async () => {
      const rows = await page.locator('tbody tr[data-case-id]').allTextContents();
      return rows.length === 1 && rows[0]!.includes(serviceId);
    });
    // Emptied again, every case is back.
    await filter.fill('');
    await page.waitForURL((url) => !url.searchParams.has('player'));
    await eventually('more than one case listed', async () => (await page.locator('tbody tr').count()) > 1);
    await context.close();
  });

  it('finds players by the start of a gamer tag, any case, and pages past the first 50 cases', async () => {
    const tag = `Page${uid()}`;
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) {
      const serviceId = `pg-${uid()}-${i}`;
      const created = await fetch(`${api.url}/v1/players`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ serviceId, gamerTag: `${tag}-${i}`, fullName: 'Paged Player' }),
      });
      expect(created.status).to.equal(201);
      ids.push(serviceId);
    }
    const cases = await Promise.all(ids.map(async (id) => (await cheat(id)).caseId));
    const { context, page } = await signedIn(moderator);
    await page.getByLabel('Player').fill(tag.toLowerCase());
    await page.waitForURL((url) => url.searchParams.get('player') === tag.toLowerCase());
    const rows = page.locator('tbody tr[data-case-id]');
    // Only this test's players (the database is shared with the whole run), 50 of them.
    await eventually('the first page', async () => {
      const players = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
      return players.length === 50 && players.every((t) => t.includes(tag));
    });
    await page.getByRole('button', { name: 'More cases' }).click();
    await eventually('the second page', async () => (await rows.count()) === 53);
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case-id')));
    expect([...shown].sort()).to.deep.equal([...cases].sort());
    expect(await page.getByRole('button', { name: 'More cases' }).count()).to.equal(0);
    await context.close();
  });

  it("an admin adds a decision template; a moderator applies it with one key, and the player-facing reason is the template's", async () => {
    const title = `Wallhack ${uid()}`;
    const reason = 'A moderator confirmed wall-hack software in your matches.';
    const adminSide = await signedIn(admin);
    await adminSide.page.getByRole('link', { name: 'Templates' }).click();
    await adminSide.page.getByRole('heading', { name: 'Decision templates' }).waitFor();
    await adminSide.page.getByLabel('Title').fill(title);
    await adminSide.page.getByLabel('Sanction').selectOption('temporary_ban');
    await adminSide.page.getByLabel('Days').fill('3');
    await adminSide.page.getByLabel('Reason the player reads').fill(reason);
    await adminSide.page.getByRole('button', { name: 'Add template' }).click();
    await adminSide.page.getByRole('cell', { name: title, exact: true }).waitFor();
    await checkScreen(adminSide.page, 'templates');
    await adminSide.context.close();

    const serviceId = await player();
    const { caseId } = await cheat(serviceId);
    const { context, page } = await signedIn(moderator);
    await page.goto(`${api.url}/console/cases/${caseId}`);
    await page.locator('.offense').getByText('wallhack').waitFor();
    await page.keyboard.press('c');
    await page.getByTestId('claim').filter({ hasText: 'you' }).waitFor();
    const button = page
      .getByRole('group', { name: 'Templates' })
      .getByRole('button', { name: new RegExp(`: ${title}$`) });
    const key = (await button.textContent())!.split(':')[0]!;
    await page.keyboard.press(key);
    expect(await button.getAttribute('aria-pressed')).to.equal('true');
    expect(await page.getByLabel(/^Uphold/).isChecked()).to.equal(true);
    expect(await page.getByLabel('Sanction').inputValue()).to.equal('temporary_ban');
    expect(await page.getByLabel('Reason the player reads (required)').inputValue()).to.equal(reason);
    await page.keyboard.type('Replay 3 shows it clearly.'); // the note: the template put the cursor there
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Case upheld.' }).waitFor();
    const { rows } = await api.pool.query<{ type: string; reason: string; days: number }>(
      `SELECT s.type, s.reason, round(extract(epoch FROM s.expires_at - s.starts_at) / 86400)::int AS days
         FROM sanctions s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1`,
      [serviceId],
    );
    expect(rows).to.deep.equal([{ type: 'temporary_ban', reason, days: 3 }]);
    const note = await api.pool.query<{ note: string }>(
      `SELECT note FROM moderation_audit WHERE case_id = $1 AND action = 'resolve'`,
      [caseId],
    );
    expect(note.rows[0]!.note).to.equal('Replay 3 shows it clearly.');
    await context.close();
  });

  it("a team: one moderator's note on a case is read by another on the player's screen, as text", async () => {
    const serviceId = await player();
    const { caseId } = await cheat(serviceId);
    const first = await signedIn(moderator);
    await first.page.goto(`${api.url}/console/cases/${caseId}`);
    const thread = first.page.getByRole('region', { name: 'Notes on this case' });
    await thread.getByText('No notes yet.').waitFor();
    await thread.getByLabel('New note (moderators only)').fill(`Check the replay ${XSS} before upholding.`);
    await thread.getByRole('button', { name: 'Add note' }).click();
    await thread.getByText(`Check the replay ${XSS} before upholding.`).waitFor();
    // A tag on the case, and the queue filtered by it.
    const tag = `team-${uid()}`;
    const tags = first.page.getByRole('region', { name: 'Tags of this case' });
    await tags.getByLabel('New tag').fill(tag.toUpperCase());
    await tags.getByRole('button', { name: 'Add tag' }).click();
    await tags.getByText(tag, { exact: true }).waitFor();
    await checkScreen(first.page, 'case-notes');
    await first.page.goto(`${api.url}/console?tag=${tag}`);
    await eventually('only the tagged case', async () => {
      const ids = await first.page
        .locator('tbody tr[data-case-id]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case-id')));
      return ids.length === 1 && ids[0] === caseId;
    });
    // The tag stands apart from the case link beside it (it ran into it).
    const row = first.page.locator(`tr[data-case-id="${caseId}"]`);
    const linkBox = (await row.getByRole('link', { name: /case$/ }).boundingBox())!;
    const tagBox = (await row.getByText(tag, { exact: true }).boundingBox())!;
    expect(tagBox.x - (linkBox.x + linkBox.width)).to.be.at.least(4);
    // Saved under a name of the moderator's own, and applied again with one click.
    await first.page.getByLabel('Save these filters as').fill(`Raid ${tag}`);
    await first.page.getByRole('button', { name: 'Save', exact: true }).click();
    const saved = first.page
      .getByRole('group', { name: 'Saved filters' })
      .getByRole('button', { name: `Raid ${tag}`, exact: true });
    await saved.waitFor();
    await first.page.goto(`${api.url}/console`);
    await saved.click();
    await first.page.waitForURL((url) => url.searchParams.get('tag') === tag);
    await first.context.close();

    const second = await signedIn(admin);
    await second.page.goto(`${api.url}/console/players/${serviceId}`);
    const onPlayer = second.page.getByRole('region', { name: 'Notes on this player' });
    await onPlayer.getByText(`Check the replay ${XSS} before upholding.`).waitFor();
    await onPlayer.getByText(`${moderator.username},`, { exact: false }).waitFor();
    // The timeline has the note, with who wrote it, beside the report and the score change.
    const timeline = second.page.getByRole('table', { name: 'Timeline' });
    await timeline.locator('tr[data-kind="note"]').getByText(moderator.username).waitFor();
    await timeline.locator('tr[data-kind="report"]').first().waitFor();
    await timeline.locator('tr[data-kind="score"]').first().waitFor();
    await checkScreen(second.page, 'player-timeline');
    expect(await second.page.locator('main img').count()).to.equal(0);
    expect(await second.page.evaluate('window.__xss')).to.equal(undefined);
    await second.context.close();
  });

  it('a moderator escalates a case with a note; an admin finds it under Escalated and assigns it to themself', async () => {
    const serviceId = await player();
    const { caseId } = await cheat(serviceId);
    const mod = await signedIn(moderator);
    await mod.page.goto(`${api.url}/console/cases/${caseId}`);
    await mod.page.getByRole('group', { name: 'Team' }).getByRole('button', { name: 'Escalate' }).click();
    await mod.page.getByLabel(/^Why\?/).fill('Looks like a shared account.');
    await mod.page.getByRole('button', { name: 'Escalate now' }).click();
    await mod.page.getByRole('status').filter({ hasText: 'Escalated to the admins.' }).waitFor();
    await mod.page
      .getByText(/Looks like a shared account\./)
      .first()
      .waitFor();
    expect(await mod.page.getByRole('tab', { name: /Escalated/ }).count()).to.equal(0); // moderators have no such tab
    // The case is the admins' now: no claim is offered to her (the API would answer 409), and c does nothing.
    await mod.page.getByText('Escalated to the admins: only an admin can claim it now.').waitFor();
    expect(await mod.page.getByRole('button', { name: 'Claim (c)' }).count()).to.equal(0);
    await mod.page.keyboard.press('c');
    await mod.page.waitForTimeout(300);
    expect(
      (await api.pool.query('SELECT claimed_by FROM review_cases WHERE id = $1', [caseId])).rows[0]
        .claimed_by,
    ).to.equal(null);
    await mod.context.close();

    const lead = await signedIn(admin);
    await lead.page.getByRole('tab', { name: /Escalated/ }).click();
    await lead.page.locator(`tr[data-case-id="${caseId}"]`).getByRole('link', { name: /case$/ }).click();
    await lead.page.waitForURL(`**/console/cases/${caseId}`);
    await lead.page.getByLabel(/^Assign to/).fill(admin.username);
    await lead.page.getByRole('button', { name: 'Assign', exact: true }).click();
    await lead.page.getByTestId('assigned').filter({ hasText: admin.username }).waitFor();
    await checkScreen(lead.page, 'case-escalated');
    await lead.page.goto(`${api.url}/console?tab=assigned`);
    await lead.page.locator(`tr[data-case-id="${caseId}"]`).waitFor();
    // The audit log and the timeline say to whom, in words.
    await lead.page.goto(`${api.url}/console/audit`);
    await lead.page.getByText(`Assigned the case to ${admin.username}`).first().waitFor();
    await lead.page.getByText('Escalated the case to the senior role').first().waitFor();
    await lead.page.goto(`${api.url}/console/players/${serviceId}`);
    const timeline = lead.page.getByRole('table', { name: 'Timeline' });
    await timeline.getByText(`Assigned the case to ${admin.username}`).waitFor();
    await lead.context.close();
  });

  it('a team works by queues: an admin adds queues and a routing rule on the page, a case lands there, a moderator moves it to an admins-only queue and loses sight of it, the admin works it', async () => {
    const id = uid();
    const routed = await createTenant(api.pool, `Routing ${id}`);
    const { rows } = await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [
      routed.studioId,
    ]);
    const studioName = rows[0]!.name;
    const lead = await signedIn(admin);
    await lead.page.getByRole('link', { name: 'Queues' }).click();
    await lead.page.getByRole('heading', { name: 'Queues and routing' }).waitFor();
    const addQueue = async (key: string, name: string, description: string, seenBy: string) => {
      const form = lead.page.getByRole('form', { name: 'Add a queue' });
      await form.getByLabel(/^Key/).fill(key);
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('What it is for').fill(description);
      await form.getByLabel('Seen by').selectOption({ label: seenBy });
      await form.getByRole('button', { name: 'Add queue' }).click();
      await lead.page.getByRole('table', { name: 'Queues' }).getByText(key, { exact: true }).waitFor();
    };
    await addQueue(
      `fraud-${id}`,
      `Fraud ${id}`,
      `Cheating reports from the routing studio ${XSS}`,
      'every moderator',
    );
    await addQueue(`senior-${id}`, `Senior ${id}`, 'Threats and legal', 'admins only (a senior queue)');
    await lead.page.getByRole('button', { name: 'Add a rule' }).click();
    const rule = lead.page.getByRole('listitem').last();
    await rule.getByLabel('Queue').selectOption({ label: `Fraud ${id}` });
    await rule.getByRole('checkbox', { name: 'cheating' }).check();
    await rule.getByLabel(/^Studios/).selectOption({ label: studioName });
    await rule.getByText(`cheating, from ${studioName}`).waitFor();
    await lead.page.getByRole('button', { name: 'Save the rules' }).click();
    await lead.page
      .getByRole('status')
      .filter({ hasText: /^Rules saved/ })
      .waitFor();
    await lead.page.getByText(`Cheating reports from the routing studio ${XSS}`).waitFor();
    await checkScreen(lead.page, 'queues');

    // A cheating report from the routing studio lands in Fraud.
    const target = await createTestPlayer(api.pool);
    const res = await fetch(`${api.url}/v1/anticheat/submitReport/${target.serviceId}`, {
      method: 'POST',
      headers: { ...routed.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ report: { isCheatDetected: true, severity: 'medium' } }),
    });
    expect(res.status).to.equal(201);
    const caseId = await caseOfOffense(
      api.pool,
      ((await res.json()) as { report: { _id: string } }).report._id,
    );

    const mod = await signedIn(moderator);
    await mod.page.getByRole('combobox', { name: /^Queue/ }).selectOption({ label: `Fraud ${id} (1 open)` });
    const row = mod.page.locator(`tr[data-case-id="${caseId}"]`);
    await row.getByText(`Fraud ${id}`).waitFor();
    // The admins-only queue is not among the moderator's filters.
    expect(await mod.page.getByRole('option', { name: new RegExp(`Senior ${id}`) }).count()).to.equal(0);
    await row.getByRole('link', { name: /case$/ }).click();
    await mod.page
      .getByTestId('queue')
      .filter({ hasText: `Fraud ${id}` })
      .waitFor();
    await mod.page
      .getByRole('group', { name: 'Team' })
      .getByRole('button', { name: 'Escalate or move' })
      .click();
    await mod.page
      .getByRole('combobox', { name: /^To/ })
      .selectOption({ label: `the Senior ${id} queue (admins only)` });
    await mod.page.getByLabel(/^Why\?/).fill('Threatened a teammate in voice <b>chat</b>.');
    await mod.page.getByRole('button', { name: 'Escalate now' }).click();
    await mod.page
      .getByRole('status')
      .filter({ hasText: `Moved to the Senior ${id} queue.` })
      .waitFor();
    await mod.page
      .getByRole('alert')
      .filter({ hasText: /only admins work/ })
      .waitFor();
    await mod.page.goto(`${api.url}/console?queue=fraud-${id}`);
    await mod.page.getByText('No cases here.').waitFor();
    await mod.context.close();

    await lead.page.goto(`${api.url}/console?queue=senior-${id}`);
    await lead.page.locator(`tr[data-case-id="${caseId}"]`).getByText('(moved)').waitFor();
    await lead.page.goto(`${api.url}/console/cases/${caseId}`);
    await lead.page.getByTestId('queue').filter({ hasText: 'moved here by hand' }).waitFor();
    await lead.page.getByText('Threatened a teammate in voice <b>chat</b>.').first().waitFor();
    await lead.page.getByRole('button', { name: 'Claim (c)' }).click();
    await lead.page.getByTestId('claim').filter({ hasText: 'you' }).waitFor();
    // The audit log says it in words: the rules saved, and where the case was escalated.
    await lead.page.getByRole('link', { name: 'Audit log' }).click();
    await lead.page
      .getByText(/^Saved the routing rules \(\d+ open cases moved\)$/)
      .first()
      .waitFor();
    await lead.page.getByText(`Moved the case to the Senior ${id} queue`).first().waitFor();
    await lead.page.getByRole('link', { name: 'Stats' }).click();
    await lead.page
      .getByRole('table', { name: 'Per queue, the last 14 days' })
      .getByRole('row', { name: new RegExp(`^Senior ${id} 1 `) })
      .waitFor();
    await checkScreen(lead.page, 'stats');
    expect(await lead.page.evaluate('window.__xss')).to.equal(undefined);
    await lead.context.close();
    // The rules go back to none, so the suites after this one route as before.
    const cleared = await fetch(`${api.url}/v1/admin/queue-rules`, {
      method: 'PUT',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [] }),
    });
    expect(cleared.status).to.equal(200);
  });

  it('bulk-dismisses three cases with one note, each on its own', async () => {
    const serviceId = await player();
    const cases = [
      (await cheat(serviceId)).caseId,
      (await report(serviceId, 'toxicity', { isToxic: true, severity: 'medium', messages: ['gg ez'] }))
        .caseId,
      (await report(serviceId, 'griefing', { isGriefing: true, severity: 'low' })).caseId,
    ];
    expect(new Set(cases).size).to.equal(3);
    const { context, page } = await signedIn(moderator);
    await page.goto(`${api.url}/console?player=${serviceId}`);
    for (const id of cases) await page.locator(`tr[data-case-id="${id}"] input[type=checkbox]`).check();
    await page.getByLabel('Note for all (required)').fill('Same false report, three times.');
    await page.getByRole('button', { name: 'Dismiss selected' }).click();
    const summary = page.getByRole('status').filter({ hasText: '3 of 3 done.' });
    await summary.waitFor();
    // The summary names each case (whose, which kind), each a link to it.
    for (const [kind, id] of [
      ['cheating', cases[0]],
      ['toxicity', cases[1]],
      ['griefing', cases[2]],
    ] as const) {
      const link = summary.getByRole('link', {
        name: new RegExp(`^P-\\w+'s ${kind} case \\(1 report, opened `),
      });
      expect(await link.getAttribute('href')).to.equal(`/console/cases/${id}`);
    }
    for (const id of cases)
      expect(await caseRow(id)).to.deep.equal({ status: 'resolved', outcome: 'dismissed' });
    const audit = await api.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM moderation_audit WHERE case_id = ANY($1) AND action = 'resolve'`,
      [cases],
    );
    expect(audit.rows[0]!.n).to.equal(3);
    await context.close();
  });

  it('names studios, not ids, says what became of each offense, and revokes a sanction on the page (no browser prompt)', async () => {
    const studioName = (
      await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [tenant.studioId])
    ).rows[0]!.name;
    const serviceId = await player();
    const { caseId } = await report(serviceId, 'toxicity', {
      isToxic: true,
      severity: 'low',
      reporterId: `rep-${uid()}`,
    });
    const placed = await fetch(`${api.url}/v1/player/${serviceId}/sanctions`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'chat_restriction', reason: 'spam', durationSeconds: 86_400 }),
    });
    expect(placed.status).to.equal(201);
    const sanctionId = ((await placed.json()) as { id: string }).id;
    const { context, page } = await signedIn(moderator);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // The queue: the gamer tag opens the player, the kind opens the case.
    await page.goto(`${api.url}/console?player=${serviceId}`);
    await page.locator(`tr[data-case-id="${caseId}"]`).getByRole('link', { name: /^P-/ }).click();
    await page.waitForURL(`**/console/players/${serviceId}`);
    const sanctions = page.getByRole('region', { name: 'Sanctions' });
    await sanctions.getByRole('cell', { name: studioName, exact: true }).waitFor();
    const offense = page.locator('.offense').first();
    await offense.getByText(`filed by ${studioName}`).waitFor();
    await offense
      .locator('.outcome')
      .filter({ hasText: /^Applied: \d+ points taken\.$/ })
      .waitFor();
    await sanctions.getByRole('button', { name: 'Revoke' }).click();
    await page.getByLabel(/^Why is it revoked/).fill('Placed on the wrong player.');
    await page.getByRole('button', { name: 'Revoke chat_restriction' }).click();
    await page.getByRole('status').filter({ hasText: 'Sanction revoked.' }).waitFor();
    const { rows } = await api.pool.query<{ reason: string | null }>(
      'SELECT revoke_reason AS reason FROM sanctions WHERE id = $1 AND revoked_at IS NOT NULL',
      [sanctionId],
    );
    expect(rows).to.deep.equal([{ reason: 'Placed on the wrong player.' }]);
    expect(dialogs).to.deep.equal([]);
    await checkScreen(page, 'player-revoked');
    // The case: its reporters' studio and its offenses' studio by name.
    await page.goto(`${api.url}/console/cases/${caseId}`);
    await page
      .getByRole('region', { name: 'Reporters' })
      .getByRole('cell', { name: studioName, exact: true })
      .waitFor();
    await page.locator('.offense').getByText(`filed by ${studioName}`).waitFor();
    // Muting the reporter from the case, with a note (it was possible only through the API).
    const reporterId = (
      await api.pool.query<{ r: string }>(
        `SELECT context->>'reporterId' AS r FROM offenses o
        JOIN case_offenses co ON co.offense_id = o.id WHERE co.case_id = $1`,
        [caseId],
      )
    ).rows[0]!.r;
    await page.getByRole('button', { name: `Mute ${reporterId}` }).click();
    await page.getByLabel(/^Why mute this reporter/).fill('Files a report on every loss.');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Reporter muted.' }).waitFor();
    await page.getByRole('button', { name: `Unmute ${reporterId}` }).waitFor();
    const muted = await api.pool.query(
      'SELECT 1 FROM reporters WHERE studio_id = $1 AND reporter_id = $2 AND muted_at IS NOT NULL',
      [tenant.studioId, reporterId],
    );
    expect(muted.rowCount).to.equal(1);
    await context.close();
  });

  it('EU database: an admin finds a refused statement with the database’s words (as text), sends it again, and the player’s screen links it', async () => {
    const tdb = await new TransparencyDatabaseStandIn().start();
    const outbound = await startTestWorker(api.config, 'webhooks');
    try {
      // A restriction placed before the studio connected its account: owed nowhere, and shown so.
      const early = await fetch(`${api.url}/v1/player/${await player()}/sanctions`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'chat_restriction', reason: 'before the account', durationSeconds: 60 }),
      });
      expect(early.status).to.equal(201);
      const studioName = (
        await api.pool.query<{ name: string }>('SELECT name FROM studios WHERE id = $1', [tenant.studioId])
      ).rows[0]!.name;
      // The database refuses every statement, in words that carry markup.
      tdb.extraRule = () => ({ category: [`${XSS} is not a category`] });
      const setUp = await fetch(`${api.url}/v1/admin/transparency/accounts/${tenant.studioId}`, {
        method: 'PUT',
        headers: { ...admin.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'submit', baseUrl: tdb.url, token: tdb.platform('console-studio') }),
      });
      expect(setUp.status).to.be.oneOf([200, 201]);
      const serviceId = await player();
      const placed = await fetch(`${api.url}/v1/player/${serviceId}/sanctions`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'matchmaking_restriction', reason: 'leaving', durationSeconds: 3600 }),
      });
      expect(placed.status).to.equal(201);
      const sanctionId = ((await placed.json()) as { id: string }).id;
      const state = async () =>
        (
          await api.pool.query<{ state: string }>(
            'SELECT state FROM transparency_statements WHERE sanction_id = $1',
            [sanctionId],
          )
        ).rows[0]?.state;
      await eventually('refused', async () => (await state()) === 'refused');

      const { context, page } = await signedIn(admin);
      // The navigation is grouped by what people do; the EU database is a compliance duty.
      const groups = page.getByRole('navigation', { name: 'Main' }).getByRole('group');
      expect(
        await groups.evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-labelledby'))),
      ).to.deep.equal(['nav-work', 'nav-policy', 'nav-compliance', 'nav-admin']);
      await page
        .getByRole('group', { name: 'Compliance' })
        .getByRole('link', { name: 'EU database' })
        .click();
      const row = page
        .getByRole('table', { name: 'Refused statements' })
        .getByRole('row')
        .filter({ hasText: serviceId });
      await row.getByText(`${XSS} is not a category`, { exact: false }).waitFor();
      expect(await page.evaluate('window.__xss')).to.equal(undefined);
      // Platforms by name, not by id; the restrictions owed nowhere said, with their platform's name.
      await row.getByRole('cell', { name: studioName, exact: true }).waitFor();
      await page
        .getByRole('table', { name: 'Restrictions that sent no statement' })
        .getByRole('row')
        .filter({ hasText: studioName })
        .waitFor();
      await checkScreen(page, 'transparency');
      tdb.extraRule = undefined;
      await row.getByRole('button', { name: 'Send again' }).click();
      await page.getByRole('status').filter({ hasText: 'Sent again' }).waitFor();
      await eventually('sent', async () => (await state()) === 'sent');
      // The transparency report for the studio, shown, and the same as CSV for download.
      await page.getByLabel('Platform (all, operator').fill(tenant.studioId);
      await page.getByRole('button', { name: 'Show the report' }).click();
      const table = page.getByRole('table', { name: 'Transparency report' });
      await table.getByRole('row').filter({ hasText: 'number_of_decisions' }).first().waitFor();
      const href = await page.getByRole('link', { name: 'Download as CSV' }).getAttribute('href');
      expect(href).to.include(`platform=${tenant.studioId}`).and.include('format=csv');
      const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href!);
      expect(csv.split('\r\n')[0]).to.equal('"section","field","breakdown","value"');
      await page.goto(`${api.url}/console/players/${serviceId}`);
      await page.getByRole('link', { name: 'sent (its page in the EU database)' }).waitFor();
      // An admin exports the player's whole record from the same screen (internal), and the player's
      // copy to hand to them, each named for what it is.
      for (const [name, kind] of [
        ['Internal export of everything held (JSON)', 'internal'],
        ['The player’s copy of their data (JSON)', 'player copy'],
      ] as const) {
        const [file] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name }).click(),
        ]);
        const exported = JSON.parse(fs.readFileSync((await file.path())!, 'utf8')) as {
          manifest: { serviceId: string; kind: string };
          sanctions: { id: string }[];
        };
        expect(exported.manifest).to.include({ serviceId, kind });
        expect(exported.sanctions.map((x) => x.id)).to.include(sanctionId);
      }
      await context.close();
    } finally {
      await api.pool.query('DELETE FROM transparency_accounts WHERE platform = $1', [tenant.studioId]);
      await outbound.stop();
      await tdb.close();
    }
  });

  it('data requests: an admin confirms a studio’s erasure request on its screen, and erases a player from their screen by typing their id back', async () => {
    const other = await createTenant(api.pool, 'Console Other');
    // A player of two studios' games: the studio's request waits for an admin.
    const shared = await player();
    await linkPlayer(api.pool, { serviceId: shared, clientId: other.game.clientId });
    const asked = await fetch(`${api.url}/v1/player/${shared}/erasure`, {
      method: 'POST',
      headers: tenant.headers,
    });
    const erasure = (await asked.json()) as { id: string; state: string };
    expect(erasure.state).to.equal('awaiting_confirmation');
    const { context, page } = await signedIn(admin);
    await page.getByRole('link', { name: 'Data requests' }).click();
    await page.getByRole('heading', { name: 'Erasures awaiting an admin' }).waitFor();
    const kinds = page.getByRole('table', { name: /Each kind: its window/ });
    await kinds.getByRole('row').filter({ hasText: 'sign-in records' }).waitFor();
    await checkScreen(page, 'erasures');
    // Retention: a run now, recorded as this admin's.
    await page.getByRole('button', { name: 'Run retention now' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Retention ran: \d+ rows? past their window removed/ })
      .waitFor();
    const runs = page.getByRole('table', { name: 'The latest runs, newest first.' });
    await runs.getByRole('row').nth(1).filter({ hasText: 'Mod ' }).waitFor();
    await page.getByRole('button', { name: `Confirm erasure ${erasure.id.slice(0, 8)}` }).click();
    await page.getByText(`Erasure ${erasure.id} confirmed`).waitFor();
    await eventually('the erasure done', async () => {
      const { rows } = await api.pool.query<{ state: string }>('SELECT state FROM erasures WHERE id = $1', [
        erasure.id,
      ]);
      return rows[0]?.state === 'done';
    });

    // From the player's screen: the button asks for the id typed back before anything happens.
    const { caseId } = await cheat(await player());
    const { rows } = await api.pool.query<{ service_id: string }>(
      'SELECT p.service_id FROM review_cases c JOIN players p ON p.id = c.player_id WHERE c.id = $1',
      [caseId],
    );
    const serviceId = rows[0]!.service_id;
    await page.goto(`${api.url}/console/players/${serviceId}`);
    await page.getByRole('button', { name: "Erase this player's personal data" }).click();
    const submit = page.getByRole('button', { name: 'Erase for good' });
    expect(await submit.isDisabled(), 'not before the id is typed').to.equal(true);
    await page.getByLabel("Type the player's id to confirm").fill('not-the-id');
    expect(await submit.isDisabled()).to.equal(true);
    await checkScreen(page, 'erase-confirmation');
    await page.getByLabel("Type the player's id to confirm").fill(serviceId);
    const gamerTag = (await page.getByRole('heading', { level: 1 }).textContent())!.replace('Player ', '');
    await submit.click();
    // The screen follows the erasure to its end and then shows nothing of the player, only what went,
    // in words (it kept showing the erased data until reloaded, and the receipt in code words).
    await page.getByRole('heading', { name: "This player's personal data was erased" }).waitFor();
    const removed = page.getByRole('list', { name: 'What was removed' });
    await removed.getByText(/report\(s\) emptied of their words, evidence/).waitFor();
    expect(await page.locator('main').textContent()).to.not.include(gamerTag);
    expect(await page.locator('main').textContent()).to.not.include('auditDetails');
    await checkScreen(page, 'erased');
    const r = await fetch(`${api.url}/v1/player/${serviceId}`, { headers: tenant.headers });
    expect(r.status).to.equal(404);
    await context.close();
  });

  it('waves: a moderator makes one from pasted ids, an admin approves it on Approvals by keyboard, it runs, and is rolled back with a reason; names as text', async () => {
    const ids = [await player(), await player()];
    const name = `<img src=x onerror="window.pwned=1">Ring ${uid()}`;
    const mod = await signedIn(moderator);
    await mod.page.getByRole('link', { name: 'Waves' }).click();
    await mod.page.getByRole('heading', { name: 'Make a wave' }).waitFor();
    await mod.page.getByLabel('Name').fill(name);
    await mod.page.getByLabel('Sanction').selectOption('permanent_ban');
    await mod.page.getByLabel('Reason (each player reads it)').fill('Cheat ring <script>alert(1)</script>');
    await mod.page.getByLabel('Ids, one a line').fill(`${ids.join('\n')}\nnobody-${uid()}`);
    await mod.page.getByRole('button', { name: 'Make the wave' }).click();
    await mod.page
      .getByRole('status')
      .filter({
        hasText: /made for 2 players: awaiting a second moderator\. Not matched \(left out\): nobody-/,
      })
      .waitFor();
    const row = mod.page.getByRole('row').filter({ hasText: name });
    await row.filter({ hasText: 'awaiting a second moderator' }).waitFor();
    await checkScreen(mod.page, 'waves');
    expect(await mod.page.evaluate(() => (globalThis as { pwned?: number }).pwned)).to.equal(undefined);

    const lead = await signedIn(admin);
    await lead.page.getByRole('link', { name: 'Approvals' }).click();
    const approve = lead.page.getByRole('button', { name: `Approve ${name}` });
    await approve.waitFor();
    await checkScreen(lead.page, 'approvals');
    await approve.focus();
    await lead.page.keyboard.press('Enter');
    await lead.page.getByRole('status').filter({ hasText: 'approved: it runs at its time' }).waitFor();
    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM waves WHERE name = $1', [name]);
    await eventually('the wave done', async () => {
      const w = await api.pool.query<{ state: string }>('SELECT state FROM waves WHERE id = $1', [
        rows[0]!.id,
      ]);
      return w.rows[0]?.state === 'done';
    });
    await mod.page.reload();
    await mod.page.getByRole('row').filter({ hasText: name }).filter({ hasText: '2 of 2 placed' }).waitFor();
    await mod.page.getByRole('button', { name: `Roll back ${name}` }).click();
    await mod.page.getByLabel(/^Why/).fill('The detector misfired');
    await mod.page.getByRole('button', { name: 'Roll back the wave' }).click();
    await mod.page.getByRole('status').filter({ hasText: 'is being rolled back' }).waitFor();
    await mod.page.getByRole('row').filter({ hasText: name }).filter({ hasText: '2 revoked' }).waitFor();
    await mod.context.close();
    await lead.context.close();
  });

  it('rules: an admin writes one by keyboard, tries it on the last days, saves it in the background and edits it to its next version; names as text', async () => {
    const name = `<img src=x onerror="globalThis.pwned=1">Raid ${uid()}`;
    const { context, page } = await signedIn(admin);
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('heading', { name: 'Write a rule' }).waitFor();
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('toxicity').check();
    await page.getByLabel('Distinct reporters at least').fill('2');
    await page.getByLabel('Escalate to the senior role').check();
    await page.getByRole('button', { name: 'Try it (backtest)' }).click();
    await page.getByRole('heading', { name: 'Backtest: the last 30 days' }).waitFor();
    await checkScreen(page, 'rules-backtest');
    // Enter in a field tries it again (the safe default); the save button saves.
    await page.getByRole('button', { name: 'Save the rule' }).focus();
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /saved \(version 1, background/ })
      .waitFor();
    const row = page.getByRole('row').filter({ hasText: name });
    await row.filter({ hasText: 'kind toxicity, 2+ reporters' }).waitFor();
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    await page.getByLabel('Mode').selectOption('draft');
    await page.getByRole('button', { name: 'Save the next version' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /saved \(version 2, draft/ })
      .waitFor();
    await checkScreen(page, 'rules');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).to.equal(undefined);
    await context.close();
  });

  it('rules that sanction: an admin saves a live one from a template, it waits on Approvals, where its author may not approve it and a second admin approves it by keyboard; names as text', async () => {
    const template = await fetch(`${api.url}/v1/admin/templates`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Ring ban <b>${uid()}</b>`,
        outcome: 'upheld',
        sanctionType: 'temporary_ban',
        durationSeconds: 7 * 86_400,
        playerReason: 'Cheat ring <script>alert(1)</script>',
      }),
    });
    expect(template.status).to.equal(201);
    const { title } = (await template.json()) as { title: string };
    const name = `<img src=x onerror="globalThis.pwned=1">Ring rule ${uid()}`;
    const author = await signedIn(admin);
    await author.page.getByRole('link', { name: 'Rules' }).click();
    await author.page.getByRole('heading', { name: 'Write a rule' }).waitFor();
    await author.page.getByLabel('Name').fill(name);
    await author.page.getByLabel('Mode').selectOption('live');
    await author.page.getByLabel('cheating').check();
    // A tag no player of the other tests carries: it sanctions nobody of theirs.
    await author.page.getByLabel('Player tagged (any of)').fill('ring-under-test');
    await author.page.getByLabel('Place a sanction (a decision template)').selectOption({ label: title });
    await author.page.getByRole('button', { name: 'Save the rule' }).click();
    await author.page
      .getByRole('status')
      .filter({ hasText: /waits for another admin on the Approvals screen/ })
      .waitFor();
    await author.page
      .getByRole('row')
      .filter({ hasText: name })
      .filter({ hasText: "waits for a second admin's approval" })
      .filter({ hasText: 'Cheat ring <script>alert(1)</script>' })
      .waitFor();
    await author.page.getByRole('link', { name: 'Approvals' }).click();
    await author.page
      .getByRole('row')
      .filter({ hasText: name })
      .filter({ hasText: 'yours: another admin approves it' })
      .waitFor();
    const second = await createTestModerator(api, 'admin');
    const lead = await signedIn(second);
    await lead.page.getByRole('link', { name: 'Approvals' }).click();
    const approve = lead.page.getByRole('button', { name: `Approve rule ${name}` });
    await approve.waitFor();
    await checkScreen(lead.page, 'approvals-rules');
    await approve.focus();
    await lead.page.keyboard.press('Enter');
    await lead.page.getByRole('status').filter({ hasText: 'approved: it acts live from now' }).waitFor();
    const { rows } = await api.pool.query<{ awaiting_approval: boolean; approved_by: string }>(
      'SELECT awaiting_approval, approved_by FROM rules WHERE name = $1',
      [name],
    );
    expect(rows).to.deep.equal([{ awaiting_approval: false, approved_by: second.id }]);
    for (const p of [author.page, lead.page])
      expect(await p.evaluate(() => (globalThis as { pwned?: number }).pwned)).to.equal(undefined);
    await author.context.close();
    await lead.context.close();
  });

  it('four eyes on the player page: a moderator’s ban of a protected player says it waits, and appears on Approvals for an admin', async () => {
    const serviceId = await player();
    const tagged = await fetch(`${api.url}/v1/admin/players/${serviceId}/tags`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ tag: 'protected' }),
    });
    expect(tagged.status).to.equal(200);
    const mod = await signedIn(moderator);
    await mod.page.goto(`${api.url}/console/players/${serviceId}`);
    const form = mod.page.getByRole('form', { name: 'Place a sanction' });
    await form.getByLabel('Type').selectOption('temporary_ban');
    await form.getByLabel('Reason').fill('Boosting <b>ring</b>');
    await form.getByRole('button', { name: 'Place sanction' }).click();
    await mod.page.getByText('temporary_ban waits for a second moderator').waitFor();
    await checkScreen(mod.page, 'player-awaiting');
    const lead = await signedIn(admin);
    await lead.page.getByRole('link', { name: 'Approvals' }).click();
    await lead.page.getByRole('button', { name: `Approve temporary ban of ${serviceId}` }).waitFor();
    await mod.context.close();
    await lead.context.close();
  });

  it('trusted flaggers: an admin registers one (its key shown once), suspends it with a reason asked on the page, and reinstates it; names as text', async () => {
    const { context, page } = await signedIn(admin);
    await page.getByRole('link', { name: 'Trusted flaggers' }).click();
    await page.getByRole('heading', { name: 'Trusted flaggers', level: 1 }).waitFor();
    const name = `Safer Play <b>${uid()}</b>`;
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Awarding coordinator').fill('Coimisiún na Meán (IE)');
    await page.getByLabel('Illegal or harmful speech').check();
    await page.getByLabel('Protection of minors').check();
    await page.getByRole('button', { name: 'Register' }).click();
    const key = (await page.locator('code').textContent())!;
    expect(key).to.match(/^ptf_/);
    await page.getByRole('cell', { name, exact: true }).waitFor();
    await checkScreen(page, 'flaggers');
    // The key works: a notice with it is a trusted flagger's.
    const { rows } = await api.pool.query<{ areas: string[] }>(
      'SELECT areas FROM trusted_flaggers WHERE name = $1',
      [name],
    );
    expect(rows[0]!.areas).to.have.members([
      'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
    ]);
    await page.getByRole('button', { name: `Suspend ${name}` }).click();
    await page.getByLabel('Why (kept and audited)').fill('Many unfounded notices in March');
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    await page.getByText(`${name} suspended: its notices are refused.`).waitFor();
    await page.getByRole('cell', { name: /suspended .*Many unfounded notices in March/ }).waitFor();
    const refused = await fetch(`${api.url}/v1/notices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refused.status).to.equal(403);
    await page.getByRole('button', { name: `Reinstate ${name}` }).click();
    await page.getByText(`${name} reinstated.`).waitFor();
    await context.close();
  });

  it('orders and disputes: an admin records an order, completes it when acted on, and records a dispute; texts as text', async () => {
    const { context, page } = await signedIn(admin);
    await page.getByRole('link', { name: 'Orders and disputes' }).click();
    await page.getByRole('heading', { name: 'Orders and disputes', level: 1 }).waitFor();
    const authority = `Parquet de Paris <b>${uid()}</b>`;
    const orderForm = page.getByRole('form', { name: 'Record an order' });
    await orderForm.getByLabel('Authority', { exact: true }).fill(authority);
    await orderForm.getByLabel('Member State').selectOption('FR');
    await orderForm
      .getByLabel('Type of illegal content')
      .selectOption('STATEMENT_CATEGORY_PROTECTION_OF_MINORS');
    await orderForm.getByLabel('Received', { exact: true }).fill('2026-06-01T09:00');
    await orderForm.getByRole('button', { name: 'Record the order' }).click();
    await page.getByText('Order recorded.').waitFor();
    await page.getByRole('button', { name: `Edit the order of ${authority}` }).click();
    const edit = page.getByRole('form', { name: `Edit the order of ${authority}` });
    await edit.getByLabel('Effect given').fill('2026-06-01T15:00');
    await edit.getByLabel('What was done').fill('Account suspended; chat kept for the authority.');
    await edit.getByRole('button', { name: 'Save the order' }).click();
    await page.getByText('Order updated.').waitFor();
    await page.getByRole('cell', { name: /Account suspended; chat kept for the authority\./ }).waitFor();
    // Half a pair is refused with its field named.
    const disputeForm = page.getByRole('form', { name: 'Record a dispute' });
    await disputeForm.getByLabel('Certified body').fill('ADR Games <i>x</i>');
    await disputeForm.getByLabel('Submitted').fill('2026-06-02T09:00');
    await disputeForm.getByLabel('Closed').fill('2026-06-12T09:00');
    await disputeForm.getByRole('button', { name: 'Record the dispute' }).click();
    await page
      .getByText(/outcome/)
      .first()
      .waitFor();
    await disputeForm.getByLabel('Outcome').selectOption('for_recipient');
    await disputeForm.getByLabel("The body's decision implemented").selectOption('yes');
    await disputeForm.getByRole('button', { name: 'Record the dispute' }).click();
    await page.getByText('Dispute recorded.').waitFor();
    await page.getByRole('cell', { name: 'ADR Games <i>x</i> operator', exact: true }).waitFor();
    await checkScreen(page, 'compliance');
    const { rows } = await api.pool.query(
      'SELECT acted_at, action FROM authority_orders WHERE authority = $1',
      [authority],
    );
    expect(rows[0].action).to.equal('Account suspended; chat kept for the authority.');
    await context.close();
  });

  it('notices: a moderator marks a dismissed notice manifestly unfounded on the page, and an admin denies its notifier’s complaint as unfounded; all as text', async () => {
    const tag = `N-<img src=x onerror="window.__xss=1">${uid()}`;
    const serviceId = await player(tag);
    const sent = await fetch(`${api.url}/v1/notices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        gameId: tenant.game.id,
        player: serviceId,
        category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
        explanation: 'Sold fake items <script>window.__xss=2</script> in the trade chat.',
        name: 'Console Notifier',
        email: `console-${uid()}@example.org`,
        goodFaith: true,
      }),
    });
    expect(sent.status).to.equal(201);
    const receipt = (await sent.json()) as { noticeId: string; secret: string };
    const caseId = await noticeCase(api.pool, receipt.noticeId);
    for (const step of ['claim', 'resolve'])
      await fetch(`${api.url}/v1/admin/cases/${caseId}/${step}`, {
        method: 'POST',
        headers: { ...moderator.headers, 'content-type': 'application/json' },
        body:
          step === 'resolve' ? JSON.stringify({ outcome: 'dismissed', note: 'no trade took place' }) : '{}',
      });
    const complained = await fetch(`${api.url}/v1/notices/${receipt.noticeId}/complaint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'notice-secret': receipt.secret },
      body: JSON.stringify({ statement: 'They did <b onmouseover="window.__xss=3">sell</b> it.' }),
    });
    expect(complained.status).to.equal(201);

    const { context, page } = await signedIn(admin);
    await page.getByRole('link', { name: 'Notices' }).click();
    await page.getByRole('heading', { name: 'Notices', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: tag });
    await row.getByRole('cell', { name: 'no action', exact: true }).waitFor();
    await checkScreen(page, 'notices');
    await row.getByRole('button', { name: `Mark unfounded: ${tag}` }).click();
    await page.getByLabel('Why (audited; never shown to the notifier)').fill('No trade logs at all.');
    await page.getByRole('button', { name: 'Mark', exact: true }).click();
    await page.getByText('Marked manifestly unfounded (1 marks against its sender).').waitFor();
    await row.getByRole('cell', { name: 'no action, marked manifestly unfounded' }).waitFor();

    // The complaint, from its link: the notifier's words as text; denied as unfounded, a second mark.
    await row.getByRole('link', { name: 'open' }).click();
    await page
      .getByRole('heading', { name: new RegExp(`^A notifier's complaint about a notice on`) })
      .waitFor();
    await page.getByText('They did <b onmouseover="window.__xss=3">sell</b> it.').waitFor();
    await page.getByRole('heading', { name: 'The notice, and its dismissal' }).waitFor();
    // A person's notice about the studio's game, never "filed by" the studio (issue 49).
    const notice = page.getByRole('region', { name: 'The notice, and its dismissal' });
    await notice
      .getByText(/a notice from a member of the public \(DSA Art\. 16\) about a game of Console Studio/)
      .waitFor();
    expect(await notice.textContent()).to.not.include('filed by');
    await checkScreen(page, 'complaint');
    await page.getByLabel('Deny').check();
    await page.getByLabel(/Manifestly unfounded/).check();
    await page.getByLabel('Note (required)').fill('The trade log is empty.');
    await page.getByRole('button', { name: 'Decide' }).click();
    await page.getByText('Appeal denied.').waitFor();
    const { rows } = await api.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM misuse_marks m JOIN notices n ON m.sender_key = n.sender_key WHERE n.id = $1`,
      [receipt.noticeId],
    );
    expect(rows[0]!.n).to.equal(2);
    expect(await page.evaluate('typeof window.__xss')).to.equal('undefined');
    await context.close();
  });

  it('a claim made in another browser shows in the queue within seconds', async () => {
    const serviceId = await player();
    const { caseId } = await cheat(serviceId);
    const watcher = await signedIn(admin);
    await watcher.page.goto(`${api.url}/console?player=${serviceId}`);
    const claimCell = watcher.page.locator(`tr[data-case-id="${caseId}"] td.claim`);
    await claimCell.filter({ hasText: '—' }).waitFor();
    const other = await signedIn(moderator);
    await other.page.goto(`${api.url}/console/cases/${caseId}`);
    await other.page.getByRole('button', { name: 'Claim (c)' }).click();
    await other.page.getByTestId('claim').filter({ hasText: 'you' }).waitFor();
    await claimCell.filter({ hasText: moderator.username }).waitFor({ timeout: 6000 });
    await watcher.context.close();
    await other.context.close();
  });

  it('decides an appeal', async () => {
    const serviceId = await player();
    const { offenseId } = await cheat(serviceId);
    const filed = await fetch(`${api.url}/v1/player/${serviceId}/appeals`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ offenseId, reason: 'incorrect', statement: 'It was my brother.' }),
    });
    expect(filed.status).to.equal(201);
    const appealId = ((await filed.json()) as { id: string }).id;
    const { context, page } = await signedIn(admin);
    await page.getByRole('tab', { name: /Appeals/ }).click();
    // The list names the player by gamer tag (its link), with the serviceId beside it, and the
    // reason in the player's words.
    const row = page.getByRole('row').filter({ hasText: serviceId });
    await row.getByText('The decision is wrong: I did not do this').waitFor();
    await row.getByRole('link').click();
    await page.waitForURL(`**/console/appeals/${appealId}`);
    await page.getByText('It was my brother.').waitFor();
    // What is appealed, without leaving the screen: the offense as filed, by which studio, the state
    // of the decision behind it, and the player's latest offenses.
    const gamerTag = (
      await api.pool.query<{ gamer_tag: string }>('SELECT gamer_tag FROM players WHERE service_id = $1', [
        serviceId,
      ])
    ).rows[0]!.gamer_tag;
    await page.getByRole('heading', { name: `Appeal of an offense by ${gamerTag}, open` }).waitFor();
    const subject = page.getByRole('region', { name: 'What is appealed' });
    await subject.getByText('wallhack').waitFor();
    await subject.getByText(/filed by Console Studio/).waitFor();
    await subject.getByText('Its review case is still open.').waitFor();
    await page
      .getByRole('table', { name: 'Latest offenses of the player' })
      .getByRole('row')
      .nth(1)
      .waitFor();
    await checkScreen(page, 'appeal');
    // c claims the appeal, as it claims a case.
    await page.keyboard.press('c');
    await page.getByRole('button', { name: 'Renew claim (c)' }).waitFor();
    await page.getByLabel(/^Grant/).check();
    await page.getByLabel('Note (required)').fill('Shared account; first offense.');
    await page.getByRole('button', { name: 'Decide' }).click();
    await page.getByRole('heading', { name: /granted/ }).waitFor();
    const { rows } = await api.pool.query<{ status: string }>('SELECT status FROM appeals WHERE id = $1', [
      appealId,
    ]);
    expect(rows[0]!.status).to.equal('granted');
    await page.goto(`${api.url}/console/appeals`);
    await page.getByRole('heading', { name: 'Appeals' }).waitFor();
    await checkScreen(page, 'appeals');
    await page.goto(`${api.url}/console/stats`);
    await page.getByRole('heading', { name: 'Stats' }).waitFor();
    await checkScreen(page, 'stats');
    await page.goto(`${api.url}/console/audit`);
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page
      .getByText(/^Granted an appeal/)
      .first()
      .waitFor();
    // Filtered by names a moderator knows, and read in names: who, about whom, the score it moved.
    await page.getByLabel('Player').fill(serviceId);
    await page.getByLabel('Moderator').fill(admin.username);
    // The header, the claim and the decision, once the filter (applied a moment after typing) holds.
    await eventually('the filtered log', async () => (await page.getByRole('row').count()) === 3);
    const decided = page.getByRole('row', { name: /Granted an appeal/ });
    await decided.getByRole('cell', { name: admin.username, exact: true }).waitFor();
    await decided.getByRole('link', { name: new RegExp(gamerTag) }).waitFor();
    const score = await decided.getByRole('cell', { name: /→/ }).textContent();
    const [before, after] = score!.split('→').map((n) => Number(n.trim()));
    expect(after! - before!).to.be.greaterThan(0);
    await checkScreen(page, 'audit');
    await context.close();
  });

  it('an appeal of an upheld case shows the ban that came with it; granted, the moderator keeps the ban and says why', async () => {
    const serviceId = await player();
    const { offenseId, caseId } = await cheat(serviceId);
    const post = (url: string, body: object) =>
      fetch(`${api.url}${url}`, {
        method: 'POST',
        headers: { ...moderator.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post(`/v1/admin/cases/${caseId}/claim`, {})).status).to.equal(200);
    const upheld = await post(`/v1/admin/cases/${caseId}/resolve`, {
      outcome: 'upheld',
      note: 'wallhack on the replay',
      sanction: { type: 'temporary_ban', reason: 'Cheating confirmed.', durationSeconds: 7 * 86_400 },
    });
    expect(upheld.status, await upheld.text()).to.equal(200);
    const filed = await fetch(`${api.url}/v1/player/${serviceId}/appeals`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ offenseId, reason: 'compromised_account', statement: 'My account was stolen.' }),
    });
    const appealId = ((await filed.json()) as { id: string }).id;
    const { context, page } = await signedIn(admin);
    await page.goto(`${api.url}/console/appeals/${appealId}`);
    await page.getByText('Someone else used my account').waitFor();
    const undo = page.getByRole('group', { name: 'What granting undoes' });
    await undo.getByText(/The strike of its case is removed/).waitFor();
    const keepBan = undo.getByLabel(
      new RegExp(
        `^Keep: Temporary ban, every game, until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC, placed by ${moderator.username}$`,
      ),
    );
    await keepBan.waitFor();
    await page.getByLabel(/^Grant/).check();
    await keepBan.check();
    await page
      .getByLabel('Why it stays (the player reads this)')
      .fill('The ban rests on two other matches too.');
    await page.getByLabel('Note (required)').fill('This report was a mistake; the ban stands on the others.');
    await checkScreen(page, 'appeal-undo');
    await page.getByRole('button', { name: 'Decide' }).click();
    await page.getByRole('heading', { name: /granted/ }).waitFor();
    await page.getByText(/Sanctions revoked: 0; kept in force: 1/).waitFor();
    const { rows } = await api.pool.query<{ revoked: boolean; kept: unknown }>(
      `SELECT s.revoked_at IS NOT NULL AS revoked, a.sanctions_kept AS kept
         FROM sanctions s, appeals a WHERE s.case_id = $1 AND a.id = $2`,
      [caseId, appealId],
    );
    expect(rows).to.have.length(1);
    expect(rows[0]!.revoked).to.equal(false);
    expect(rows[0]!.kept).to.deep.equal([
      {
        sanctionId: (await api.pool.query('SELECT id FROM sanctions WHERE case_id = $1', [caseId])).rows[0]
          .id,
        reason: 'The ban rests on two other matches too.',
      },
    ]);
    await context.close();
  });

  it('says so, as an alert, when a case, a player or an appeal does not exist', async () => {
    const { context, page } = await signedIn(moderator);
    for (const [route, words] of [
      [`/console/cases/${crypto.randomUUID()}`, 'No such case.'],
      [`/console/players/nobody-${uid()}`, 'No such player.'],
      [`/console/appeals/${crypto.randomUUID()}`, 'No such appeal.'],
    ]) {
      await page.goto(`${api.url}${route!}`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect((await alert.textContent())?.trim(), route).to.equal(words);
    }
    await context.close();
  });

  it('a moderator (not an admin) sees no audit screen, and the API refuses it if forced', async () => {
    const { context, page } = await signedIn(moderator);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).to.equal(0);
    await page.goto(`${api.url}/console/audit`);
    await page.getByText('There is nothing here').waitFor();
    const status = await page.evaluate(async () => (await fetch('/v1/admin/audit')).status);
    expect(status).to.equal(403);
    await context.close();
  });

  it('renders every attacker-controlled string as text: nothing runs and no request leaves', async () => {
    const serviceId = await player(`${XSS}tag`);
    const { offenseId, caseId } = await report(serviceId, 'toxicity', {
      isToxic: true,
      severity: 'high',
      category: 'harassment',
      description: `${XSS}<script>window.__xss=2</script>`,
      messages: [XSS, '<svg onload="window.__xss=3">'],
      reporterId: `<b onmouseover="window.__xss=4">${XSS}</b>`,
      matchId: '"><iframe src="javascript:window.__xss=5">',
      evidence: [
        { type: 'text', content: `<script>window.__xss=6</script>${XSS}` },
        { type: 'video', url: 'https://evil.example/clip.mp4' },
      ],
    });
    // The API refuses javascript: URLs at intake; one stored anyway (older data, another path)
    // must still never become a link.
    await api.pool.query(
      `UPDATE offenses SET evidence = evidence || '[{"type": "screenshot", "url": "javascript:window.__xss=7"}]'::jsonb
        WHERE id = $1`,
      [offenseId],
    );
    await fetch(`${api.url}/v1/player/${serviceId}/appeals`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ offenseId, reason: 'unfair', statement: `${XSS} javascript:alert(1)` }),
    });
    const { context, page } = await signedIn(admin);
    const outside: string[] = [];
    const dialogs: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(api.url)) outside.push(r.url());
    });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${api.url}/console?player=${serviceId}`);
    await page.locator(`tr[data-case-id="${caseId}"]`).getByText(`${XSS}tag`).waitFor();
    await page.goto(`${api.url}/console/cases/${caseId}`);
    await page.getByText(`${XSS}<script>window.__xss=2</script>`).waitFor();
    await page.getByText('javascript:window.__xss=7').waitFor();
    await page.getByText('Report details').click();
    await page.getByText('<svg onload="window.__xss=3">', { exact: false }).first().waitFor();
    await page.hover('text=onmouseover').catch(() => undefined);
    expect(await page.locator('a[href^="javascript:"]').count()).to.equal(0);
    expect(await page.locator('main img, main iframe, main script, main svg[onload]').count()).to.equal(0);
    const link = page.getByRole('link', { name: /evil\.example/ });
    expect(await link.getAttribute('rel')).to.equal('noopener noreferrer nofollow');
    await page.goto(`${api.url}/console/players/${serviceId}`);
    await page.getByRole('heading', { name: `Player ${XSS}tag` }).waitFor();
    await page.goto(`${api.url}/console/appeals`);
    await page.getByRole('row').filter({ hasText: serviceId }).getByRole('link').click();
    await page.getByText(`${XSS} javascript:alert(1)`).waitFor();
    // The appeal screen shows the appealed offense in full and the gamer tag in its title: as text.
    await page
      .getByRole('region', { name: 'What is appealed' })
      .getByText(`${XSS}<script>window.__xss=2</script>`)
      .waitFor();
    await page
      .getByRole('heading', { name: new RegExp(`by ${XSS.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}tag`) })
      .waitFor();
    expect(await page.locator('a[href^="javascript:"]').count()).to.equal(0);
    expect(await page.locator('main img, main iframe, main script, main svg[onload]').count()).to.equal(0);
    expect(await page.evaluate('window.__xss')).to.equal(undefined);
    expect(dialogs).to.deep.equal([]);
    expect(outside).to.deep.equal([]);
    await context.close();
  });

  it("shows a player's linked accounts, as text, and extends a ban in force to the strongly linked one (issue 53)", async () => {
    const main = await player(`<b>Main-${uid()}</b>`);
    const alt = await player(`<i>Alt-${uid()}</i>`);
    const device = `HW-${uid()}`;
    for (const serviceId of [main, alt]) {
      const res = await fetch(`${api.url}/v1/player/${serviceId}/signals`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ signals: [{ kind: 'hardware_id', value: device }] }),
      });
      expect(res.status).to.equal(200);
    }
    const ban = await fetch(`${api.url}/v1/admin/players/${main}/sanctions`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'temporary_ban', durationSeconds: 86_400, reason: 'Aimbot.' }),
    });
    expect(ban.status).to.equal(201);
    const { context, page } = await signedIn(admin);
    try {
      await page.goto(`${api.url}/console/players/${main}`);
      const section = page.getByRole('region', { name: 'Linked accounts' });
      await section.getByRole('cell', { name: /0\.90 \(strong\)/ }).waitFor();
      // The other account's gamer tag is text, never markup.
      expect(await section.locator('i').count()).to.equal(0);
      expect(await section.getByRole('link', { name: /<i>Alt-/ }).count()).to.equal(1);
      // The picture beside the list: the other account by its tag, as text, its line strong.
      const picture = section.getByRole('img', { name: "This player's linked accounts" });
      await picture.waitFor();
      const altTag = (await section.getByRole('link', { name: /<i>Alt-/ }).textContent())!;
      expect(altTag).to.match(/^<i>Alt-.*<\/i>$/);
      expect(await picture.locator('text.label').allTextContents()).to.deep.equal(['this player', altTag]);
      expect(await picture.locator('line.edge.strong').count()).to.equal(1);
      expect(await picture.locator('circle.node.banned').count(), 'the alt is not banned yet').to.equal(0);
      await checkScreen(page, 'player-linked-accounts');
      await section
        .getByRole('button', { name: /Extend the temporary ban to the 1 strongly linked account/ })
        .click();
      await section
        .getByRole('status')
        .filter({ hasText: `Placed a temporary ban on ${alt}` })
        .waitFor();
      const placed = await api.pool.query(
        `SELECT 1 FROM sanctions s JOIN players p ON p.id = s.player_id WHERE p.service_id = $1 AND s.extended_from IS NOT NULL`,
        [alt],
      );
      expect(placed.rowCount).to.equal(1);
      // Extended, the alt is drawn as banned.
      await picture.locator('circle.node.banned').waitFor();
    } finally {
      await context.close();
    }
  });
});
