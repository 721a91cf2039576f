import crypto from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { AppError } from '../errors.js';
import type { TokenService } from '../security/tokens.js';

export const CODE_TTL_SECONDS = 600;
/** offline_access: the grant also gets a refresh token (the consent page says so). */
export const SUPPORTED_SCOPES = ['profile', 'offline_access'] as const;
export const OFFLINE_ACCESS = 'offline_access';
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
  refresh_token?: string;
}

/** How long refresh tokens last: each one (unused), and a family however often it rotates. */
export interface RefreshPolicy {
  ttlSeconds: number;
  maxAgeSeconds: number;
}

const newRefreshToken = () => crypto.randomBytes(32).toString('base64url');
const after = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

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
  refreshable: boolean;
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
  const { rows } = await pool.query<RedeemedCode>({
    name: 'redeem-code',
    text: `WITH code AS (
         UPDATE authorization_codes c SET used_at = $2 FROM players p
          WHERE c.code_hash = $1 AND c.used_at IS NULL AND p.id = c.player_id
          RETURNING c.game_id, p.service_id, c.player_id, c.redirect_uri, c.redirect_uri_explicit,
                    c.code_challenge, c.scope, c.expires_at),
       token AS (
         INSERT INTO access_tokens (jti, code_hash, game_id, player_id, expires_at, family_id)
         SELECT $3, $1, code.game_id, code.player_id, $4,
                CASE WHEN '${OFFLINE_ACCESS}' = ANY (string_to_array(code.scope, ' ')) THEN $9::uuid END
           FROM code
          WHERE code.game_id = $5 AND code.expires_at > $2
            AND CASE WHEN code.redirect_uri_explicit OR $6::text IS NOT NULL
                     THEN (code.redirect_uri = $6::text) IS TRUE ELSE true END
            AND CASE WHEN code.code_challenge IS NOT NULL THEN (code.code_challenge = $7::text) IS TRUE
                     ELSE NOT $8::boolean END
         RETURNING game_id, player_id, family_id),
       family AS (
         INSERT INTO token_families (id, code_hash, game_id, player_id, scope, expires_at)
         SELECT token.family_id, $1, token.game_id, token.player_id, code.scope, $12 FROM token, code
          WHERE token.family_id IS NOT NULL
         RETURNING id),
       refresh AS (
         INSERT INTO refresh_tokens (token_hash, family_id, expires_at)
         SELECT $10, family.id, LEAST($11::timestamptz, $12::timestamptz) FROM family
         RETURNING 1)
     SELECT code.*, EXISTS (SELECT 1 FROM token) AS issued, EXISTS (SELECT 1 FROM refresh) AS refreshable
       FROM code`,
    values: [
      codeHash,
      input.now,
      jti,
      tokens.expiryOf(input.now),
      input.gameId,
      input.redirectUri ?? null,
      challenge,
      verifier !== undefined && verifier !== '',
      crypto.randomUUID(),
      sha256(refreshToken),
      after(input.now, refresh.ttlSeconds),
      after(input.now, refresh.maxAgeSeconds),
    ],
  });
  const code = rows[0];
  if (!code) {
    await pool.query(
      `WITH f AS (
         UPDATE token_families SET revoked_at = now(), revoked_reason = 'code_replay'
          WHERE code_hash = $1 AND revoked_at IS NULL)
       UPDATE access_tokens SET revoked_at = now() WHERE code_hash = $1 AND revoked_at IS NULL`,
      [codeHash],
    );
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

interface RefreshRow {
  family_id: string;
  expires_at: Date;
  used: boolean;
  game_id: string;
  player_id: string;
  service_id: string;
  scope: string;
  code_hash: Buffer;
  family_revoked: boolean;
  family_expires_at: Date;
}

/** Revokes a family: its refresh tokens stop working, and so does every access token it issued. */
async function revokeFamily(db: Queryable, familyId: string, reason: 'reuse' | 'revoked') {
  await db.query(
    `WITH f AS (
       UPDATE token_families SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL)
     UPDATE access_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`,
    [familyId, reason],
  );
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
    const { rows } = await client.query<RefreshRow>(
      `SELECT r.family_id, r.expires_at, r.used_at IS NOT NULL AS used, f.game_id, f.player_id, p.service_id,
              f.scope, f.code_hash, f.revoked_at IS NOT NULL AS family_revoked, f.expires_at AS family_expires_at
         FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id JOIN players p ON p.id = f.player_id
        WHERE r.token_hash = $1 FOR UPDATE OF r, f`,
      [sha256(input.refreshToken)],
    );
    const row = rows[0];
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
    await client.query(
      `WITH spent AS (UPDATE refresh_tokens SET used_at = $2 WHERE token_hash = $1),
            fresh AS (INSERT INTO refresh_tokens (token_hash, family_id, expires_at) VALUES ($3, $4, LEAST($5::timestamptz, $6::timestamptz)))
       INSERT INTO access_tokens (jti, code_hash, game_id, player_id, expires_at, family_id)
       VALUES ($7, $8, $9, $10, $11, $4)`,
      [
        sha256(input.refreshToken),
        input.now,
        sha256(next),
        row.family_id,
        after(input.now, refresh.ttlSeconds),
        row.family_expires_at,
        jti,
        row.code_hash,
        row.game_id,
        row.player_id,
        tokens.expiryOf(input.now),
      ],
    );
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
    const { rows } = await pool.query<{ family_id: string }>(
      `SELECT r.family_id FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id
        WHERE r.token_hash = $1 AND f.game_id = $2`,
      [sha256(input.token), input.gameId],
    );
    if (rows[0]) await revokeFamily(pool, rows[0].family_id, 'revoked');
    return;
  }
  const claims = await tokens.claimsOf(input.token);
  if (!claims || claims.aud !== input.clientId) return;
  await pool.query('UPDATE access_tokens SET revoked_at = now() WHERE jti = $1 AND revoked_at IS NULL', [
    claims.jti,
  ]);
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
