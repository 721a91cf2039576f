import type { Context } from 'koa';
import { AppError } from '../../../common/errors.js';
import { moderatorSignIn } from '../../../common/usecases/moderation.js';
import { check } from '../../../common/validation.js';
import type { ApiDeps } from '../../deps.js';
import { sessionBody } from './schema.js';

/**
 * A moderator's username and password from the body, behind the lockout: the account, or 401
 * invalid_credentials / 429 too_many_attempts. Both sign-ins (bearer token, console cookie) use it.
 */
export async function signInModerator(deps: Pick<ApiDeps, 'pool' | 'clock'>, ctx: Context) {
  const { username, password } = check<{ username: string; password: string }>(
    sessionBody,
    ctx.request.body ?? {},
  );
  const result = await moderatorSignIn(deps.pool, { username, password, address: ctx.ip, now: deps.clock() });
  if (result.ok) return result.account;
  if (result.reason === 'locked')
    throw new AppError(429, 'too_many_attempts', 'Too many failed sign-ins; try again later.', {
      headers: { 'Retry-After': String(result.retryAfterSeconds) },
    });
  throw new AppError(401, 'invalid_credentials', 'The username or password is not right.');
}
