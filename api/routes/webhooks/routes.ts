import { Router } from '@koa/router';
import type { Context } from 'koa';
import { isUuid } from '../../../common/data/repos/accounts.js';
import { encodeCursor, readPage } from '../../../common/cursor.js';
import {
  disableWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
} from '../../../common/data/repos/webhooks.js';
import { notFound } from '../../../common/errors.js';
import { AddressPolicy } from '../../../common/net/addresses.js';
import { registerWebhook } from '../../../common/usecases/webhooks.js';
import { presentDelivery, presentWebhook } from '../../../common/views.js';
import type { RouteDeps } from '../../app.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';

/** A studio's webhooks: any game of the studio (its client credentials) manages them. */
export function webhookRoutes(deps: RouteDeps): Router {
  const router = new Router({ prefix: '/v1/webhooks' });
  const auth = [deps.clientAuth.middleware(), deps.rateLimits.middleware('webhooks')];
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  const studioOf = (ctx: Context) => (ctx.state.client as AuthenticatedClient).studioId;
  async function ownWebhook(ctx: Context) {
    const { webhookId } = ctx.params as { webhookId: string };
    const hook = isUuid(webhookId) ? await findWebhook(deps.pool, studioOf(ctx), webhookId) : undefined;
    if (!hook) throw notFound(`Webhook ${webhookId}`);
    return hook;
  }

  router.post('/', ...auth, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = await registerWebhook(deps.pool, deps.pepper, policy, studioOf(ctx), ctx.request.body ?? {});
  });

  router.get('/', ...auth, async (ctx) => {
    ctx.body = { items: (await listWebhooks(deps.pool, studioOf(ctx))).map(presentWebhook) };
  });

  router.delete('/:webhookId', ...auth, async (ctx) => {
    const hook = await ownWebhook(ctx);
    await disableWebhook(deps.pool, studioOf(ctx), hook.id);
    ctx.status = 204;
  });

  router.get('/:webhookId/deliveries', ...auth, async (ctx) => {
    const hook = await ownWebhook(ctx);
    const { limit, after } = readPage(ctx.query);
    const page = await listDeliveries(deps.pool, hook.id, limit, after);
    ctx.body = {
      items: page.items.map(presentDelivery),
      nextCursor: page.next && encodeCursor(page.next.ts, page.next.id),
    };
  });

  return router;
}
