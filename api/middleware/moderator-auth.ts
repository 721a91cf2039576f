import type { Context, Next } from 'koa';
import type { Queryable } from '../../common/data/db.js';
import { findActiveModerator, type ModeratorRole } from '../../common/data/repos/moderation.js';
import { AppError } from '../../common/errors.js';
import { TokenRejected } from '../../common/security/tokens.js';
import type { ModeratorTokens } from '../../common/security/moderator-tokens.js';
import type { Actor } from '../../common/usecases/moderation.js';
import { BEARER, bearerError } from './bearer-auth.js';

const challenge = (description?: string) =>
  bearerError(
    description,
    'player-trust-moderation',
    'Sign in at POST /v1/admin/session and send the session token: Authorization: Bearer <token>.',
  );

/** A signed-in, enabled moderator (ctx.state.actor); with `role: 'admin'`, admins only (403 otherwise). */
export function moderatorAuth(tokens: ModeratorTokens, db: Queryable, opts: { role?: ModeratorRole } = {}) {
  return async (ctx: Context, next: Next) => {
    const header = ctx.get('authorization');
    if (!header) throw challenge();
    const match = BEARER.exec(header);
    if (!match) throw challenge('the Authorization header is not a Bearer token');
    let id: string;
    try {
      id = await tokens.verify(match[1]!);
    } catch (err) {
      if (err instanceof TokenRejected) throw challenge(err.message);
      throw err;
    }
    const moderator = await findActiveModerator(db, id);
    if (!moderator) throw challenge('the moderator account is disabled or gone');
    if (opts.role === 'admin' && moderator.role !== 'admin')
      throw new AppError(403, 'forbidden', 'This needs the admin role.');
    const actor: Actor = { id: moderator.id, username: moderator.username, role: moderator.role };
    ctx.state.actor = actor;
    await next();
  };
}
