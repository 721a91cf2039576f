import { Router } from '@koa/router';
import type { Context } from 'koa';
import { decodeCursor, encodeCursor, invalidCursor } from '../../../common/cursor.js';
import { listAppeals, listPlayerAppeals } from '../../../common/data/repos/appeals.js';
import { claimAppeal, decideAppeal, fileAppeal, releaseAppeal } from '../../../common/usecases/appeals.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import { check } from '../../../common/validation.js';
import { presentAppeal } from '../../../common/views.js';
import type { ApiDeps } from '../../deps.js';
import { bearerAuth } from '../../middleware/bearer-auth.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { queueQuery } from './schema.js';
import { appealForModerator } from '../../../common/usecases/appeal-context.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/**
 * Appeals: a player files one through OAuth (or a studio for a player of its games) and follows it;
 * moderators work the appeals queue, oldest first, claiming and deciding like cases.
 */
export function appealRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const bearer = bearerAuth(deps.tokens, deps.clientAuth);
  const client = deps.clientAuth.middleware();
  const writes = deps.rateLimits.middleware('reports');
  const reads = deps.rateLimits.middleware('reads');
  const moderator = moderatorAuth(deps);
  const file = async (
    ctx: Context,
    serviceId: string,
    filedBy: { kind: 'player' } | { kind: 'studio'; id: string },
  ) => {
    const { appeal, outbox } = await fileAppeal(deps.pool, {
      serviceId,
      filedBy,
      body: ctx.request.body ?? {},
      now: deps.clock(),
      windowDays: deps.config.appealWindowDays,
    });
    deps.dispatcher.enqueue(outbox);
    ctx.status = 201;
    ctx.body = presentAppeal(appeal) satisfies Answer<Paths, '/v1/player/me/appeals', 'post', 201> &
      Answer<Paths, '/v1/player/{serviceId}/appeals', 'post', 201>;
  };
  const appealId = (ctx: Context) => param(ctx, 'appealId');

  router.post('/v1/player/me/appeals', bearer, writes, requireJsonBody(), (ctx) =>
    file(ctx, (ctx.state.bearer as { serviceId: string }).serviceId, { kind: 'player' }),
  );
  router.get('/v1/player/me/appeals', bearer, reads, async (ctx) => {
    const appeals = await listPlayerAppeals(deps.pool, (ctx.state.bearer as { serviceId: string }).serviceId);
    ctx.body = { items: appeals.map(presentAppeal) } satisfies Answer<Paths, '/v1/player/me/appeals', 'get'>;
  });
  router.post('/v1/player/:serviceId/appeals', client, writes, requireJsonBody(), (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    return file(ctx, serviceId, { kind: 'studio', id: (ctx.state.client as AuthenticatedClient).studioId });
  });

  router.get('/v1/admin/appeals', moderator, async (ctx) => {
    const q = check<{
      status: 'open' | 'granted' | 'denied';
      serviceId?: string;
      limit: number;
      cursor?: string;
    }>(queueQuery, ctx.query, 'query');
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    if (q.cursor !== undefined && !after) throw invalidCursor();
    const page = await listAppeals(deps.pool, q, q.limit, after);
    ctx.body = {
      items: page.items.map(presentAppeal),
      nextCursor: page.next && encodeCursor(page.next.ts, page.next.id),
    } satisfies Answer<Paths, '/v1/admin/appeals', 'get'>;
  });
  router.get('/v1/admin/appeals/:appealId', moderator, async (ctx) => {
    ctx.body = (await appealForModerator(deps.pool, appealId(ctx), deps.clock())) satisfies Answer<
      Paths,
      '/v1/admin/appeals/{appealId}',
      'get'
    >;
  });
  router.post('/v1/admin/appeals/:appealId/claim', moderator, async (ctx) => {
    ctx.body = presentAppeal(
      await claimAppeal(deps.pool, ctx.state.actor as Actor, appealId(ctx), deps.config.caseLeaseSeconds),
    ) satisfies Answer<Paths, '/v1/admin/appeals/{appealId}/claim', 'post'>;
  });
  router.post('/v1/admin/appeals/:appealId/release', moderator, async (ctx) => {
    ctx.body = presentAppeal(
      await releaseAppeal(deps.pool, ctx.state.actor as Actor, appealId(ctx)),
    ) satisfies Answer<Paths, '/v1/admin/appeals/{appealId}/release', 'post'>;
  });
  router.post('/v1/admin/appeals/:appealId/decide', moderator, requireJsonBody(), async (ctx) => {
    const { appeal, outbox } = await decideAppeal(
      deps.pool,
      ctx.state.actor as Actor,
      appealId(ctx),
      ctx.request.body ?? {},
      deps.clock(),
      {
        dueHours: deps.config.caseDueHours,
        flaggedDueHours: deps.config.trustedFlaggerDueHours,
        urgentDueHours: deps.config.urgentNoticeDueHours,
        misuse: deps.config.misuse,
        complaintDays: deps.config.noticeComplaintDays,
      },
    );
    deps.dispatcher.enqueue(outbox);
    ctx.body = presentAppeal(appeal) satisfies Answer<Paths, '/v1/admin/appeals/{appealId}/decide', 'post'>;
  });
  return router;
}
