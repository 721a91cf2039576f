import type { Context, Next } from 'koa';
import type { Queryable } from '../../common/data/db.js';
import { findActiveModerator, type ModeratorRole } from '../../common/data/repos/moderation.js';
import { AppError } from '../../common/errors.js';
import { TokenRejected } from '../../common/security/tokens.js';
import type { ModeratorTokens } from '../../common/security/moderator-tokens.js';
import type { Actor } from '../../common/usecases/moderation.js';
import { BEARER, bearerError } from './bearer-auth.js';
import type { Config } from '../../common/config.js';
import {
  CONSOLE_COOKIE,
  CSRF_HEADER,
  csrfMatches,
  touchConsoleSession,
} from '../../common/usecases/console-sessions.js';

const challenge = (description?: string) =>
  bearerError(
    description,
    'player-trust-moderation',
    'Sign in at POST /v1/admin/session and send the session token: Authorization: Bearer <token>.',
  );

export interface ModeratorAuthDeps {
  moderatorTokens: ModeratorTokens;
  pool: Queryable;
  config: Pick<Config, 'consoleIdleTimeoutSeconds' | 'consoleSessionMaxSeconds'>;
  clock: () => Date;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A signed-in, enabled moderator (ctx.state.actor); with `role: 'admin'`, admins only (403
 * otherwise). The moderator API takes a bearer token (POST /v1/admin/session) or, for the console, the
 * HttpOnly session cookie (POST /v1/admin/console-session); with the cookie, a write must also carry
 * the session's CSRF token in X-CSRF-Token (403 csrf_failed otherwise), so no other site can make a
 * signed-in moderator's browser act.
 */
export function moderatorAuth(
  deps: ModeratorAuthDeps,
  opts: { role?: ModeratorRole; cookieOnly?: boolean } = {},
) {
  const policy = {
    idleSeconds: deps.config.consoleIdleTimeoutSeconds,
    maxAgeSeconds: deps.config.consoleSessionMaxSeconds,
  };
  return async (ctx: Context, next: Next) => {
    const header = opts.cookieOnly ? '' : ctx.get('authorization');
    const cookie = header ? undefined : ctx.cookies.get(CONSOLE_COOKIE);
    let id: string;
    if (cookie) {
      const session = await touchConsoleSession(deps.pool, cookie, policy, deps.clock());
      if (!session) throw challenge('the console session expired or was signed out; sign in again');
      if (!SAFE_METHODS.has(ctx.method) && !csrfMatches(ctx.get(CSRF_HEADER) || undefined, session.csrfToken))
        throw new AppError(403, 'csrf_failed', "This write needs the console session's X-CSRF-Token header.");
      id = session.moderatorId;
      ctx.state.consoleSession = { csrfToken: session.csrfToken };
    } else {
      if (!header) throw challenge();
      const match = BEARER.exec(header);
      if (!match) throw challenge('the Authorization header is not a Bearer token');
      try {
        id = await deps.moderatorTokens.verify(match[1]!);
      } catch (err) {
        if (err instanceof TokenRejected) throw challenge(err.message);
        throw err;
      }
    }
    const db = deps.pool;
    const moderator = await findActiveModerator(db, id);
    if (!moderator) throw challenge('the moderator account is disabled or gone');
    if (opts.role === 'admin' && moderator.role !== 'admin')
      throw new AppError(403, 'forbidden', 'This needs the admin role.');
    const actor: Actor = { id: moderator.id, username: moderator.username, role: moderator.role };
    ctx.state.actor = actor;
    ctx.state.moderator = moderator;
    await next();
  };
}
