import crypto from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { AppError } from '../errors.js';
import type { TokenService } from '../security/tokens.js';
import {
  familyOfRefreshToken,
  insertAuthorizationCode,
  lockRefreshToken,
  redeemCode,
  revokeAccessToken,
  revokeFamily,
  revokeTokensOfCode,
  rotateRefreshToken,
  type CodeBinding,
  type RedeemedCode,
} from '../data/repos/oauth.js';

export const CODE_TTL_SECONDS = 600;
export { DEFAULT_SCOPE, OFFLINE_ACCESS, SUPPORTED_SCOPES } from '../domain/scopes.js';

/** RFC 6749 section 5.2 error, carried in our problem body and sent as application/json. */
export function oauthError(
  status: 400 | 401,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return new AppError(status, error, description, {
    headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers },
    extensions: { error, error_description: description },
    contentType: 'application/json',
  });
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest();

/** RFC 7636 S256: BASE64URL(SHA256(verifier)). */
export const pkceChallenge = (verifier: string) =>
  crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
export const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Creates a single-use code (256 random bits, stored as a hash) bound to client, URI, player and PKCE. */
export async function issueAuthorizationCode(
  db: Queryable,
  input: CodeBinding & { now: Date },
): Promise<string> {
  const code = crypto.randomBytes(32).toString('base64url');
  const { now, ...binding } = input;
  await insertAuthorizationCode(db, {
    ...binding,
    codeHash: sha256(code),
    expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000),
  });
  return code;
}

