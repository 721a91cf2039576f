import crypto from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { JWT_ALG, type SigningKeys } from './keys.js';
import { rejectionOf, TokenRejected, type IssuerMismatchReporter } from './tokens.js';

/** The audience of moderator tokens: no game's client_id can equal it, so the two never mix. */
export const MODERATION_AUDIENCE = 'player-trust:moderation';
const TYP = 'mod+jwt';

/**
 * Short-lived moderator session tokens, signed with the service's ES256 key. The role is read from
 * the database on every request (a demoted or disabled moderator loses access at once); the token
 * only says who signed in.
 */
export class ModeratorTokens {
  private readonly jwks;
  /**
   * Tokens whose signature and claims were verified, with their subject and expiry: a console or a
   * moderator tool sends the same token on every request, and an ES256 verification costs more than
   * the rest of a queue page's work in the API. Nothing else about a token can change before it
   * expires (who may act is read from the database on every request), so a hit only checks the
   * expiry. Bounded: the oldest entry goes first.
   */
  private readonly verified = new Map<string, { sub: string; exp: number }>();
  static readonly CACHE_SIZE = 10_000;

  constructor(
    private readonly keys: SigningKeys,
    private readonly issuer: string,
    readonly lifetime: number,
    private readonly clock: () => Date = () => new Date(),
    private readonly onIssuerMismatch?: IssuerMismatchReporter,
  ) {
    this.jwks = createLocalJWKSet({ keys: keys.publicJwks });
  }

  async sign(moderatorId: string): Promise<string> {
    const now = Math.floor(this.clock().getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: JWT_ALG, kid: this.keys.current.kid, typ: TYP })
      .setIssuer(this.issuer)
      .setAudience(MODERATION_AUDIENCE)
      .setSubject(moderatorId)
      .setIssuedAt(now)
      .setExpirationTime(now + this.lifetime)
      .setJti(crypto.randomUUID())
      .sign(this.keys.current.privateKey);
  }

  /** The moderator id of a valid token, or TokenRejected. */
  async verify(token: string): Promise<string> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > this.clock().getTime()) return known.sub;
      this.verified.delete(token);
      throw new TokenRejected('the session token expired');
    }
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        algorithms: [JWT_ALG],
        issuer: this.issuer,
        audience: MODERATION_AUDIENCE,
        typ: TYP,
        currentDate: this.clock(),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      if (this.verified.size >= ModeratorTokens.CACHE_SIZE)
        this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { sub: payload.sub!, exp: payload.exp! });
      return payload.sub!;
    } catch (err) {
      throw rejectionOf(err, 'session', this.issuer, this.onIssuerMismatch);
    }
  }
}
