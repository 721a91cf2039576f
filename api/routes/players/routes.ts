import { Router } from '@koa/router';
import Joi from 'joi';
import { decodeKeys, encodeCursor, encodeKeys, invalidCursor, readPage } from '../../../common/cursor.js';
import { listTrustHistory } from '../../../common/data/repos/trust.js';
import { check } from '../../../common/validation.js';
import { ProfileReader } from '../../../common/data/profile-reader.js';
import { listOffenses } from '../../../common/data/repos/offenses.js';
import { notFound } from '../../../common/errors.js';
import { presentOffense, presentProfile, presentTrustChange } from '../../../common/views.js';
import type { RouteDeps } from '../../app.js';
import { SERVICE_ID } from '../../../common/domain/players.js';
import { bearerAuth } from '../../middleware/bearer-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { createPlayerForGame } from '../../../common/usecases/players.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';

export function playerRoutes(deps: RouteDeps): Router {
  const router = new Router();
  const reads = deps.rateLimits.middleware('reads');
  const auth = [deps.clientAuth.middleware(), reads];
  const profiles = new ProfileReader(deps.pool, deps.config.profileOffensesLimit, deps.clock);

  // A studio creates a player (linked to its game), or gets back the one it created before.
  router.post(
    '/v1/players',
    deps.clientAuth.middleware(),
    deps.rateLimits.middleware('reports'),
    requireJsonBody(),
    async (ctx) => {
      const client = ctx.state.client as AuthenticatedClient;
      const { created, serviceId } = await createPlayerForGame(
        deps.pool,
        client.gameId,
        ctx.request.body ?? {},
      );
      ctx.status = created ? 201 : 200;
      ctx.set('Location', `/v1/player/${serviceId}`);
      ctx.body = await profileBody(serviceId, client.studioId);
    },
  );

  async function profileBody(serviceId: string, viewerStudioId: string) {
    const profile = SERVICE_ID.test(serviceId) ? await profiles.read(serviceId) : undefined;
    if (!profile) throw notFound(`Player ${serviceId}`);
    const last = profile.offenses[profile.offenses.length - 1];
    const next =
      profile.offenseCount > profile.offenses.length && last ? encodeCursor(last.cursorTs, last.id) : null;
    return presentProfile(profile, viewerStudioId, next);
  }

  // Registered before /:serviceId, and "me" is reserved so no player can be called that.
  router.get('/v1/player/me', bearerAuth(deps.tokens, deps.clientAuth), reads, async (ctx) => {
    const bearer = ctx.state.bearer as { serviceId: string; client: AuthenticatedClient };
    ctx.body = await profileBody(bearer.serviceId, bearer.client.studioId);
  });

  router.get('/v1/player/:serviceId', ...auth, async (ctx) => {
    const { serviceId } = ctx.params as { serviceId: string };
    ctx.body = await profileBody(serviceId, (ctx.state.client as AuthenticatedClient).studioId);
  });

  router.get('/v1/player/:serviceId/offenses', ...auth, async (ctx) => {
    const { serviceId } = ctx.params as { serviceId: string };
    const client = ctx.state.client as AuthenticatedClient;
    const { limit, after } = readPage(ctx.query);
    const page = SERVICE_ID.test(serviceId)
      ? await listOffenses(deps.pool, serviceId, limit, after)
      : undefined;
    if (!page) throw notFound(`Player ${serviceId}`);
    ctx.body = {
      items: page.items.map((o) => presentOffense(o, client.studioId)),
      nextCursor: page.nextCursor,
    };
  });

  router.get('/v1/player/:serviceId/trust-history', ...auth, async (ctx) => {
    const { serviceId } = ctx.params as { serviceId: string };
    const client = ctx.state.client as AuthenticatedClient;
    const { limit, cursor } = check<{ limit: number; cursor?: string }>(historyQuery, ctx.query, 'query');
    const before =
      cursor === undefined
        ? undefined
        : decodeKeys(cursor, (k) => k.length === 1 && /^\d{1,18}$/.test(k[0]!));
    if (cursor !== undefined && !before) throw invalidCursor();
    const page = SERVICE_ID.test(serviceId)
      ? await listTrustHistory(deps.pool, serviceId, limit, before?.[0])
      : undefined;
    if (!page) throw notFound(`Player ${serviceId}`);
    ctx.body = {
      items: page.items.map((h) => presentTrustChange(h, client.studioId)),
      nextCursor: page.next === null ? null : encodeKeys([page.next]),
    };
  });

  return router;
}

const historyQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(512),
});
