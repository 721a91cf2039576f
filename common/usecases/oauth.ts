import crypto from 'node:crypto';
import type { Pool, Queryable } from '../data/db.js';
import { AppError } from '../errors.js';
import type { TokenService } from '../security/tokens.js';

export const CODE_TTL_SECONDS = 600;
export const SUPPORTED_SCOPES = ['profile'] as const;
export const DEFAULT_SCOPE = 'profile';

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
  input: {
    gameId: string;
    playerId: string;
    redirectUri: string;
    redirectUriExplicit: boolean;
    codeChallenge: string | null;
    scope: string;
    now: Date;
  },
): Promise<string> {
  const code = crypto.randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO authorization_codes (code_hash, game_id, player_id, redirect_uri, redirect_uri_explicit, code_challenge, scope, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      sha256(code),
      input.gameId,
      input.playerId,
      input.redirectUri,
      input.redirectUriExplicit,
      input.codeChallenge,
      input.scope,
      new Date(input.now.getTime() + CODE_TTL_SECONDS * 1000),
    ],
  );
  return code;
}

export interface TokenGrant {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

interface RedeemedCode {
  game_id: string;
  service_id: string;
  player_id: string;
  redirect_uri: string;
  redirect_uri_explicit: boolean;
  code_challenge: string | null;
  scope: string;
  expires_at: Date;
  issued: boolean;
}

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
  const { rows } = await pool.query<RedeemedCode>({
    name: 'redeem-code',
    text: `WITH code AS (
         UPDATE authorization_codes c SET used_at = $2 FROM players p
          WHERE c.code_hash = $1 AND c.used_at IS NULL AND p.id = c.player_id
          RETURNING c.game_id, p.service_id, c.player_id, c.redirect_uri, c.redirect_uri_explicit,
                    c.code_challenge, c.scope, c.expires_at),
       token AS (
         INSERT INTO access_tokens (jti, code_hash, game_id, player_id, expires_at)
         SELECT $3, $1, code.game_id, code.player_id, $4 FROM code
          WHERE code.game_id = $5 AND code.expires_at > $2
            AND CASE WHEN code.redirect_uri_explicit OR $6::text IS NOT NULL
                     THEN (code.redirect_uri = $6::text) IS TRUE ELSE true END
            AND CASE WHEN code.code_challenge IS NOT NULL THEN (code.code_challenge = $7::text) IS TRUE
                     ELSE NOT $8::boolean END
         RETURNING 1)
     SELECT code.*, EXISTS (SELECT 1 FROM token) AS issued FROM code`,
    values: [
      codeHash,
      input.now,
      jti,
      tokens.expiryOf(input.now),
      input.gameId,
      input.redirectUri ?? null,
      challenge,
      verifier !== undefined && verifier !== '',
    ],
  });
  const code = rows[0];
  if (!code) {
    await pool.query(
      'UPDATE access_tokens SET revoked_at = now() WHERE code_hash = $1 AND revoked_at IS NULL',
      [codeHash],
    );
    throw invalid('The authorization code is invalid, expired or already used.');
  }
  const refusal = refusalOf(code, input, challenge);
  if (refusal) throw invalid(refusal);
  // The statement's WHERE clause and refusalOf say the same thing; if they ever disagree, fail
  // rather than hand out a token that was not recorded (and so could not be revoked).
  if (!code.issued) throw new Error('the code passed every check but its token was not recorded');
  const signed = await tokens.sign({
    serviceId: code.service_id,
    clientId: input.clientId,
    scope: code.scope,
    jti,
    issuedAt: input.now,
  });
  return {
    access_token: signed.token,
    token_type: 'Bearer',
    expires_in: tokens.lifetime,
    scope: code.scope,
  };
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
