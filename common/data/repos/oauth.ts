import type { Queryable } from '../db.js';
import { OFFLINE_ACCESS } from '../../domain/scopes.js';

/**
 * The OAuth 2.0 records (common/usecases/oauth.ts): authorization codes, access tokens, and refresh
 * tokens in families. Codes and tokens are stored as hashes.
 */

/** What an authorization code is bound to: its client's game, the player, the URI, PKCE and scope. */
export interface CodeBinding {
  gameId: string;
  playerId: string;
  redirectUri: string;
  redirectUriExplicit: boolean;
  codeChallenge: string | null;
  scope: string;
}

export async function insertAuthorizationCode(
  db: Queryable,
  c: CodeBinding & { codeHash: Buffer; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO authorization_codes (code_hash, game_id, player_id, redirect_uri, redirect_uri_explicit, code_challenge, scope, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      c.codeHash,
      c.gameId,
      c.playerId,
      c.redirectUri,
      c.redirectUriExplicit,
      c.codeChallenge,
      c.scope,
      c.expiresAt,
    ],
  );
}

export interface RedeemedCode {
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
 * Consumes a code and, when it passes every check (its game, its expiry, its redirect URI, its PKCE
 * challenge), records the access token (and, with offline_access, a token family and its first
 * refresh token), in one statement. Undefined when the code is unknown or already used.
 */
export async function redeemCode(
  db: Queryable,
  r: {
    codeHash: Buffer;
    now: Date;
    jti: string;
    accessExpiresAt: Date;
    gameId: string;
    redirectUri: string | null;
    challenge: string | null;
    verifierSent: boolean;
    familyId: string;
    refreshHash: Buffer;
    refreshExpiresAt: Date;
    familyExpiresAt: Date;
  },
): Promise<RedeemedCode | undefined> {
  const { rows } = await db.query<RedeemedCode>({
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
      r.codeHash,
      r.now,
      r.jti,
      r.accessExpiresAt,
      r.gameId,
      r.redirectUri,
      r.challenge,
      r.verifierSent,
      r.familyId,
      r.refreshHash,
      r.refreshExpiresAt,
      r.familyExpiresAt,
    ],
  });
  return rows[0];
}

/** A code presented again: every token issued from it, and its family, are revoked. */
export async function revokeTokensOfCode(db: Queryable, codeHash: Buffer): Promise<void> {
  await db.query(
    `WITH f AS (
       UPDATE token_families SET revoked_at = now(), revoked_reason = 'code_replay'
        WHERE code_hash = $1 AND revoked_at IS NULL)
     UPDATE access_tokens SET revoked_at = now() WHERE code_hash = $1 AND revoked_at IS NULL`,
    [codeHash],
  );
}

export interface RefreshRow {
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
export async function revokeFamily(db: Queryable, familyId: string, reason: 'reuse' | 'revoked') {
  await db.query(
    `WITH f AS (
       UPDATE token_families SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL)
     UPDATE access_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`,
    [familyId, reason],
  );
}

/** A refresh token with its family, both rows locked; undefined when unknown. */
export async function lockRefreshToken(db: Queryable, tokenHash: Buffer): Promise<RefreshRow | undefined> {
  const { rows } = await db.query<RefreshRow>(
    `SELECT r.family_id, r.expires_at, r.used_at IS NOT NULL AS used, f.game_id, f.player_id, p.service_id,
            f.scope, f.code_hash, f.revoked_at IS NOT NULL AS family_revoked, f.expires_at AS family_expires_at
       FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id JOIN players p ON p.id = f.player_id
      WHERE r.token_hash = $1 FOR UPDATE OF r, f`,
    [tokenHash],
  );
  return rows[0];
}

/** Spends a refresh token and records its successor and the new access token, in one statement. */
export async function rotateRefreshToken(
  db: Queryable,
  t: {
    spentHash: Buffer;
    now: Date;
    freshHash: Buffer;
    familyId: string;
    freshExpiresAt: Date;
    familyExpiresAt: Date;
    jti: string;
    codeHash: Buffer;
    gameId: string;
    playerId: string;
    accessExpiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `WITH spent AS (UPDATE refresh_tokens SET used_at = $2 WHERE token_hash = $1),
          fresh AS (INSERT INTO refresh_tokens (token_hash, family_id, expires_at) VALUES ($3, $4, LEAST($5::timestamptz, $6::timestamptz)))
     INSERT INTO access_tokens (jti, code_hash, game_id, player_id, expires_at, family_id)
     VALUES ($7, $8, $9, $10, $11, $4)`,
    [
      t.spentHash,
      t.now,
      t.freshHash,
      t.familyId,
      t.freshExpiresAt,
      t.familyExpiresAt,
      t.jti,
      t.codeHash,
      t.gameId,
      t.playerId,
      t.accessExpiresAt,
    ],
  );
}

/** The family of a game's refresh token; undefined when unknown (or another game's). */
export async function familyOfRefreshToken(
  db: Queryable,
  tokenHash: Buffer,
  gameId: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ family_id: string }>(
    `SELECT r.family_id FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id
      WHERE r.token_hash = $1 AND f.game_id = $2`,
    [tokenHash, gameId],
  );
  return rows[0]?.family_id;
}

export async function revokeAccessToken(db: Queryable, jti: string): Promise<void> {
  await db.query('UPDATE access_tokens SET revoked_at = now() WHERE jti = $1 AND revoked_at IS NULL', [jti]);
}

/**
 * Ends everything a player is signed in with (a stolen account given back: docs/moderators.md "Appeals"): every
 * token family (refresh tokens) and access token revoked, and every standing-page session issued
 * before now refused. Returns how many tokens and families were revoked.
 */
export async function revokeEverySession(db: Queryable, playerRowId: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH f AS (UPDATE token_families SET revoked_at = $2, revoked_reason = 'revoked'
                 WHERE player_id = $1 AND revoked_at IS NULL RETURNING 1),
          a AS (UPDATE access_tokens SET revoked_at = $2 WHERE player_id = $1 AND revoked_at IS NULL RETURNING 1),
          p AS (UPDATE players SET sessions_revoked_at = $2 WHERE id = $1 RETURNING 1)
     SELECT ((SELECT count(*) FROM f) + (SELECT count(*) FROM a))::int AS n`,
    [playerRowId, now],
  );
  return rows[0]!.n;
}
