import { Router } from '@koa/router';
import { listDisputes, listOrders, putDispute, putOrder } from '../../../common/usecases/compliance.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/**
 * The compliance officer's records (issue 51; docs/compliance.md "Orders and disputes"), for admins: orders from
 * authorities (DSA Art. 9, 10) and out-of-court disputes (Art. 21), which the transparency report
 * counts.
 */
export function complianceRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin/compliance' });
  const admin = moderatorAuth(deps, { role: 'admin' });
  const by = (state: Record<string, unknown>) => (state.actor as Actor).id;

  router.get('/orders', admin, async (ctx) => {
    ctx.body = (await listOrders(deps.pool, ctx.query)) satisfies Answer<
      Paths,
      '/v1/admin/compliance/orders',
      'get'
    >;
  });
  router.post('/orders', admin, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await putOrder(deps.pool, ctx.request.body, by(ctx.state), deps.clock())) satisfies Answer<
      Paths,
      '/v1/admin/compliance/orders',
      'post',
      201
    >;
  });
  router.put('/orders/:orderId', admin, requireJsonBody(), async (ctx) => {
    ctx.body = (await putOrder(
      deps.pool,
      ctx.request.body,
      by(ctx.state),
      deps.clock(),
      param(ctx, 'orderId'),
    )) satisfies Answer<Paths, '/v1/admin/compliance/orders/{orderId}', 'put'>;
  });
  router.get('/disputes', admin, async (ctx) => {
    ctx.body = (await listDisputes(deps.pool, ctx.query)) satisfies Answer<
      Paths,
      '/v1/admin/compliance/disputes',
      'get'
    >;
  });
  router.post('/disputes', admin, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await putDispute(deps.pool, ctx.request.body, by(ctx.state), deps.clock())) satisfies Answer<
      Paths,
      '/v1/admin/compliance/disputes',
      'post',
      201
    >;
  });
  router.put('/disputes/:disputeId', admin, requireJsonBody(), async (ctx) => {
    ctx.body = (await putDispute(
      deps.pool,
      ctx.request.body,
      by(ctx.state),
      deps.clock(),
      param(ctx, 'disputeId'),
    )) satisfies Answer<Paths, '/v1/admin/compliance/disputes/{disputeId}', 'put'>;
  });
  return router;
}