export interface TokenGrant {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

/** How long refresh tokens last: each one (unused), and a family however often it rotates. */
export interface RefreshPolicy {
  ttlSeconds: number;
  maxAgeSeconds: number;
}

const newRefreshToken = () => crypto.randomBytes(32).toString('base64url');
const after = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/**
 * Redeems a code for an access token in one statement (one round trip, one commit): it consumes the
 * code by a conditional UPDATE, so of two simultaneous redemptions exactly one wins, and records the
 * token only when the code passes every check below, which the statement's WHERE clause repeats.
 * Every refusal still consumes the code: a stolen code must not get a second try. The token is
 * signed after the commit with the jti and expiry the statement recorded. A code presented again (a
 * replay, or the loser of that race) is refused and every token issued from it is revoked (RFC 6749
 * section 10.5).
 */
export async function redeemAuthorizationCode(
  pool: Pool,
  tokens: TokenService,
  refresh: RefreshPolicy,
  input: {
    gameId: string;
    clientId: string;
    code: string;
    redirectUri?: string | undefined;
    codeVerifier?: string | undefined;
    now: Date;
  },
): Promise<TokenGrant> {
  const codeHash = sha256(input.code);
  const invalid = (why: string) => oauthError(400, 'invalid_grant', why);
  const verifier = input.codeVerifier;
  const challenge = verifier && PKCE_VERIFIER.test(verifier) ? pkceChallenge(verifier) : null;
  const jti = crypto.randomUUID();
  // With offline_access the same statement starts a token family and its first refresh token.
  const refreshToken = newRefreshToken();
  const code = await redeemCode(pool, {
    codeHash,
    now: input.now,
    jti,
    accessExpiresAt: tokens.expiryOf(input.now),
    gameId: input.gameId,
    redirectUri: input.redirectUri ?? null,
    challenge,
    verifierSent: verifier !== undefined && verifier !== '',
    familyId: crypto.randomUUID(),
    refreshHash: sha256(refreshToken),
    refreshExpiresAt: after(input.now, refresh.ttlSeconds),
    familyExpiresAt: after(input.now, refresh.maxAgeSeconds),
  });
  if (!code) {
    await revokeTokensOfCode(pool, codeHash);
    throw invalid('The authorization code is invalid, expired or already used.');
  }
  const refusal = refusalOf(code, input, challenge);
  if (refusal) throw invalid(refusal);
  // The statement's WHERE clause and refusalOf say the same thing; if they ever disagree, fail
  // rather than hand out a token that was not recorded (and so could not be revoked).
  if (!code.issued) throw new Error('the code passed every check but its token was not recorded');
  return grant(tokens, {
    serviceId: code.service_id,
    clientId: input.clientId,
    scope: code.scope,
    jti,
    issuedAt: input.now,
    refreshToken: code.refreshable ? refreshToken : undefined,
  });
}

/** Signs the access token a grant recorded (its jti and expiry) and answers as RFC 6749 5.1. */
async function grant(
  tokens: TokenService,
  g: {
    serviceId: string;
    clientId: string;
    scope: string;
    jti: string;
    issuedAt: Date;
    refreshToken?: string | undefined;
  },
): Promise<TokenGrant> {
  const signed = await tokens.sign(g);
  return {
    access_token: signed.token,
    token_type: 'Bearer',
    expires_in: tokens.lifetime,
    scope: g.scope,
    ...(g.refreshToken ? { refresh_token: g.refreshToken } : {}),
  };
}

/**
 * The refresh_token grant (RFC 6749 section 6) with rotation: the token presented is spent and a
 * new one (same family, same scope) comes with the new access token; `scope`, when sent, narrows the
 * access token to part of the grant's scope. A spent token presented again is a replay: the whole
 * family is revoked (RFC 9700 4.14.2), whoever presents it, so a thief and the player's game both
 * lose it and the player signs in again. Rows are locked, so two refreshes with one token cannot
 * both succeed.
 */
export async function refreshAccessToken(
  pool: Pool,
  tokens: TokenService,
  refresh: RefreshPolicy,
  input: { gameId: string; clientId: string; refreshToken: string; scope?: string | undefined; now: Date },
): Promise<TokenGrant> {
  const invalid = (why: string) => oauthError(400, 'invalid_grant', why);
  const jti = crypto.randomUUID();
  const next = newRefreshToken();
  type Outcome =
    | { kind: 'refused'; why: string }
    | { kind: 'scope'; why: string }
    | { kind: 'ok'; serviceId: string; scope: string };
  const refused = (why: string): Outcome => ({ kind: 'refused', why });
  const outcome = await withTransaction(pool, async (client): Promise<Outcome> => {
    const row = await lockRefreshToken(client, sha256(input.refreshToken));
    if (!row || row.game_id !== input.gameId) return refused('The refresh token is invalid.');
    if (row.family_revoked) return refused('The refresh token was revoked.');
    if (row.used) {
      await revokeFamily(client, row.family_id, 'reuse');
      return refused('The refresh token was already used; every token of this sign-in is now revoked.');
    }
    if (row.expires_at <= input.now || row.family_expires_at <= input.now)
      return refused('The refresh token has expired; the player must sign in again.');
    const granted = row.scope.split(' ');
    const scope = input.scope === undefined ? row.scope : input.scope.trim().split(/\s+/).join(' ');
    if (!scope || !scope.split(' ').every((s) => granted.includes(s)))
      return { kind: 'scope', why: `scope must be part of the granted scope (${row.scope}).` };
    await rotateRefreshToken(client, {
      spentHash: sha256(input.refreshToken),
      now: input.now,
      freshHash: sha256(next),
      familyId: row.family_id,
      freshExpiresAt: after(input.now, refresh.ttlSeconds),
      familyExpiresAt: row.family_expires_at,
      jti,
      codeHash: row.code_hash,
      gameId: row.game_id,
      playerId: row.player_id,
      accessExpiresAt: tokens.expiryOf(input.now),
    });
    return { kind: 'ok', serviceId: row.service_id, scope };
  });
  if (outcome.kind === 'refused') throw invalid(outcome.why);
  if (outcome.kind === 'scope') throw oauthError(400, 'invalid_scope', outcome.why);
  return grant(tokens, {
    serviceId: outcome.serviceId,
    clientId: input.clientId,
    scope: outcome.scope,
    jti,
    issuedAt: input.now,
    refreshToken: next,
  });
}

/**
 * Token revocation (RFC 7009) by the client the token was issued to. A refresh token revokes its
 * whole family (every refresh and access token of that sign-in, as section 2.1 recommends); an
 * access token revokes itself. An unknown, invalid or expired token, or one issued to another client,
 * is answered the same way (200, nothing revoked), so the endpoint tells nobody whether a token exists.
 */
export async function revokeToken(
  pool: Pool,
  tokens: TokenService,
  input: { gameId: string; clientId: string; token: string },
): Promise<void> {
  const looksLikeJwt = input.token.split('.').length === 3;
  if (!looksLikeJwt) {
    const familyId = await familyOfRefreshToken(pool, sha256(input.token), input.gameId);
    if (familyId) await revokeFamily(pool, familyId, 'revoked');
    return;
  }
  const claims = await tokens.claimsOf(input.token);
  if (!claims || claims.aud !== input.clientId) return;
  await revokeAccessToken(pool, claims.jti);
}

/** Why a consumed code grants no token, or undefined when it does. */
function refusalOf(
  code: RedeemedCode,
  input: { gameId: string; redirectUri?: string | undefined; codeVerifier?: string | undefined; now: Date },
  challenge: string | null,
): string | undefined {
  if (code.game_id !== input.gameId) return 'The authorization code was issued to another client.';
  if (code.expires_at.getTime() <= input.now.getTime()) return 'The authorization code has expired.';
  if (code.redirect_uri_explicit || input.redirectUri !== undefined) {
    if (input.redirectUri !== code.redirect_uri)
      return 'redirect_uri does not match the authorization request.';
  }
  if (code.code_challenge) {
    if (!input.codeVerifier) return 'code_verifier is required for this code (PKCE).';
    if (challenge !== code.code_challenge) return 'code_verifier does not match the code challenge.';
  } else if (input.codeVerifier) {
    return 'code_verifier was sent but the authorization request had no code_challenge.';
  }
  return undefined;
}
