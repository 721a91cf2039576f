import { Router } from '@koa/router';
import type { Context } from 'koa';
import { encodeCursor, readPage } from '../../../common/cursor.js';
import { deleteWebhook, listDeliveries, listWebhooks } from '../../../common/data/repos/webhooks.js';
import { AddressPolicy } from '../../../common/net/addresses.js';
import {
  changeWebhook,
  ownWebhook,
  redeliver,
  registerWebhook,
  rotateSecret,
  sendTestEvent,
} from '../../../common/usecases/webhooks.js';
import { presentDelivery, presentWebhook } from '../../../common/views.js';
import type { ApiDeps } from '../../deps.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/** A studio's webhooks: any game of the studio (its client credentials) manages them. */
export function webhookRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/webhooks' });
  const auth = [deps.clientAuth.middleware(), deps.rateLimits.middleware('webhooks')];
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  const studioOf = (ctx: Context) => (ctx.state.client as AuthenticatedClient).studioId;
  const webhookIdOf = (ctx: Context) => param(ctx, 'webhookId');
  const own = (ctx: Context) => ownWebhook(deps.pool, studioOf(ctx), webhookIdOf(ctx));

  router.post('/', ...auth, requireJsonBody(), async (ctx) => {
    const { webhook, secret } = await registerWebhook(
      deps.pool,
      deps.pepper,
      policy,
      studioOf(ctx),
      ctx.request.body ?? {},
    );
    ctx.status = 201;
    ctx.set('Location', `/v1/webhooks/${webhook.id}`);
    ctx.body = { ...presentWebhook(webhook), secret } satisfies Answer<Paths, '/v1/webhooks', 'post', 201>;
  });

  router.get('/', ...auth, async (ctx) => {
    ctx.body = { items: (await listWebhooks(deps.pool, studioOf(ctx))).map(presentWebhook) } satisfies Answer<
      Paths,
      '/v1/webhooks',
      'get'
    >;
  });

  router.get('/:webhookId', ...auth, async (ctx) => {
    ctx.body = presentWebhook(await own(ctx)) satisfies Answer<Paths, '/v1/webhooks/{webhookId}', 'get'>;
  });

  router.patch('/:webhookId', ...auth, requireJsonBody(), async (ctx) => {
    ctx.body = presentWebhook(
      await changeWebhook(deps.pool, policy, studioOf(ctx), webhookIdOf(ctx), ctx.request.body ?? {}),
    ) satisfies Answer<Paths, '/v1/webhooks/{webhookId}', 'patch'>;
  });

  router.delete('/:webhookId', ...auth, async (ctx) => {
    const hook = await own(ctx);
    await deleteWebhook(deps.pool, studioOf(ctx), hook.id);
    ctx.status = 204;
  });

  router.post('/:webhookId/rotate-secret', ...auth, async (ctx) => {
    const { webhook, secret } = await rotateSecret(
      deps.pool,
      deps.pepper,
      studioOf(ctx),
      webhookIdOf(ctx),
      ctx.request.body ?? {},
    );
    ctx.body = { ...presentWebhook(webhook), secret } satisfies Answer<
      Paths,
      '/v1/webhooks/{webhookId}/rotate-secret',
      'post'
    >;
  });

  router.post('/:webhookId/test', ...auth, async (ctx) => {
    const { delivery, outbox } = await sendTestEvent(deps.pool, studioOf(ctx), webhookIdOf(ctx));
    deps.dispatcher.enqueue([outbox]);
    ctx.status = 202;
    ctx.body = presentDelivery(delivery) satisfies Answer<
      Paths,
      '/v1/webhooks/{webhookId}/test',
      'post',
      202
    >;
  });

  router.get('/:webhookId/deliveries', ...auth, async (ctx) => {
    const hook = await own(ctx);
    const { limit, after } = readPage(ctx.query);
    const page = await listDeliveries(deps.pool, hook.id, limit, after);
    ctx.body = {
      items: page.items.map(presentDelivery),
      nextCursor: page.next && encodeCursor(page.next.ts, page.next.id),
    } satisfies Answer<Paths, '/v1/webhooks/{webhookId}/deliveries', 'get'>;
  });

  router.post('/:webhookId/deliveries/:deliveryId/redeliver', ...auth, async (ctx) => {
    const deliveryId = param(ctx, 'deliveryId');
    const { delivery, outbox } = await redeliver(deps.pool, studioOf(ctx), webhookIdOf(ctx), deliveryId);
    deps.dispatcher.enqueue([outbox]);
    ctx.status = 202;
    ctx.body = presentDelivery(delivery) satisfies Answer<
      Paths,
      '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
      'post',
      202
    >;
  });

  return router;
}
