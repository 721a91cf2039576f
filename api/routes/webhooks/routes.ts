import { Router } from '@koa/router';
import Joi from 'joi';
import type { Context } from 'koa';
import { isUuid } from '../../../common/data/repos/accounts.js';
import { decodeCursor, encodeCursor } from '../../../common/data/repos/offenses.js';
import {
  disableWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
} from '../../../common/data/repos/webhooks.js';
import { fieldErrors, notFound, validationError } from '../../../common/errors.js';
import { AddressPolicy } from '../../../common/net/addresses.js';
import { registerWebhook } from '../../../common/usecases/webhooks.js';
import { presentDelivery, presentWebhook } from '../../../common/views.js';
import type { AppDeps } from '../../app.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';

const pageQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(512),
});

/** A studio's webhooks: any game of the studio (its client credentials) manages them. */
export function webhookRoutes(deps: AppDeps): Router {
  const router = new Router({ prefix: '/v1/webhooks' });
  const auth = deps.clientAuth.middleware();
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  const studioOf = (ctx: Context) => (ctx.state.client as AuthenticatedClient).studioId;
  async function ownWebhook(ctx: Context) {
    const { webhookId } = ctx.params as { webhookId: string };
    const hook = isUuid(webhookId) ? await findWebhook(deps.pool, studioOf(ctx), webhookId) : undefined;
    if (!hook) throw notFound(`Webhook ${webhookId}`);
    return hook;
  }

  router.post('/', auth, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = await registerWebhook(deps.pool, deps.pepper, policy, studioOf(ctx), ctx.request.body ?? {});
  });

  router.get('/', auth, async (ctx) => {
    ctx.body = { items: (await listWebhooks(deps.pool, studioOf(ctx))).map(presentWebhook) };
  });

  router.delete('/:webhookId', auth, async (ctx) => {
    const hook = await ownWebhook(ctx);
    await disableWebhook(deps.pool, studioOf(ctx), hook.id);
    ctx.status = 204;
  });

  router.get('/:webhookId/deliveries', auth, async (ctx) => {
    const hook = await ownWebhook(ctx);
    const { value, error } = pageQuery.validate(ctx.query, { abortEarly: false });
    if (error) throw validationError(fieldErrors(error.details, 'query'));
    const { limit, cursor } = value as { limit: number; cursor?: string };
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (cursor !== undefined && !after)
      throw validationError([{ field: 'cursor', message: 'is not a cursor this service issued' }]);
    const page = await listDeliveries(deps.pool, hook.id, limit, after);
    ctx.body = {
      items: page.items.map(presentDelivery),
      nextCursor: page.next && encodeCursor(page.next.ts, page.next.id),
    };
  });

  return router;
}
