import type { Context, Next } from 'koa';
import { AppError } from '../../common/errors.js';
import { TokenRejected, type TokenService } from '../../common/security/tokens.js';
import type { ClientAuthenticator } from './client-auth.js';

const REALM = 'player-trust';

/** `Authorization: Bearer <token>`: the token of RFC 6750's b64token syntax. */
export const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/** RFC 6750 section 3: a challenge without error code when no token was sent, invalid_token otherwise. */
export function bearerError(
  description?: string,
  realm = REALM,
  missing = 'Send an access token: Authorization: Bearer <token>.',
): AppError {
  const challenge = description
    ? `Bearer realm="${realm}", error="invalid_token", error_description="${description.replace(/"/g, "'")}"`
    : `Bearer realm="${realm}"`;
  return new AppError(401, description ? 'invalid_token' : 'missing_token', description ?? missing, {
    headers: { 'WWW-Authenticate': challenge },
  });
}

/**
 * The logged-in player: `Authorization: Bearer <token>` plus the `client_secret` header of the game
 * the token was issued to (its `aud`). Sets ctx.state.bearer = { serviceId, client }.
 */
export function bearerAuth(tokens: TokenService, clientAuth: ClientAuthenticator) {
  return async (ctx: Context, next: Next) => {
    const header = ctx.get('authorization');
    const match = BEARER.exec(header);
    if (!header) throw bearerError();
    if (!match) throw bearerError('the Authorization header is not a Bearer token');
    let claims;
    try {
      claims = await tokens.verify(match[1]!);
    } catch (err) {
      if (err instanceof TokenRejected) throw bearerError(err.message);
      throw err;
    }
    const secret = ctx.get('client_secret') || undefined;
    if (!secret) throw bearerError('send the client_secret header of the game this token was issued to');
    let client;
    try {
      client = await clientAuth.authenticate(claims.aud, secret);
    } catch {
      // The secret must belong to the client the token was issued to.
      throw bearerError('the client_secret header does not belong to the client this token was issued to');
    }
    ctx.state.bearer = { serviceId: claims.sub, scope: claims.scope, client };
    await next();
  };
}
