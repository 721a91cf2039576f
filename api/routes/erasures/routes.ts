import { Router } from '@koa/router';
import type { Context } from 'koa';
import type { Moderator } from '../../../common/data/repos/moderation.js';
import {
  decideErasure,
  getErasure,
  listErasures,
  requestErasure,
  type Requester,
} from '../../../common/usecases/erasure.js';
import type { ApiDeps } from '../../deps.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/**
 * Erasure of a player's personal data (GDPR Art. 17; docs/compliance.md "Personal data"): an admin erases, a
 * studio asks for one of its players (decided at once when the player plays only its games, else an
 * admin confirms), and both read the request's state and receipt.
 */
export function erasureRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const admin = moderatorAuth(deps, { role: 'admin' });
  const studio = [deps.clientAuth.middleware(), deps.rateLimits.middleware('reports')];

  const request = async (ctx: Context, by: Requester) => {
    const serviceId = param(ctx, 'serviceId');
    const { erasure, created, outbox } = await requestErasure(
      deps.pool,
      deps.config.erasureLedger,
      serviceId,
      by,
    );
    deps.dispatcher.enqueue(outbox);
    ctx.status = created ? 202 : 200;
    ctx.set('Location', `${by.kind === 'admin' ? '/v1/admin/erasures' : '/v1/erasures'}/${erasure.id}`);
    ctx.body = erasure satisfies
      | Answer<Paths, '/v1/admin/players/{serviceId}/erasure', 'post'>
      | Answer<Paths, '/v1/admin/players/{serviceId}/erasure', 'post', 202>
      | Answer<Paths, '/v1/player/{serviceId}/erasure', 'post', 202>;
  };

  router.post('/v1/admin/players/:serviceId/erasure', admin, (ctx) =>
    request(ctx, { kind: 'admin', moderatorId: (ctx.state.moderator as Moderator).id }),
  );
  router.get('/v1/admin/erasures', admin, async (ctx) => {
    ctx.body = (await listErasures(deps.pool, ctx.query)) satisfies Answer<
      Paths,
      '/v1/admin/erasures',
      'get'
    >;
  });
  router.get('/v1/admin/erasures/:erasureId', admin, async (ctx) => {
    ctx.body = (await getErasure(deps.pool, param(ctx, 'erasureId'))) satisfies Answer<
      Paths,
      '/v1/admin/erasures/{erasureId}',
      'get'
    >;
  });
  for (const decision of ['confirm', 'cancel'] as const)
    router.post(`/v1/admin/erasures/:erasureId/${decision}`, admin, async (ctx) => {
      const { erasure, outbox } = await decideErasure(
        deps.pool,
        deps.config.erasureLedger,
        param(ctx, 'erasureId'),
        (ctx.state.moderator as Moderator).id,
        decision,
      );
      deps.dispatcher.enqueue(outbox);
      ctx.status = decision === 'confirm' ? 202 : 200;
      ctx.body = erasure satisfies
        | Answer<Paths, '/v1/admin/erasures/{erasureId}/confirm', 'post', 202>
        | Answer<Paths, '/v1/admin/erasures/{erasureId}/cancel', 'post'>;
    });

  router.post('/v1/player/:serviceId/erasure', ...studio, (ctx) =>
    request(ctx, { kind: 'studio', studioId: (ctx.state.client as AuthenticatedClient).studioId }),
  );
  router.get('/v1/erasures/:erasureId', ...studio, async (ctx) => {
    const client = ctx.state.client as AuthenticatedClient;
    ctx.body = (await getErasure(deps.pool, param(ctx, 'erasureId'), client.studioId)) satisfies Answer<
      Paths,
      '/v1/erasures/{erasureId}',
      'get'
    >;
  });
  return router;
}
