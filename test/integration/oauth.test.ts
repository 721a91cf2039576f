import crypto from 'node:crypto';
import { expect } from 'chai';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { issueAuthorizationCode } from '../../common/usecases/oauth.js';
import { provisionGame } from '../../common/usecases/provisioning.js';
import {
  createTenant,
  createTestPlayer,
  startTestApi,
  TEST_PEPPER,
  testSigningKey,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { submitConsent } from '../helpers/oauth.js';

const REDIRECT = 'https://game.example/callback';
const PASSWORD = 'correct horse battery';

describe('OAuth 2.0', () => {
  let api: TestApi;
  let now: number;
  let tenant: Tenant;
  let as: oauth.AuthorizationServer;

  before(async () => {
    now = Date.now();
    api = await startTestApi({}, { clock: () => new Date(now) });
    tenant = await createTenant(api.pool, 'OAuth');
    const issuer = new URL(api.url);
    as = await oauth
      .discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true })
      .then((r) => oauth.processDiscoveryResponse(issuer, r));
  });
  after(() => api.close());
  afterEach(() => {
    now = Date.now();
  });

  const authorizeUrl = (params: Record<string, string | undefined>) => {
    const url = new URL('/v1/oauth/authorize', api.url);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: tenant.game.clientId,
      redirect_uri: REDIRECT,
      ...params,
    }))
      if (v !== undefined) url.searchParams.set(k, v);
    return url.toString();
  };

  /** Signs a player in on the page (with PKCE) and returns the code, verifier and player. */
  async function getCode(opts: { player?: { gamerTag: string }; game?: Tenant } = {}) {
    const player = opts.player ?? (await createTestPlayer(api.pool));
    const game = opts.game ?? tenant;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const res = await submitConsent(
      authorizeUrl({
        client_id: game.game.clientId,
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
      { decision: 'approve', gamer_tag: player.gamerTag, password: PASSWORD },
    );
    expect(res.status, res.html).to.equal(303);
    const location = new URL(res.location!);
    expect(location.searchParams.get('state')).to.equal(state);
    return {
      code: location.searchParams.get('code')!,
      verifier,
      player: player as { gamerTag: string; serviceId?: string },
    };
  }

  const tokenRequest = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    call<Record<string, string>>(api.url, 'POST', '/v1/oauth/token', {
      json: body,
      headers,
      spec: '/v1/oauth/token',
    });

  /** The spec's JSON token request for a code (and verifier) of this test's game. */
  const redeem = (
    code: string,
    verifier: string,
    extra: Record<string, string> = {},
    game: Tenant = tenant,
  ) =>
    tokenRequest({
      grant_type: 'authorization_code',
      code,
      client_id: game.game.clientId,
      client_secret: game.game.clientSecret,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...extra,
    });

  const expectOAuthError = (
    res: { status: number; body: Record<string, string>; headers: Headers },
    status: number,
    error: string,
  ) => {
    expect(res.status).to.equal(status);
    expect(res.body.error).to.equal(error);
    expect(res.body.error_description).to.be.a('string');
    expect(res.body.code).to.equal(error);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
  };

  const me = (token: string, secret = tenant.game.clientSecret) =>
    call(api.url, 'GET', '/v1/player/me', {
      headers: { authorization: `Bearer ${token}`, client_secret: secret },
      spec: '/v1/player/me',
    });

  describe('the whole flow with a standard client library (oauth4webapi, PKCE)', () => {
    it('authorize page, sign-in, consent, redirect, code exchange, logged-in profile', async () => {
      const player = await createTestPlayer(api.pool);
      const client: oauth.Client = { client_id: tenant.game.clientId };
      const clientAuth = oauth.ClientSecretBasic(tenant.game.clientSecret);
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'profile',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();

      const consent = await submitConsent(url.toString(), {
        decision: 'approve',
        gamer_tag: player.gamerTag,
        password: PASSWORD,
      });
      expect(consent.status).to.equal(303);
      expect(consent.location!.startsWith(`${REDIRECT}?`)).to.equal(true);

      const params = oauth.validateAuthResponse(as, client, new URL(consent.location!), state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        REDIRECT,
        verifier,
        {
          [oauth.allowInsecureRequests]: true,
        },
      );
      expect(response.headers.get('cache-control')).to.equal('no-store');
      const result = await oauth.processAuthorizationCodeResponse(as, client, response);
      expect(result.token_type).to.equal('bearer');
      expect(result.expires_in).to.equal(3600);

      const claims = decodeJwt(result.access_token);
      expect(claims).to.include({
        iss: as.issuer,
        aud: tenant.game.clientId,
        sub: player.serviceId,
        scope: 'profile',
      });
      expect(claims.exp! - claims.iat!).to.equal(3600);
      expect(claims.jti).to.be.a('string');
      expect(decodeProtectedHeader(result.access_token)).to.include({
        alg: 'ES256',
        kid: (await testSigningKey()).kid,
      });

      const profile = await me(result.access_token);
      expect(profile.status).to.equal(200);
      const byId = await call(api.url, 'GET', `/v1/player/${player.serviceId}`, {
        headers: tenant.headers,
        spec: '/v1/player/{serviceId}',
      });
      expect(profile.body).to.deep.equal(byId.body);
      expect((profile.body.games as { gameTitle: string }[]).map((g) => g.gameTitle)).to.deep.equal([
        tenant.game.title,
      ]);
    });

    it("accepts the spec's JSON body with the client credentials inside", async () => {
      const { code, verifier } = await getCode();
      const res = await redeem(code, verifier);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ token_type: 'Bearer', expires_in: 3600 as unknown as string });
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });

    it('creates an account on the page, links the game and issues a code for it', async () => {
      const tag = `new-${crypto.randomBytes(4).toString('hex')}`;
      const res = await submitConsent(
        authorizeUrl({ state: 's1' }),
        { decision: 'signup', full_name: 'New Player', gamer_tag: tag, password: 'a new password' },
        { form: 'signup' },
      );
      expect(res.status, res.html).to.equal(303);
      const code = new URL(res.location!).searchParams.get('code')!;
      const token = await tokenRequest({
        grant_type: 'authorization_code',
        code,
        client_id: tenant.game.clientId,
        client_secret: tenant.game.clientSecret,
        redirect_uri: REDIRECT,
      });
      expect(token.status).to.equal(200);
      const profile = await me(token.body.access_token!);
      expect(profile.body).to.include({ gamerTag: tag, fullName: 'New Player', trustScore: 100 });
    });
  });

  describe('token endpoint errors (RFC 6749 5.2)', () => {
    it('a replayed code is refused and every token issued from it stops working', async () => {
      const { code, verifier } = await getCode();
      const first = await redeem(code, verifier);
      expect(first.status).to.equal(200);
      expect((await me(first.body.access_token!)).status).to.equal(200);
      expectOAuthError(await redeem(code, verifier), 400, 'invalid_grant');
      const after = await me(first.body.access_token!);
      expect(after.status).to.equal(401);
      expect(after.headers.get('www-authenticate')).to.match(
        /^Bearer realm="player-trust", error="invalid_token"/,
      );
    });

    it('two simultaneous redemptions of one code: exactly one succeeds', async () => {
      const { code, verifier } = await getCode();
      const results = await Promise.all([
        redeem(code, verifier),
        redeem(code, verifier),
        redeem(code, verifier),
      ]);
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).to.have.length(2);
    });

    it('an expired code (10 minutes, on a controlled clock) is refused', async () => {
      const { code, verifier } = await getCode();
      now += 601_000;
      expectOAuthError(await redeem(code, verifier), 400, 'invalid_grant');
    });

    it("another client's code is refused", async () => {
      const other = await createTenant(api.pool, 'Thief');
      const { code, verifier } = await getCode();
      expectOAuthError(await redeem(code, verifier, {}, other), 400, 'invalid_grant');
      // and it is used up for its own client too: a stolen code gets no second try
      expectOAuthError(await redeem(code, verifier), 400, 'invalid_grant');
    });

    it('a wrong redirect URI, a wrong verifier or a missing verifier is refused', async () => {
      const a = await getCode();
      expectOAuthError(
        await redeem(a.code, a.verifier, { redirect_uri: 'https://game.example/other' }),
        400,
        'invalid_grant',
      );
      const b = await getCode();
      expectOAuthError(await redeem(b.code, oauth.generateRandomCodeVerifier()), 400, 'invalid_grant');
      const c = await getCode();
      const { code_verifier: _omit, ...noVerifier } = {
        grant_type: 'authorization_code',
        code: c.code,
        client_id: tenant.game.clientId,
        client_secret: tenant.game.clientSecret,
        redirect_uri: REDIRECT,
        code_verifier: '',
      };
      expectOAuthError(await tokenRequest(noVerifier), 400, 'invalid_grant');
    });

    it('a refused code is used up with no token recorded; a granted one records exactly its token', async () => {
      const player = await createTestPlayer(api.pool);
      const { rows: ids } = await api.pool.query<{ id: string }>(
        'SELECT id FROM players WHERE service_id = $1',
        [player.serviceId],
      );
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const other = await createTenant(api.pool, 'Refusals');
      const issue = (opts: { explicit?: boolean; challenge?: string | null; game?: Tenant } = {}) =>
        issueAuthorizationCode(api.pool, {
          gameId: (opts.game ?? tenant).game.id,
          playerId: ids[0]!.id,
          redirectUri: REDIRECT,
          redirectUriExplicit: opts.explicit ?? true,
          codeChallenge: opts.challenge === undefined ? challenge : opts.challenge,
          scope: 'profile',
          now: new Date(now),
        });
      const recorded = async (code: string) => {
        const { rows } = await api.pool.query<{ used: boolean; tokens: string[] }>(
          `SELECT c.used_at IS NOT NULL AS used,
                  coalesce(array_agg(t.jti::text) FILTER (WHERE t.jti IS NOT NULL), '{}') AS tokens
             FROM authorization_codes c LEFT JOIN access_tokens t ON t.code_hash = c.code_hash
            WHERE c.code_hash = sha256(convert_to($1, 'UTF8')) GROUP BY c.used_at`,
          [code],
        );
        return rows[0]!;
      };
      const cases: [string, Promise<string>, Record<string, string>, string][] = [
        ['another client', issue({ game: other }), {}, 'issued to another client'],
        ['no redirect_uri for an explicit one', issue(), { redirect_uri: '' }, 'redirect_uri does not match'],
        [
          'a wrong verifier',
          issue(),
          { code_verifier: oauth.generateRandomCodeVerifier() },
          'does not match',
        ],
        ['a malformed verifier', issue(), { code_verifier: 'short' }, 'does not match'],
        ['no verifier', issue(), { code_verifier: '' }, 'code_verifier is required'],
        ['a verifier without a challenge', issue({ challenge: null }), {}, 'had no code_challenge'],
      ];
      for (const [label, pending, extra, why] of cases) {
        const code = await pending;
        const body: Record<string, string> = {
          grant_type: 'authorization_code',
          code,
          client_id: tenant.game.clientId,
          client_secret: tenant.game.clientSecret,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          ...extra,
        };
        for (const [k, v] of Object.entries(extra)) if (v === '') delete body[k];
        const res = await tokenRequest(body);
        expect(res.status, label).to.equal(400);
        expect(res.body.error_description, label).to.contain(why);
        expect(await recorded(code), label).to.deep.equal({ used: true, tokens: [] });
      }
      // Granted: no explicit redirect URI (so it may be left out), no PKCE, and the expiry is exact.
      const code = await issue({ explicit: false, challenge: null });
      const res = await tokenRequest({
        grant_type: 'authorization_code',
        code,
        client_id: tenant.game.clientId,
        client_secret: tenant.game.clientSecret,
      });
      expect(res.status).to.equal(200);
      const claims = decodeJwt(res.body.access_token!);
      expect(await recorded(code)).to.deep.equal({ used: true, tokens: [claims.jti] });
      const { rows } = await api.pool.query<{ exp: string }>(
        'SELECT extract(epoch FROM expires_at)::bigint::text AS exp FROM access_tokens WHERE jti = $1',
        [claims.jti],
      );
      expect(Number(rows[0]!.exp)).to.equal(claims.exp);
    });

    it('unsupported grant types, missing fields and bad client credentials', async () => {
      expectOAuthError(
        await tokenRequest({
          grant_type: 'password',
          client_id: tenant.game.clientId,
          client_secret: tenant.game.clientSecret,
        }),
        400,
        'unsupported_grant_type',
      );
      expectOAuthError(await tokenRequest({ client_id: tenant.game.clientId }), 400, 'invalid_request');
      expectOAuthError(
        await tokenRequest({
          grant_type: 'authorization_code',
          client_id: tenant.game.clientId,
          client_secret: tenant.game.clientSecret,
        }),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await tokenRequest({
          grant_type: 'authorization_code',
          code: 'x',
          client_id: tenant.game.clientId,
          client_secret: 'wrong',
        }),
        401,
        'invalid_client',
      );
      const basic = await tokenRequest(
        { grant_type: 'authorization_code', code: 'x' },
        { authorization: `Basic ${Buffer.from(`${tenant.game.clientId}:wrong`).toString('base64')}` },
      );
      expectOAuthError(basic, 401, 'invalid_client');
      expect(basic.headers.get('www-authenticate')).to.match(/^Basic/);
      expectOAuthError(
        await tokenRequest({
          grant_type: 'authorization_code',
          code: 'never-issued',
          client_id: tenant.game.clientId,
          client_secret: tenant.game.clientSecret,
        }),
        400,
        'invalid_grant',
      );
    });
  });

  describe('GET /v1/player/me token checks (RFC 6750)', () => {
    let token: string;
    before(async () => {
      const { code, verifier } = await getCode();
      const res = await redeem(code, verifier);
      token = res.body.access_token!;
    });

    const expect401 = (res: { status: number; headers: Headers }, withError = true) => {
      expect(res.status).to.equal(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).to.match(/^Bearer realm="player-trust"/);
      if (withError) expect(challenge).to.include('error="invalid_token"');
      else expect(challenge).to.not.include('error=');
    };

    it('a good token without the client_secret header: told to send it', async () => {
      const res = await call<{ detail: string }>(api.url, 'GET', '/v1/player/me', {
        headers: { authorization: `Bearer ${token}` },
        spec: '/v1/player/me',
      });
      expect401(res);
      expect(res.body.detail).to.equal('send the client_secret header of the game this token was issued to');
    });

    it('no token: a plain Bearer challenge', async () => {
      expect401(
        await call(api.url, 'GET', '/v1/player/me', {
          headers: { client_secret: tenant.game.clientSecret },
          spec: '/v1/player/me',
        }),
        false,
      );
    });

    it('a malformed or tampered token', async () => {
      expect401(await me('not-a-jwt'));
      const [h, p, s] = token.split('.');
      const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url');
      expect401(await me(`${h}.${forged}.${s}`));
    });

    it('an alg "none" token', async () => {
      const claims = decodeJwt(token);
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
      expect401(await me(none));
    });

    it('a token signed by a key the service does not hold', async () => {
      const { generateKeyPair } = await import('jose');
      const { privateKey } = await generateKeyPair('ES256');
      const claims = decodeJwt(token);
      const foreign = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(token).kid!, typ: 'at+jwt' })
        .sign(privateKey);
      expect401(await me(foreign));
    });

    it('an expired token (controlled clock)', async () => {
      now += 3601_000;
      const res = await me(token);
      expect401(res);
      expect(res.headers.get('www-authenticate')).to.include('expired');
    });

    it("another client's secret (a token used by a client it was not issued to)", async () => {
      const other = await createTenant(api.pool, 'Other');
      expect401(await me(token, other.game.clientSecret));
    });

    it('a token for another audience signed with our own key is refused for that audience', async () => {
      const other = await createTenant(api.pool, 'Aud');
      const key = await importJWK(await testSigningKey(), 'ES256');
      const claims = decodeJwt(token);
      const retargeted = await new SignJWT({ ...claims, aud: other.game.clientId })
        .setProtectedHeader({ alg: 'ES256', kid: (await testSigningKey()).kid!, typ: 'at+jwt' })
        .sign(key);
      // The audience now names the other game, so only its secret could go with it; ours is refused.
      expect401(await me(retargeted, tenant.game.clientSecret));
    });
  });

  describe('the authorization page', () => {
    it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
      for (const url of [
        authorizeUrl({ client_id: 'gm_unknown' }),
        authorizeUrl({ redirect_uri: 'https://evil.example/cb' }),
      ]) {
        const res = await call(api.url, 'GET', new URL(url).pathname + new URL(url).search, {
          spec: '/v1/oauth/authorize',
        });
        expect(res.status).to.equal(400);
        expect(res.headers.get('location')).to.equal(null);
        expect(res.headers.get('content-type')).to.match(/^text\/html/);
      }
    });

    it('redirects protocol errors back with state', async () => {
      const res = await fetch(authorizeUrl({ response_type: 'token', state: 'xyz' }), { redirect: 'manual' });
      expect(res.status).to.equal(302);
      const loc = new URL(res.headers.get('location')!);
      expect(loc.searchParams.get('error')).to.equal('unsupported_response_type');
      expect(loc.searchParams.get('state')).to.equal('xyz');
      const plain = await fetch(
        authorizeUrl({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }),
        { redirect: 'manual' },
      );
      expect(new URL(plain.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('requires PKCE for a client registered with it', async () => {
      const game = await provisionGame(api.pool, TEST_PEPPER, {
        studioId: tenant.studioId,
        title: 'PKCE only',
        redirectUris: [REDIRECT],
        requirePkce: true,
      });
      const res = await fetch(authorizeUrl({ client_id: game.clientId }), { redirect: 'manual' });
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('denial redirects with error=access_denied and the state', async () => {
      const res = await submitConsent(authorizeUrl({ state: 'deny-state' }), { decision: 'deny' });
      expect(res.status).to.equal(303);
      const loc = new URL(res.location!);
      expect(loc.searchParams.get('error')).to.equal('access_denied');
      expect(loc.searchParams.get('state')).to.equal('deny-state');
      expect(loc.searchParams.get('code')).to.equal(null);
    });

    it('refuses a form post without the CSRF token', async () => {
      const player = await createTestPlayer(api.pool);
      const res = await submitConsent(
        authorizeUrl({}),
        { decision: 'approve', gamer_tag: player.gamerTag, password: PASSWORD },
        { dropCsrf: true },
      );
      expect(res.status).to.equal(403);
      expect(res.location).to.equal(null);
    });

    it('cannot be framed, cached or load outside assets', async () => {
      const res = await fetch(authorizeUrl({}));
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('content-security-policy'))
        .to.include("frame-ancestors 'none'")
        .and.include("default-src 'none'");
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const html = await res.text();
      expect(html).to.not.match(/<script|src="http/);
      expect(html).to.include('<label for="gamer_tag">').and.include('<label for="password">');
    });

    it('locks an account after repeated failures, even against the right password', async () => {
      const player = await createTestPlayer(api.pool);
      for (let i = 0; i < 5; i++) {
        const res = await submitConsent(authorizeUrl({}), {
          decision: 'approve',
          gamer_tag: player.gamerTag,
          password: 'wrong password',
        });
        expect(res.status).to.equal(401);
      }
      const sixth = await submitConsent(authorizeUrl({}), {
        decision: 'approve',
        gamer_tag: player.gamerTag,
        password: 'wrong password',
      });
      expect(sixth.status).to.equal(401);
      const locked = await submitConsent(authorizeUrl({}), {
        decision: 'approve',
        gamer_tag: player.gamerTag,
        password: PASSWORD,
      });
      expect(locked.status).to.equal(429);
      expect(Number(locked.headers.get('retry-after'))).to.be.greaterThan(0);
      now += 120_000; // the lock runs out on the service's clock
      const after = await submitConsent(authorizeUrl({}), {
        decision: 'approve',
        gamer_tag: player.gamerTag,
        password: PASSWORD,
      });
      expect(after.status).to.equal(303);
    });
  });

  describe('refresh tokens and revocation, through openid-client', () => {
    let config: client.Configuration;
    before(async () => {
      config = await client.discovery(
        new URL(api.url),
        tenant.game.clientId,
        tenant.game.clientSecret,
        undefined,
        { algorithm: 'oauth2', execute: [client.allowInsecureRequests] },
      );
    });

    /** The whole sign-in as a game runs it with openid-client: PKCE, state, the page, the exchange. */
    async function signInWith(scope: string, cfg = config) {
      const player = await createTestPlayer(api.pool);
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(cfg, {
        redirect_uri: REDIRECT,
        scope,
        state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const res = await submitConsent(url.toString(), {
        decision: 'approve',
        gamer_tag: player.gamerTag,
        password: PASSWORD,
      });
      expect(res.status, res.html).to.equal(303);
      const tokens = await client.authorizationCodeGrant(cfg, new URL(res.location!), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      return { tokens, player };
    }

    /** The OAuth error code openid-client raised, or 'ok'. */
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (err: unknown) => (err as { error?: string }).error ?? String(err),
      );

    it('publishes the revocation endpoint and the refresh grant in the metadata', () => {
      const meta = config.serverMetadata();
      expect(meta.revocation_endpoint).to.equal(`${api.url}/v1/oauth/revoke`);
      expect(meta.grant_types_supported).to.include.members(['authorization_code', 'refresh_token']);
      expect(meta.scopes_supported).to.include('offline_access');
    });

    it('issues a refresh token for offline_access only, and rotates it on every use', async () => {
      const online = await signInWith('profile');
      expect(online.tokens.refresh_token).to.equal(undefined);

      const { tokens, player } = await signInWith('profile offline_access');
      expect(tokens.refresh_token).to.be.a('string');
      expect(tokens.scope).to.equal('profile offline_access');
      const first = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(first.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
      expect(first.access_token).to.not.equal(tokens.access_token);
      expect(first.expires_in).to.equal(3600);
      const profile = await me(first.access_token);
      expect(profile.status).to.equal(200);
      expect(profile.body).to.include({ gamerTag: player.gamerTag });
      const second = await client.refreshTokenGrant(config, first.refresh_token!);
      expect((await me(second.access_token)).status).to.equal(200);
      // Narrowing the scope of one access token; asking for more than was granted is refused.
      const narrow = await client.refreshTokenGrant(config, second.refresh_token!, { scope: 'profile' });
      expect(narrow.scope).to.equal('profile');
      expect(decodeJwt(narrow.access_token).scope).to.equal('profile');
      expect(
        await outcome(client.refreshTokenGrant(config, narrow.refresh_token!, { scope: 'admin' })),
      ).to.equal('invalid_scope');
    });

    it('a spent refresh token presented again revokes the whole family: refresh and access tokens', async () => {
      const { tokens } = await signInWith('profile offline_access');
      const rotated = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect((await me(rotated.access_token)).status).to.equal(200);
      // The replay (a thief, or a copy): refused, and everything of this sign-in stops working.
      expect(await outcome(client.refreshTokenGrant(config, tokens.refresh_token!))).to.equal(
        'invalid_grant',
      );
      expect(await outcome(client.refreshTokenGrant(config, rotated.refresh_token!))).to.equal(
        'invalid_grant',
      );
      expect((await me(rotated.access_token)).status).to.equal(401);
      expect((await me(tokens.access_token)).status).to.equal(401);
      const { rows } = await api.pool.query<{ revoked_reason: string }>(
        `SELECT f.revoked_reason FROM token_families f JOIN refresh_tokens r ON r.family_id = f.id
          WHERE r.token_hash = sha256($1::bytea)`,
        [Buffer.from(tokens.refresh_token!)],
      );
      expect(rows[0]?.revoked_reason).to.equal('reuse');
    });

    it('two simultaneous refreshes with one token: at most one succeeds, and the family is revoked', async () => {
      const { tokens } = await signInWith('profile offline_access');
      const results = await Promise.all([
        outcome(client.refreshTokenGrant(config, tokens.refresh_token!)),
        outcome(client.refreshTokenGrant(config, tokens.refresh_token!)),
      ]);
      expect(results.sort()).to.deep.equal(['invalid_grant', 'ok']);
      const { rows } = await api.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM token_families f JOIN refresh_tokens r ON r.family_id = f.id
          WHERE r.token_hash = sha256($1::bytea) AND f.revoked_reason = 'reuse'`,
        [Buffer.from(tokens.refresh_token!)],
      );
      expect(rows[0]!.n).to.equal(1);
    });

    it("another client cannot use a game's refresh token, which stays good for its own game", async () => {
      const { tokens } = await signInWith('profile offline_access');
      const other = await createTenant(api.pool, 'Other');
      const otherConfig = await client.discovery(
        new URL(api.url),
        other.game.clientId,
        other.game.clientSecret,
        undefined,
        { algorithm: 'oauth2', execute: [client.allowInsecureRequests] },
      );
      expect(await outcome(client.refreshTokenGrant(otherConfig, tokens.refresh_token!))).to.equal(
        'invalid_grant',
      );
      expect(await outcome(client.refreshTokenGrant(config, tokens.refresh_token!))).to.equal('ok');
    });

    it('an unused refresh token expires (30 days, on a controlled clock)', async () => {
      const { tokens } = await signInWith('profile offline_access');
      now += 31 * 86_400_000;
      expect(await outcome(client.refreshTokenGrant(config, tokens.refresh_token!))).to.equal(
        'invalid_grant',
      );
    });

    it('revocation (RFC 7009): a refresh token ends its family, an access token ends itself', async () => {
      const a = await signInWith('profile offline_access');
      await client.tokenRevocation(config, a.tokens.access_token, { token_type_hint: 'access_token' });
      expect((await me(a.tokens.access_token)).status).to.equal(401);
      const refreshed = await client.refreshTokenGrant(config, a.tokens.refresh_token!);
      expect((await me(refreshed.access_token)).status, 'the refresh token survives').to.equal(200);

      await client.tokenRevocation(config, refreshed.refresh_token!);
      expect((await me(refreshed.access_token)).status).to.equal(401);
      expect(await outcome(client.refreshTokenGrant(config, refreshed.refresh_token!))).to.equal(
        'invalid_grant',
      );

      // Unknown or garbage tokens are no error (2.2), and revoke nothing.
      await client.tokenRevocation(config, 'never-issued');
      await client.tokenRevocation(config, 'a.b.c');
    });

    it('revocation by another client answers 200 and revokes nothing; bad requests get RFC 6749 errors', async () => {
      const { tokens } = await signInWith('profile offline_access');
      const other = await createTenant(api.pool, 'Revoker');
      const revoke = (body: Record<string, string>) =>
        call<Record<string, string>>(api.url, 'POST', '/v1/oauth/revoke', {
          json: body,
          spec: '/v1/oauth/revoke',
        });
      const byOther = await revoke({
        token: tokens.refresh_token!,
        client_id: other.game.clientId,
        client_secret: other.game.clientSecret,
      });
      expect(byOther.status).to.equal(200);
      expect(
        (
          await revoke({
            token: tokens.access_token,
            client_id: other.game.clientId,
            client_secret: other.game.clientSecret,
          })
        ).status,
      ).to.equal(200);
      expect((await me(tokens.access_token)).status).to.equal(200);
      expect(await outcome(client.refreshTokenGrant(config, tokens.refresh_token!))).to.equal('ok');

      expectOAuthError(
        await revoke({ client_id: tenant.game.clientId, client_secret: tenant.game.clientSecret }),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await revoke({
          token: 'x',
          token_type_hint: 'id_token',
          client_id: tenant.game.clientId,
          client_secret: tenant.game.clientSecret,
        }),
        400,
        'unsupported_token_type',
      );
      expectOAuthError(
        await revoke({ token: 'x', client_id: tenant.game.clientId, client_secret: 'wrong' }),
        401,
        'invalid_client',
      );
    });

    it('a replayed authorization code also revokes the refresh family it started', async () => {
      const { code, verifier } = await getCode();
      const first = await redeem(code, verifier, { scope: 'ignored' });
      expect(first.status).to.equal(200);
      expect(first.body.refresh_token, 'profile only: no refresh token').to.equal(undefined);
      const player = await createTestPlayer(api.pool);
      const v = oauth.generateRandomCodeVerifier();
      const res = await submitConsent(
        authorizeUrl({
          scope: 'profile offline_access',
          code_challenge: await oauth.calculatePKCECodeChallenge(v),
          code_challenge_method: 'S256',
        }),
        { decision: 'approve', gamer_tag: player.gamerTag, password: PASSWORD },
      );
      const offlineCode = new URL(res.location!).searchParams.get('code')!;
      const granted = await redeem(offlineCode, v);
      expect(granted.body.refresh_token).to.be.a('string');
      expectOAuthError(await redeem(offlineCode, v), 400, 'invalid_grant');
      expect(await outcome(client.refreshTokenGrant(config, granted.body.refresh_token!))).to.equal(
        'invalid_grant',
      );
    });
  });

  describe('sign-up behind the address lockout', () => {
    it('a sign-up that finds the tag taken counts against the address; a locked address cannot sign up', async () => {
      const taken = await createTestPlayer(api.pool);
      await api.pool.query("DELETE FROM sign_in_failures WHERE key LIKE 'ip:%'");
      const signUp = (tag: string) =>
        submitConsent(
          authorizeUrl({}),
          { decision: 'signup', full_name: 'Someone', gamer_tag: tag, password: 'a new password' },
          { form: 'signup' },
        );
      try {
        const first = await signUp(taken.gamerTag);
        expect(first.status).to.equal(400);
        expect(first.html).to.include('That gamer tag is taken.');
        const { rows } = await api.pool.query<{ key: string; failures: number }>(
          "SELECT key, failures FROM sign_in_failures WHERE key LIKE 'ip:%'",
        );
        expect(rows).to.have.length(1);
        expect(rows[0]!.failures).to.equal(1);
        // As if the address had already guessed 50 tags in this window: the next taken one locks it.
        await api.pool.query('UPDATE sign_in_failures SET failures = 50 WHERE key = $1', [rows[0]!.key]);
        expect((await signUp(taken.gamerTag)).status).to.equal(400);
        const fresh = `fresh-${crypto.randomBytes(4).toString('hex')}`;
        const locked = await signUp(fresh);
        expect(locked.status).to.equal(429);
        expect(Number(locked.headers.get('retry-after'))).to.be.greaterThan(0);
        expect(locked.html).to.include('Too many attempts');
        const created = await api.pool.query('SELECT 1 FROM players WHERE gamer_tag = $1', [fresh]);
        expect(created.rowCount, 'no account while locked').to.equal(0);
      } finally {
        await api.pool.query("DELETE FROM sign_in_failures WHERE key LIKE 'ip:%'");
      }
    });
  });

  describe('discovery and keys', () => {
    it('publishes RFC 8414 metadata and the JWKS', async () => {
      const meta = await call(api.url, 'GET', '/.well-known/oauth-authorization-server');
      expect(meta.body).to.include({ issuer: api.url, token_endpoint: `${api.url}/v1/oauth/token` });
      expect(meta.body.code_challenge_methods_supported).to.deep.equal(['S256']);
      const jwks = await call<{ keys: { kid: string; d?: string }[] }>(api.url, 'GET', '/v1/oauth/jwks.json');
      expect(jwks.body.keys.map((k) => k.kid)).to.include((await testSigningKey()).kid);
      expect(
        jwks.body.keys.every((k) => k.d === undefined),
        'no private parts',
      ).to.equal(true);
    });

    it('after a key rotation, tokens signed by the previous key stay valid until they expire', async () => {
      const { code, verifier } = await getCode();
      const old = await redeem(code, verifier);
      const { generateKeyPair, exportJWK, calculateJwkThumbprint } = await import('jose');
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const next = await exportJWK(privateKey);
      next.kid = await calculateJwkThumbprint(next);
      // Same public URL (so the same issuer), new current key, the old one kept as previous.
      const rotated = await startTestApi({
        PUBLIC_URL: api.url,
        JWT_SIGNING_KEY: JSON.stringify(next),
        JWT_PREVIOUS_KEYS: JSON.stringify([await testSigningKey()]),
      });
      try {
        const res = await call(rotated.url, 'GET', '/v1/player/me', {
          headers: {
            authorization: `Bearer ${old.body.access_token}`,
            client_secret: tenant.game.clientSecret,
          },
          spec: '/v1/player/me',
        });
        expect(res.status).to.equal(200);
        const jwks = await call<{ keys: { kid: string }[] }>(rotated.url, 'GET', '/v1/oauth/jwks.json');
        expect(jwks.body.keys.map((k) => k.kid)).to.deep.equal([next.kid, (await testSigningKey()).kid]);
      } finally {
        await rotated.close();
      }
    });
  });
});
