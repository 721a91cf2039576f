import { Router } from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../../../common/errors.js';
import { linksOf, listSuspicions } from '../../../common/data/repos/signals.js';
import { signalKeysFrom } from '../../../common/domain/signals.js';
import {
  clearEvasionSuspicion,
  recordBulkSignals,
  recordPlayerSignals,
  type SignalDeps,
} from '../../../common/usecases/signals.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import { check } from '../../../common/validation.js';
import type { ApiDeps } from '../../deps.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { param } from '../../params.js';
import { SIGNALS_BULK_MAX } from '../../../common/domain/signals.js';
import { suspicionsQuery } from './schema.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;

/**
 * Linked accounts (issue 53; docs/studios.md "Linked accounts"): studios send signals about their players'
 * sign-ins and sessions and read their players' links; moderators read every studio's links and
 * the evasion suspicions, and clear one that is not evasion.
 */
export function signalRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const client = deps.clientAuth.middleware();
  const moderator = moderatorAuth(deps);
  const signalDeps: SignalDeps = {
    pool: deps.pool,
    keys: signalKeysFrom(deps.config.signalHashKey, deps.config.signalPreviousHashKeys, deps.pepper),
    clock: deps.clock,
    caps: deps.config.penaltyCaps,
    filing: { queueShards: deps.config.queueShards },
    dispatch: (rows) => deps.dispatcher.enqueue(rows),
  };
  const studioOf = (ctx: Context) => (ctx.state.client as AuthenticatedClient).studioId;

  // The sign-in check: a studio sends what it knows of a sign-in and hears whether it looks like evasion.
  router.post(
    '/v1/player/:serviceId/signals',
    client,
    deps.rateLimits.middleware('reports'),
    requireJsonBody(),
    async (ctx) => {
      ctx.body = (await recordPlayerSignals(
        signalDeps,
        studioOf(ctx),
        param(ctx, 'serviceId'),
        ctx.request.body,
      )) satisfies Answer<Paths, '/v1/player/{serviceId}/signals', 'post'>;
    },
  );

  // Many players' signals at once, each counted against the reports rate as a bulk report is.
  router.post(
    '/v1/signals',
    client,
    deps.rateLimits.middleware('reports', (ctx) => {
      const signals = (ctx.request.body as { signals?: unknown } | undefined)?.signals;
      return Array.isArray(signals) ? Math.min(Math.max(signals.length, 1), SIGNALS_BULK_MAX) : 1;
    }),
    requireJsonBody(),
    async (ctx) => {
      ctx.body = (await recordBulkSignals(signalDeps, studioOf(ctx), ctx.request.body)) satisfies Answer<
        Paths,
        '/v1/signals',
        'post'
      >;
    },
  );

  router.get('/v1/player/:serviceId/links', client, deps.rateLimits.middleware('reads'), async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const found = await linksOf(deps.pool, serviceId, studioOf(ctx), deps.clock());
    if (!found) throw notFound(`Player ${serviceId}`);
    ctx.body = found satisfies Answer<Paths, '/v1/player/{serviceId}/links', 'get'>;
  });

  router.get('/v1/admin/players/:serviceId/links', moderator, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const found = await linksOf(deps.pool, serviceId, null, deps.clock());
    if (!found) throw notFound(`Player ${serviceId}`);
    ctx.body = found satisfies Answer<Paths, '/v1/admin/players/{serviceId}/links', 'get'>;
  });

  router.get('/v1/admin/evasion-suspicions', moderator, async (ctx) => {
    const q = check<{ serviceId?: string; limit: number }>(suspicionsQuery, ctx.query, 'query');
    ctx.body = {
      items: await listSuspicions(deps.pool, {
        serviceId: q.serviceId,
        openOnly: q.serviceId === undefined,
        limit: q.limit,
        now: deps.clock(),
      }),
    } satisfies Answer<Paths, '/v1/admin/evasion-suspicions', 'get'>;
  });

  router.post(
    '/v1/admin/evasion-suspicions/:suspicionId/clear',
    moderator,
    requireJsonBody(),
    async (ctx) => {
      await clearEvasionSuspicion(
        deps.pool,
        ctx.state.actor as Actor,
        param(ctx, 'suspicionId'),
        ctx.request.body,
        deps.clock(),
      );
      ctx.status = 204;
    },
  );

  return router;
}
