import crypto from 'node:crypto';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import {
  findGameByClientId,
  findPlayer,
  linkPlayerToGame,
  type Game,
} from '../../../common/data/repos/accounts.js';
import { AppError } from '../../../common/errors.js';
import {
  DEFAULT_SCOPE,
  issueAuthorizationCode,
  oauthError,
  PKCE_CHALLENGE,
  redeemAuthorizationCode,
  refreshAccessToken,
  revokeToken,
  SUPPORTED_SCOPES,
} from '../../../common/usecases/oauth.js';
import { provisionPlayer } from '../../../common/usecases/provisioning.js';
import { addressLockedForSeconds, recordAddressFailure } from '../../../common/usecases/lockout.js';
import { signIn } from '../../../common/usecases/sign-in.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { consentPage, errorPage } from './page.js';
import { GRANT_TYPES, revocationRequestSchema, TOKEN_TYPE_HINTS, tokenRequestSchema } from './schema.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;

const CSRF_COOKIE = 'pt_csrf';

interface AuthorizeParams {
  game: Game;
  redirectUri: string;
  redirectUriExplicit: boolean;
  state: string | undefined;
  scope: string;
  codeChallenge: string | null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Headers every page of the authorization flow carries: no framing, no caching, no outside assets. */
function pageHeaders(ctx: Context, redirectUri?: string) {
  ctx.set('X-Frame-Options', 'DENY');
  // Browsers apply form-action to the redirect that follows the post, so the game's verified
  // redirect origin is allowed there too.
  const formAction = redirectUri ? `'self' ${new URL(redirectUri).origin}` : "'self'";
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
}

function showError(ctx: Context, status: number, title: string, message: string) {
  pageHeaders(ctx);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = errorPage(title, message);
}

export function oauthRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const issuer = deps.issuer;
  const csrfFor = (cookie: string) =>
    crypto.createHmac('sha256', deps.pepper).update(`csrf:${cookie}`).digest('base64url');

  function redirectTo(ctx: Context, redirectUri: string, params: Record<string, string | undefined>) {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    url.searchParams.set('iss', issuer); // RFC 9207: lets the client detect mix-up attacks
    ctx.status = ctx.method === 'POST' ? 303 : 302;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(url.toString());
  }

