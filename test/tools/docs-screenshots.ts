/**
 * The README's console walkthrough screenshots (docs/console-*.png), made from a fresh database with
 * readable demo data: a studio, players, reports of each kind, queues and rules, templates, notes, a
 * decided case and an appeal. `npm run docs:screenshots`; needs Chromium (as the browser tests). It
 * sits beside the tests because it starts its services with their helpers; the production build
 * (tsconfig.build.json) leaves it out.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { createModerator } from '../../common/usecases/moderation.js';
import { provisionGame, provisionStudio } from '../../common/usecases/provisioning.js';
import { caseOfOffense, moderatorHeaders, startTestApi, TEST_PEPPER } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { ownDatabase } from '../helpers/services.js';
import { startTestWorker } from '../helpers/workers.js';

const DOCS = path.resolve('docs');

async function main() {
  await ensureConsoleBuilt();
  const db = await ownDatabase('docs');
  const api = await startTestApi({ DATABASE_URL: db.url });
  const review = await startTestWorker(api.config, 'review');
  const browser = await launchChromium();
  try {
    const studio = await provisionStudio(api.pool, { name: 'Northwind Games' });
    const game = await provisionGame(api.pool, TEST_PEPPER, {
      studioId: studio.id,
      title: 'Skyfall Arena',
      redirectUris: ['https://skyfall.example/callback'],
    });
    const other = await provisionStudio(api.pool, { name: 'Bluefin Studio' });
    await provisionGame(api.pool, TEST_PEPPER, {
      studioId: other.id,
      title: 'Tidebreak',
      redirectUris: ['https://tidebreak.example/callback'],
    });
    const studioHeaders = { client_id: game.clientId, client_secret: game.clientSecret };
    const password = 'a long moderator password';
    await createModerator(api.pool, { username: 'sam', displayName: 'Sam Okafor', role: 'admin', password });
    await createModerator(api.pool, {
      username: 'ana',
      displayName: 'Ana Lima',
      role: 'moderator',
      password,
    });
    const sam = await moderatorHeaders(api.url, 'sam', password);
    const ana = await moderatorHeaders(api.url, 'ana', password);

    const send = async <T = unknown>(
      method: string,
      url: string,
      headers: Record<string, string>,
      body?: unknown,
    ): Promise<T> => {
      const res = await fetch(`${api.url}${url}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (res.status === 204 ? undefined : await res.json()) as T;
    };
    const report = async (serviceId: string, kind: string, body: object) => {
      const res = await send('POST', `/v1/${kind}/submitReport/${serviceId}`, studioHeaders, {
        report: body,
      });
      const offenseId = (res as { report: { _id: string } }).report._id;
      return { offenseId, caseId: await caseOfOffense(api.pool, offenseId) };
    };

    // Queues and rules first, so the cases are routed as they are filed.
    await send('POST', '/v1/admin/queues', sam, {
      key: 'cheating-high',
      name: 'Cheating: high and critical',
      description: 'Anti-cheat findings a ban may follow.',
    });
    await send('POST', '/v1/admin/queues', sam, {
      key: 'senior',
      name: 'Senior review',
      description: 'Threats, legal and press: admins only.',
      visibleTo: 'admin',
    });
    await send('POST', '/v1/admin/queues', sam, {
      key: 'chat',
      name: 'Chat and conduct',
      description: 'Toxicity and griefing reports.',
    });
    await send('PUT', '/v1/admin/queue-rules', sam, {
      rules: [
        { queue: 'cheating-high', types: ['cheating'], minSeverity: 'high' },
        { queue: 'chat', types: ['toxicity', 'griefing'] },
      ],
    });
    await send('POST', '/v1/admin/templates', sam, {
      title: 'Aimbot: 7-day ban',
      outcome: 'upheld',
      sanctionType: 'temporary_ban',
      durationSeconds: 7 * 86_400,
      playerReason: 'Our anti-cheat and a moderator found aim assistance software in your matches.',
    });
    await send('POST', '/v1/admin/templates', sam, {
      title: 'No evidence',
      outcome: 'dismissed',
      playerReason: 'The reports against you were not supported by the evidence.',
    });

    const players: Record<string, string> = {};
    for (const [tag, name] of [
      ['Nightowl', 'Sam Reyes'],
      ['Vexa', 'Mira Chen'],
      ['Marlow', 'Jon Marlow'],
      ['Quillfire', 'Ada Quill'],
      ['Brisk', 'Leo Brisk'],
    ]) {
      const p = (await send('POST', '/v1/players', studioHeaders, {
        serviceId: `nw-${tag!.toLowerCase()}`,
        gamerTag: tag,
        fullName: name,
      })) as { serviceId: string };
      players[tag!] = p.serviceId;
    }
    const aimbot = await report(players.Nightowl!, 'anticheat', {
      isCheatDetected: true,
      severity: 'critical',
      type: 'aimbot',
      confidence: 0.94,
      description: 'Snap-to-head on 14 of 16 kills; flick speed beyond human range.',
      matchId: 'match-88213',
      logs: ['t=12.4 target lock 0.9ms', 't=13.1 target lock 0.8ms'],
      evidence: [{ type: 'video', url: 'https://clips.skyfall.example/88213.mp4' }],
      reporterId: 'anticheat-v7',
      source: 'anticheat_system',
    });
    await report(players.Nightowl!, 'anticheat', {
      isCheatDetected: true,
      severity: 'high',
      type: 'aimbot',
      confidence: 0.81,
      matchId: 'match-88240',
      reporterId: 'player-5521',
      source: 'player',
    });
    await report(players.Vexa!, 'toxicity', {
      isToxic: true,
      severity: 'high',
      category: 'threats',
      messages: ['I know where you live', 'watch yourself'],
      reporterId: 'player-9001',
    });
    await report(players.Marlow!, 'griefing', {
      isGriefing: true,
      severity: 'medium',
      affectedPlayers: 4,
      incidents: [{ severity: 'medium', description: 'Blocked the spawn door for the whole round' }],
      reporterId: 'player-4410',
    });
    const afk = await report(players.Quillfire!, 'afk', {
      isAfk: true,
      afkDurationSeconds: 420,
      matchDurationSeconds: 1500,
      reporterId: 'server-eu-3',
      source: 'game_server',
    });
    const wallhack = await report(players.Brisk!, 'anticheat', {
      isCheatDetected: true,
      severity: 'medium',
      type: 'wallhack',
      confidence: 0.55,
      reporterId: 'player-7310',
    });

    // Team work on them: a note and a tag, a move to the senior queue, one dismissal.
    await send('POST', `/v1/admin/cases/${aimbot.caseId}/notes`, ana, {
      body: 'Second report from another match an hour later; same pattern. Checking the replay.',
    });
    await send('POST', `/v1/admin/cases/${aimbot.caseId}/tags`, ana, { tag: 'replay-checked' });
    const vexaCase = (await send('GET', `/v1/admin/cases?player=Vexa`, sam)) as { items: { id: string }[] };
    await send('POST', `/v1/admin/cases/${vexaCase.items[0]!.id}/escalate`, ana, {
      note: 'A threat of violence: senior call.',
      queue: 'senior',
    });
    await send('POST', `/v1/admin/cases/${afk.caseId}/claim`, ana);
    await send('POST', `/v1/admin/cases/${afk.caseId}/resolve`, ana, {
      outcome: 'dismissed',
      note: 'Disconnected by a server fault at 06:10 (status page).',
    });
    await send('POST', `/v1/admin/cases/${wallhack.caseId}/claim`, sam);
    await send('POST', `/v1/admin/cases/${wallhack.caseId}/resolve`, sam, {
      outcome: 'upheld',
      note: 'Tracked enemies through walls in the replay.',
    });
    const appeal = (await send('POST', `/v1/player/${players.Brisk}/appeals`, studioHeaders, {
      offenseId: wallhack.offenseId,
      reason: 'incorrect',
      statement: 'I was spectating my friend, not playing: the account was shared that evening.',
    })) as { id: string };

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await page.goto(`${api.url}/console`);
    await page.getByLabel('Username').fill('sam');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    const shoot = async (name: string, ready: (p: Page) => Promise<unknown>, fullPage = false) => {
      await ready(page);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(DOCS, `${name}.png`), fullPage });
      console.log(`docs/${name}.png`);
    };
    await shoot('console-queue', (p) => p.getByText('Nightowl').first().waitFor());
    await page.goto(`${api.url}/console/cases/${aimbot.caseId}`);
    await shoot('console-case', (p) => p.getByText('Snap-to-head', { exact: false }).first().waitFor(), true);
    await page.goto(`${api.url}/console/queues`);
    await shoot('console-queues', (p) => p.getByText('cheating, high or worse').first().waitFor());
    await page.goto(`${api.url}/console/players/${players.Nightowl}`);
    await shoot('console-player', (p) =>
      p
        .getByRole('heading', { name: /Nightowl/ })
        .first()
        .waitFor(),
    );
    await page.goto(`${api.url}/console/appeals/${appeal.id}`);
    await shoot('console-appeal', (p) => p.getByText('I was spectating', { exact: false }).waitFor());
    await page.goto(`${api.url}/console/stats`);
    await shoot('console-stats', (p) => p.getByText('Senior review').first().waitFor());
    await context.close();
  } finally {
    await browser.close();
    await review.stop();
    await api.close();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
