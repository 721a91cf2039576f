import crypto from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Queryable } from '../data/db.js';
import { JWT_ALG, type SigningKeys } from './keys.js';

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  aud: string;
  scope: string;
  jti: string;
}

export class TokenRejected extends Error {
  override name = 'TokenRejected';
}

/** Told once per foreign issuer seen: the log line that names a PUBLIC_URL mismatch. */
export type IssuerMismatchReporter = (seen: { issuer: string; expected: string }) => void;

/** A reporter that logs each foreign issuer once (a misconfigured fleet would otherwise flood). */
export function logIssuerMismatch(log: { warn(obj: object, msg: string): void }): IssuerMismatchReporter {
  const told = new Set<string>();
  return ({ issuer, expected }) => {
    if (told.has(issuer) || told.size > 100) return;
    told.add(issuer);
    log.warn(
      { tokenIssuer: issuer, issuer: expected },
      'a token signed with our key names another issuer: every API process must use the same PUBLIC_URL',
    );
  };
}

/**
 * Why a token failed verification, for the 401's error_description. A token signed with our key
 * but naming another issuer comes from an API process with another PUBLIC_URL: said as such.
 */
export function rejectionOf(
  err: unknown,
  kind: 'access' | 'session',
  expected: string,
  report?: IssuerMismatchReporter,
): TokenRejected {
  if (err instanceof joseErrors.JWTExpired) return new TokenRejected(`the ${kind} token expired`);
  if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'iss') {
    const issuer = String(err.payload.iss);
    report?.({ issuer, expected });
    return new TokenRejected(
      `the ${kind} token was issued by ${issuer}, not by this service (${expected}): every API process must use the same PUBLIC_URL`,
    );
  }
  return new TokenRejected(`the ${kind} token is invalid`);
}

/**
 * Signs and verifies access tokens. Verification is local (signature, algorithm, issuer, audience,
 * expiry) plus one primary-key lookup for revocation.
 */
export class TokenService {
  private readonly jwks;

  constructor(
    private readonly keys: SigningKeys,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
    private readonly db: Queryable,
    private readonly clock: () => Date = () => new Date(),
    private readonly onIssuerMismatch?: IssuerMismatchReporter,
  ) {
    this.jwks = createLocalJWKSet({ keys: keys.publicJwks });
  }

  get lifetime() {
    return this.ttlSeconds;
  }

  /** When a token signed now would expire (for a caller that records it before signing). */
  expiryOf(issuedAt: Date): Date {
    return new Date((Math.floor(issuedAt.getTime() / 1000) + this.ttlSeconds) * 1000);
  }

  async sign(input: { serviceId: string; clientId: string; scope: string; jti?: string; issuedAt?: Date }) {
    const now = Math.floor((input.issuedAt ?? this.clock()).getTime() / 1000);
    const jti = input.jti ?? crypto.randomUUID();
    const token = await new SignJWT({ scope: input.scope })
      .setProtectedHeader({ alg: JWT_ALG, kid: this.keys.current.kid, typ: 'at+jwt' })
      .setIssuer(this.issuer)
      .setAudience(input.clientId)
      .setSubject(input.serviceId)
      .setIssuedAt(now)
      .setExpirationTime(now + this.ttlSeconds)
      .setJti(jti)
      .sign(this.keys.current.privateKey);
    return { token, jti, expiresAt: new Date((now + this.ttlSeconds) * 1000) };
  }

  /** The claims of a token this service signed and that has not expired, revoked or not; else undefined. */
  async claimsOf(token: string): Promise<AccessTokenClaims | undefined> {
    try {
      return await this.verifySignature(token);
    } catch {
      return undefined;
    }
  }

  /** The claims of a valid, unrevoked token, or TokenRejected saying why not (for logs, not clients). */
  async verify(token: string): Promise<AccessTokenClaims> {
    const payload = await this.verifySignature(token);
    const { rows } = await this.db.query<{ revoked: boolean }>(
      'SELECT revoked_at IS NOT NULL AS revoked FROM access_tokens WHERE jti = $1',
      [payload.jti],
    );
    if (!rows[0] || rows[0].revoked) throw new TokenRejected('the access token was revoked');
    return payload;
  }

  private async verifySignature(token: string): Promise<AccessTokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        algorithms: [JWT_ALG], // pinned: "none" and HMAC confusion are refused
        issuer: this.issuer,
        typ: 'at+jwt',
        currentDate: this.clock(),
        requiredClaims: ['sub', 'aud', 'exp', 'iat', 'jti'],
      }));
    } catch (err) {
      throw rejectionOf(err, 'access', this.issuer, this.onIssuerMismatch);
    }
    if (typeof payload.aud !== 'string' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string')
      throw new TokenRejected('the access token is invalid');
    return payload as AccessTokenClaims;
  }
}
