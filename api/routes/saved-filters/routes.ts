import { Router } from '@koa/router';
import { deleteSavedFilter, listSavedFilters, saveFilter } from '../../../common/usecases/saved-filters.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/** Each moderator's saved queue filters (their own only). */
export function savedFilterRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin/saved-filters' });
  const auth = moderatorAuth(deps);
  router.get('/', auth, async (ctx) => {
    ctx.body = { items: await listSavedFilters(deps.pool, ctx.state.actor as Actor) } satisfies Answer<
      Paths,
      '/v1/admin/saved-filters',
      'get'
    >;
  });
  router.post('/', auth, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await saveFilter(
      deps.pool,
      ctx.state.actor as Actor,
      ctx.request.body ?? {},
    )) satisfies Answer<Paths, '/v1/admin/saved-filters', 'post', 201>;
  });
  router.delete('/:filterId', auth, async (ctx) => {
    await deleteSavedFilter(deps.pool, ctx.state.actor as Actor, param(ctx, 'filterId'));
    ctx.status = 204;
  });
  return router;
}