  /**
   * Validates an authorization request. An unknown client or unregistered redirect URI is shown as
   * an error page and never redirected to; other problems go back to the (verified) redirect URI.
   */
  async function readAuthorizeRequest(
    ctx: Context,
    q: Record<string, unknown>,
  ): Promise<AuthorizeParams | undefined> {
    const clientId = str(q.client_id);
    const game = clientId ? await findGameByClientId(deps.pool, clientId) : undefined;
    if (!game) {
      showError(
        ctx,
        400,
        'Unknown application',
        'The application that sent you here is not registered with player-trust.',
      );
      return undefined;
    }
    const requested = str(q.redirect_uri);
    let redirectUri: string | undefined;
    if (requested !== undefined) redirectUri = game.redirectUris.includes(requested) ? requested : undefined;
    else if (game.redirectUris.length === 1) redirectUri = game.redirectUris[0];
    if (!redirectUri) {
      showError(
        ctx,
        400,
        'Invalid redirect address',
        'The address this application asked to return to is not registered for it.',
      );
      return undefined;
    }
    const state = str(q.state);
    const fail = (error: string, description: string) => {
      redirectTo(ctx, redirectUri, { error, error_description: description, state });
      return undefined;
    };
    if (str(q.response_type) !== 'code')
      return fail('unsupported_response_type', 'response_type must be code');
    const scope = (str(q.scope) ?? DEFAULT_SCOPE).trim() || DEFAULT_SCOPE;
    if (!scope.split(/\s+/).every((s) => (SUPPORTED_SCOPES as readonly string[]).includes(s)))
      return fail('invalid_scope', `supported scopes: ${SUPPORTED_SCOPES.join(' ')}`);
    const challenge = str(q.code_challenge);
    const method = str(q.code_challenge_method);
    if (challenge !== undefined) {
      if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
      if (!PKCE_CHALLENGE.test(challenge))
        return fail('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
    } else if (method !== undefined)
      return fail('invalid_request', 'code_challenge_method without code_challenge');
    else if (game.requirePkce)
      return fail('invalid_request', 'this client must use PKCE (code_challenge with S256)');
    if (state !== undefined && state.length > 1024) return fail('invalid_request', 'state is too long');
    return {
      game,
      redirectUri,
      redirectUriExplicit: requested !== undefined,
      state,
      scope: scope.split(/\s+/).join(' '),
      codeChallenge: challenge ?? null,
    };
  }

  function hiddenFields(p: AuthorizeParams, csrf: string): Record<string, string> {
    const fields: Record<string, string> = {
      response_type: 'code',
      client_id: p.game.clientId,
      scope: p.scope,
      csrf,
    };
    if (p.redirectUriExplicit) fields.redirect_uri = p.redirectUri;
    if (p.state !== undefined) fields.state = p.state;
    if (p.codeChallenge) {
      fields.code_challenge = p.codeChallenge;
      fields.code_challenge_method = 'S256';
    }
    return fields;
  }

  function renderConsent(ctx: Context, p: AuthorizeParams, status = 200, error?: string, gamerTag?: string) {
    let cookie = ctx.cookies.get(CSRF_COOKIE);
    if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) {
      cookie = crypto.randomBytes(32).toString('base64url');
      ctx.cookies.set(CSRF_COOKIE, cookie, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/v1/oauth',
        secure: ctx.protocol === 'https' || issuer.startsWith('https:'),
        overwrite: true,
      });
    }
    pageHeaders(ctx, p.redirectUri);
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = consentPage({
      gameTitle: p.game.title,
      scope: p.scope,
      hidden: hiddenFields(p, csrfFor(cookie)),
      error,
      gamerTag,
    });
  }

  router.get('/v1/oauth/authorize', async (ctx) => {
    const params = await readAuthorizeRequest(ctx, ctx.query);
    if (params) renderConsent(ctx, params);
  });

  router.post('/v1/oauth/authorize', async (ctx) => {
    if (!ctx.is('application/x-www-form-urlencoded'))
      return showError(ctx, 415, 'Unsupported request', 'Submit the form from the sign-in page.');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const params = await readAuthorizeRequest(ctx, body);
    if (!params) return;
    const cookie = ctx.cookies.get(CSRF_COOKIE);
    const sent = str(body.csrf) ?? '';
    const expected = cookie ? csrfFor(cookie) : '';
    if (
      !cookie ||
      sent.length !== expected.length ||
      !crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected))
    )
      return showError(
        ctx,
        403,
        'Request expired',
        'This sign-in form expired or did not come from player-trust. Go back to the game and start again.',
      );

    const decision = str(body.decision);
    if (decision === 'deny')
      return redirectTo(ctx, params.redirectUri, {
        error: 'access_denied',
        error_description: 'the player denied the request',
        state: params.state,
      });
    const gamerTag = (str(body.gamer_tag) ?? '').trim();
    const password = str(body.password) ?? '';
    let playerId: string;
    if (decision === 'signup') {
      const wait = await addressLockedForSeconds(deps.pool, ctx.ip, deps.clock());
      if (wait) {
        ctx.set('Retry-After', String(wait));
        return renderConsent(ctx, params, 429, `Too many attempts. Try again in ${wait} seconds.`);
      }
      try {
        const created = await provisionPlayer(deps.pool, {
          fullName: str(body.full_name) ?? '',
          gamerTag,
          password,
        });
        playerId = (await findPlayer(deps.pool, created.serviceId))!.id;
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (err.code === 'already_exists') await recordAddressFailure(deps.pool, ctx.ip, deps.clock());
        const message =
          err.code === 'already_exists'
            ? 'That gamer tag is taken.'
            : (err.fields ?? [])
                .map((f) => `${f.field.replace(/([A-Z])/g, ' $1').toLowerCase()} ${f.message}`)
                .join('; ') || err.detail;
        return renderConsent(ctx, params, 400, `Could not create the account: ${message}`);
      }
    } else if (decision === 'approve') {
      if (!gamerTag || !password)
        return renderConsent(ctx, params, 400, 'Enter your gamer tag and password.', gamerTag);
      const result = await signIn(deps.pool, { gamerTag, password, address: ctx.ip, now: deps.clock() });
      if (!result.ok) {
        if (result.reason === 'locked') {
          ctx.set('Retry-After', String(result.retryAfterSeconds));
          return renderConsent(
            ctx,
            params,
            429,
            `Too many failed sign-ins. Try again in ${result.retryAfterSeconds} seconds.`,
            gamerTag,
          );
        }
        return renderConsent(ctx, params, 401, 'The gamer tag or password is not right.', gamerTag);
      }
      playerId = result.account.playerId;
    } else {
      return renderConsent(ctx, params, 400, 'Choose to allow or deny.');
    }
    await linkPlayerToGame(deps.pool, playerId, params.game.id);
    const code = await issueAuthorizationCode(deps.pool, {
      gameId: params.game.id,
      playerId,
      redirectUri: params.redirectUri,
      redirectUriExplicit: params.redirectUriExplicit,
      codeChallenge: params.codeChallenge,
      scope: params.scope,
      now: deps.clock(),
    });
    redirectTo(ctx, params.redirectUri, { code, state: params.state });
  });

  const refreshPolicy = {
    ttlSeconds: deps.config.refreshTokenTtlSeconds,
    maxAgeSeconds: deps.config.refreshTokenMaxAgeSeconds,
  };

  /**
   * Client authentication at the token and revocation endpoints: client_secret_basic (RFC 6749
   * 2.3.1) or client_id/client_secret in the body (client_secret_post), never both.
   */
  async function authenticateClient(ctx: Context, body: Record<string, unknown>) {
    const basic = /^Basic\s+(.+)$/i.exec(ctx.get('authorization'))?.[1];
    let clientId = str(body.client_id);
    let clientSecret = str(body.client_secret);
    if (basic) {
      if (clientSecret !== undefined)
        throw oauthError(400, 'invalid_request', 'Use one client authentication method, not two.');
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const basicId = colon < 0 ? '' : decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      if (clientId !== undefined && clientId !== basicId)
        throw oauthError(400, 'invalid_request', 'client_id does not match the Authorization header.');
      clientId = basicId;
      clientSecret = colon < 0 ? '' : decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    }
    try {
      return await deps.clientAuth.authenticate(clientId, clientSecret);
    } catch (err) {
      if (err instanceof AppError && err.status === 401)
        throw oauthError(
          401,
          'invalid_client',
          'Client authentication failed.',
          basic ? { 'WWW-Authenticate': 'Basic realm="player-trust"' } : {},
        );
      throw err;
    }
  }

  router.post('/v1/oauth/token', requireJsonBody(true), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const grantType = str(body.grant_type);
    if (!grantType) throw oauthError(400, 'invalid_request', 'grant_type is required.');
    if (!(GRANT_TYPES as readonly string[]).includes(grantType))
      throw oauthError(400, 'unsupported_grant_type', `grant_type must be one of ${GRANT_TYPES.join(', ')}.`);
    const client = await authenticateClient(ctx, body);
    const invalid = tokenRequestSchema.validate(body, { convert: false }).error;
    if (invalid) throw oauthError(400, 'invalid_request', `${invalid.details[0]!.message}.`);
    if (grantType === 'refresh_token') {
      const refreshToken = str(body.refresh_token);
      if (!refreshToken) throw oauthError(400, 'invalid_request', 'refresh_token is required.');
      ctx.body = (await refreshAccessToken(deps.pool, deps.tokens, refreshPolicy, {
        gameId: client.gameId,
        clientId: client.clientId,
        refreshToken,
        scope: str(body.scope),
        now: deps.clock(),
      })) satisfies Answer<Paths, '/v1/oauth/token', 'post'>;
      return;
    }
    const code = str(body.code);
    if (!code) throw oauthError(400, 'invalid_request', 'code is required.');
    ctx.body = (await redeemAuthorizationCode(deps.pool, deps.tokens, refreshPolicy, {
      gameId: client.gameId,
      clientId: client.clientId,
      code,
      redirectUri: str(body.redirect_uri),
      codeVerifier: str(body.code_verifier),
      now: deps.clock(),
    })) satisfies Answer<Paths, '/v1/oauth/token', 'post'>;
  });

  // RFC 7009: 200 whether or not the token existed (invalid tokens are no error, 2.2).
  router.post('/v1/oauth/revoke', requireJsonBody(true), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const client = await authenticateClient(ctx, body);
    // The token first (invalid_request), then its hint (RFC 7009 2.2.1: unsupported_token_type).
    const invalid = revocationRequestSchema.validate(body, { convert: false }).error?.details[0];
    if (invalid?.path[0] === 'token_type_hint')
      throw oauthError(
        400,
        'unsupported_token_type',
        `token_type_hint must be ${TOKEN_TYPE_HINTS.join(' or ')}.`,
      );
    if (invalid) throw oauthError(400, 'invalid_request', 'token is required.');
    const token = body.token as string;
    await revokeToken(deps.pool, deps.tokens, { gameId: client.gameId, clientId: client.clientId, token });
    ctx.status = 200;
    ctx.body = {} satisfies Answer<Paths, '/v1/oauth/revoke', 'post'>;
  });

  router.get('/v1/oauth/jwks.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = { keys: deps.signingKeys.publicJwks } satisfies Answer<Paths, '/v1/oauth/jwks.json', 'get'>;
  });

  router.get('/.well-known/oauth-authorization-server', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = {
      issuer,
      authorization_endpoint: `${issuer}/v1/oauth/authorize`,
      token_endpoint: `${issuer}/v1/oauth/token`,
      revocation_endpoint: `${issuer}/v1/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      jwks_uri: `${issuer}/v1/oauth/jwks.json`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: GRANT_TYPES,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...SUPPORTED_SCOPES],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/v1/openapi.json`,
    } satisfies Answer<Paths, '/.well-known/oauth-authorization-server', 'get'>;
  });

  return router;
}
