import { Router } from '@koa/router';
import { archiveTemplate, createTemplate, listTemplates } from '../../../common/usecases/templates.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/** Decision templates (canned reasons): every moderator reads them; admins write and archive them. */
export function templateRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin/templates' });
  const moderator = moderatorAuth(deps);
  const admin = moderatorAuth(deps, { role: 'admin' });

  router.get('/', moderator, async (ctx) => {
    ctx.body = { items: await listTemplates(deps.pool) } satisfies Answer<
      Paths,
      '/v1/admin/templates',
      'get'
    >;
  });
  router.post('/', admin, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await createTemplate(
      deps.pool,
      (ctx.state.actor as Actor).id,
      ctx.request.body ?? {},
    )) satisfies Answer<Paths, '/v1/admin/templates', 'post', 201>;
  });
  router.delete('/:templateId', admin, async (ctx) => {
    const templateId = param(ctx, 'templateId');
    await archiveTemplate(deps.pool, templateId);
    ctx.status = 204;
  });
  return router;
}
