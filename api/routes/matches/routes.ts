import { Router } from '@koa/router';
import type { Context } from 'koa';
import { submitMatches, type MatchDeps } from '../../../common/usecases/matches.js';
import type { ApiDeps } from '../../deps.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;

/**
 * Matches (issue 54; docs/studios.md "Matches"): a studio sends its games' finished matches in bulk;
 * the matches worker records them and counts down the restrictions counted in matches.
 */
export function matchRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const matchDeps: MatchDeps = {
    pool: deps.pool,
    clock: deps.clock,
    retentionDays: deps.config.matchRetentionDays,
    dispatch: (rows) => deps.dispatcher.enqueue(rows),
  };
  const callerOf = (ctx: Context) => {
    const c = ctx.state.client as AuthenticatedClient;
    return { studioId: c.studioId, gameId: c.gameId };
  };

  router.post(
    '/v1/matches',
    deps.clientAuth.middleware(),
    deps.rateLimits.middleware('reports'),
    requireJsonBody(),
    async (ctx) => {
      ctx.status = 202;
      ctx.body = (await submitMatches(matchDeps, callerOf(ctx), ctx.request.body)) satisfies Answer<
        Paths,
        '/v1/matches',
        'post',
        202
      >;
    },
  );

  return router;
}
