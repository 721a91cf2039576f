import { Router } from '@koa/router';
import type { Context } from 'koa';
import {
  archiveQueue,
  changeQueue,
  createQueue,
  listQueues,
  listRules,
  listStudiosAndGames,
  replaceRules,
} from '../../../common/usecases/review-queues.js';
import { DEFAULT_QUEUE } from '../../../common/data/repos/review-queues.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/**
 * Review queues and their routing rules: every moderator reads the queues they may see and the rules;
 * admins create, change and archive queues and replace the rules.
 */
export function queueRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin' });
  const moderator = moderatorAuth(deps);
  const admin = moderatorAuth(deps, { role: 'admin' });
  const actorOf = (ctx: Context) => ctx.state.actor as Actor;
  const key = (ctx: Context) => param(ctx, 'queueKey');

  router.get('/queues', moderator, async (ctx) => {
    ctx.body = { items: await listQueues(deps.pool, actorOf(ctx)) } satisfies Answer<
      Paths,
      '/v1/admin/queues',
      'get'
    >;
  });
  router.post('/queues', admin, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await createQueue(deps.pool, actorOf(ctx), ctx.request.body ?? {})) satisfies Answer<
      Paths,
      '/v1/admin/queues',
      'post',
      201
    >;
  });
  router.patch('/queues/:queueKey', admin, requireJsonBody(), async (ctx) => {
    ctx.body = (await changeQueue(
      deps.pool,
      actorOf(ctx),
      key(ctx),
      ctx.request.body ?? {},
    )) satisfies Answer<Paths, '/v1/admin/queues/{queueKey}', 'patch'>;
  });
  router.delete('/queues/:queueKey', admin, async (ctx) => {
    await archiveQueue(deps.pool, actorOf(ctx), key(ctx));
    ctx.status = 204;
  });
  router.get('/queue-rules', moderator, async (ctx) => {
    ctx.body = { items: await listRules(deps.pool), defaultQueue: DEFAULT_QUEUE } satisfies Answer<
      Paths,
      '/v1/admin/queue-rules',
      'get'
    >;
  });
  router.put('/queue-rules', admin, requireJsonBody(), async (ctx) => {
    const { rules, rerouted } = await replaceRules(deps.pool, actorOf(ctx), ctx.request.body ?? {});
    ctx.body = { items: rules, defaultQueue: DEFAULT_QUEUE, rerouted } satisfies Answer<
      Paths,
      '/v1/admin/queue-rules',
      'put'
    >;
  });
  router.get('/studios', moderator, async (ctx) => {
    ctx.body = { items: await listStudiosAndGames(deps.pool) } satisfies Answer<
      Paths,
      '/v1/admin/studios',
      'get'
    >;
  });
  return router;
}
