import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { type Browser } from 'playwright-core';
import { provisionGame, provisionStudio } from '../../common/usecases/provisioning.js';
import { createTestPlayer, startTestApi, TEST_PEPPER, type TestApi } from '../helpers/app.js';
import { chromiumOrSkip, launchChromium } from '../helpers/browser.js';

describe('OAuth through the real page in headless Chromium', function () {
  this.timeout(60_000);
  let api: TestApi;
  let browser: Browser;
  let callback: http.Server;
  let received: URL[];

  before(async function () {
    chromiumOrSkip(this);
    api = await startTestApi();
    received = [];
    callback = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://127.0.0.1');
      if (url.pathname === '/callback') received.push(url); // not the browser's favicon request
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>Game</title><p>Signed in; you can close this window.</p>');
    });
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    callback?.close();
    await api?.close();
  });

  it('a player signs in with the keyboard, allows the game, and the game exchanges the code for their profile', async () => {
    const redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const studio = await provisionStudio(api.pool, { name: 'Browser Studio' });
    const game = await provisionGame(api.pool, TEST_PEPPER, {
      studioId: studio.id,
      title: 'Browser Quest',
      redirectUris: [redirectUri],
      requirePkce: true,
    });
    const player = await createTestPlayer(api.pool);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL('/v1/oauth/authorize', api.url);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: game.clientId,
      redirect_uri: redirectUri,
      state,
      scope: 'profile',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const page = await browser.newPage();
    await page.goto(url.toString());
    expect(await page.title()).to.equal('Sign in to Browser Quest');
    // Labelled inputs, filled by label the way assistive technology finds them; submitted with Enter.
    await page.getByLabel('Gamer tag', { exact: true }).first().fill(player.gamerTag);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await Promise.all([
      page.waitForURL((u) => u.pathname === '/callback'),
      page.getByLabel('Password', { exact: true }).press('Enter'),
    ]);
    await page.close();

    expect(received).to.have.length(1);
    const callbackUrl = new URL(received[0]!.pathname + received[0]!.search, redirectUri);
    const issuer = new URL(api.url);
    const as = await oauth
      .discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true })
      .then((r) => oauth.processDiscoveryResponse(issuer, r));
    const client = { client_id: game.clientId };
    const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(game.clientSecret),
      params,
      redirectUri,
      verifier,
      { [oauth.allowInsecureRequests]: true },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    const me = await fetch(`${api.url}/v1/player/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, client_secret: game.clientSecret },
    });
    expect(me.status).to.equal(200);
    expect(await me.json()).to.include({ serviceId: player.serviceId, gamerTag: player.gamerTag });
  });
});
