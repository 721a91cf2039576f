import { Router } from '@koa/router';
import type { Context } from 'koa';
import { addTag, removeTag, tagsOf, type TagSubject } from '../../../common/usecases/tags.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/** Tags on cases and players: moderators only. */
export function tagRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin' });
  const auth = moderatorAuth(deps);
  const subjects: [string, (ctx: Context) => TagSubject][] = [
    ['/cases/:caseId/tags', (ctx) => ({ kind: 'case', caseId: param(ctx, 'caseId') })],
    ['/players/:serviceId/tags', (ctx) => ({ kind: 'player', serviceId: param(ctx, 'serviceId') })],
  ];
  for (const [path, subject] of subjects) {
    router.get(path, auth, async (ctx) => {
      ctx.body = { tags: await tagsOf(deps.pool, subject(ctx)) } satisfies Answer<
        Paths,
        '/v1/admin/cases/{caseId}/tags',
        'get'
      >;
    });
    router.post(path, auth, requireJsonBody(), async (ctx) => {
      ctx.body = {
        tags: await addTag(
          deps.pool,
          ctx.state.actor as Actor,
          subject(ctx),
          ctx.request.body ?? {},
          deps.config.protectedTags,
        ),
      } satisfies Answer<Paths, '/v1/admin/cases/{caseId}/tags', 'post'>;
    });
    router.delete(`${path}/:tag`, auth, async (ctx) => {
      ctx.body = {
        tags: await removeTag(
          deps.pool,
          ctx.state.actor as Actor,
          subject(ctx),
          param(ctx, 'tag'),
          deps.config.protectedTags,
        ),
      } satisfies Answer<Paths, '/v1/admin/cases/{caseId}/tags/{tag}', 'delete'>;
    });
  }
  return router;
}
