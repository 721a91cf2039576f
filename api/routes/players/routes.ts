import { Router } from '@koa/router';
import type { Context } from 'koa';
import {
  decodeKeys,
  encodeCursor,
  encodeKeys,
  invalidCursor,
  pageQuery,
  readPage,
} from '../../../common/cursor.js';
import { listTrustHistory } from '../../../common/data/repos/trust.js';
import { check } from '../../../common/validation.js';
import { ProfileReader } from '../../../common/data/profile-reader.js';
import { renderOffensePage } from '../../../common/data/repos/offenses.js';
import { notFound } from '../../../common/errors.js';
import { presentTrustChange } from '../../../common/views.js';
import type { ApiDeps } from '../../deps.js';
import { SERVICE_ID } from '../../../common/domain/players.js';
import { bearerAuth } from '../../middleware/bearer-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { createPlayerForGame } from '../../../common/usecases/players.js';
import { playerDecisions } from '../../../common/usecases/decisions.js';
import { openPlayerExport } from '../../../common/usecases/player-export.js';
import { sendExport } from './export.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { routedRead } from '../../middleware/consistency.js';
import type { Queryable } from '../../../common/data/db.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/** An answer PostgreSQL rendered as JSON text: sent as it is, typed first so Koa does not guess. */
function sendRendered(ctx: Context, json: string) {
  ctx.type = 'application/json';
  ctx.body = json;
}

export function playerRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const reads = deps.rateLimits.middleware('reads');
  const auth = [deps.clientAuth.middleware(), reads];
  // One reader per place reads go (the primary, each standby), so each batches its own reads.
  const readers = new Map<Queryable, ProfileReader>();
  const readerFor = (db: Queryable) => {
    let reader = readers.get(db);
    if (!reader)
      readers.set(db, (reader = new ProfileReader(db, deps.config.profileOffensesLimit, deps.clock)));
    return reader;
  };

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
      // Just written: read back from the primary.
      sendRendered(ctx, await profileBody(deps.pool, serviceId, client.studioId));
    },
  );

  /** The profile as the studio may see it, as PostgreSQL rendered it (JSON text, passed through). */
  async function profileBody(db: Queryable, serviceId: string, viewerStudioId: string) {
    const profile = SERVICE_ID.test(serviceId)
      ? await readerFor(db).read(serviceId, viewerStudioId)
      : undefined;
    if (!profile) throw notFound(`Player ${serviceId}`);
    return profile;
  }

  // Registered before /:serviceId, and "me" is reserved so no player can be called that.
  router.get('/v1/player/me', bearerAuth(deps.tokens, deps.clientAuth), reads, async (ctx) => {
    const bearer = ctx.state.bearer as { serviceId: string; client: AuthenticatedClient };
    sendRendered(
      ctx,
      await routedRead(ctx, deps.reads, (db) => profileBody(db, bearer.serviceId, bearer.client.studioId)),
    );
  });

  // The signed-in player's decisions, each with its statement of reasons.
  router.get('/v1/player/me/decisions', bearerAuth(deps.tokens, deps.clientAuth), reads, async (ctx) => {
    const bearer = ctx.state.bearer as { serviceId: string };
    const { limit, after } = readPage(ctx.query);
    const page = await playerDecisions(
      deps.pool,
      bearer.serviceId,
      {
        now: deps.clock(),
        appealWindowDays: deps.config.appealWindowDays,
        caps: deps.config.penaltyCaps,
      },
      limit,
      after,
    );
    ctx.body = {
      items: page.items,
      nextCursor: page.next && encodeCursor(page.next.ts, page.next.id),
    } satisfies Answer<Paths, '/v1/player/me/decisions', 'get'>;
  });

  router.get('/v1/player/:serviceId', ...auth, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const viewer = (ctx.state.client as AuthenticatedClient).studioId;
    sendRendered(ctx, await routedRead(ctx, deps.reads, (db) => profileBody(db, serviceId, viewer)));
  });

  // The whole record of one of the studio's players (GDPR Art. 15, 20), as it may see it.
  router.get('/v1/player/:serviceId/export', ...auth, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const client = ctx.state.client as AuthenticatedClient;
    const chunks = await openPlayerExport(
      deps.pool,
      serviceId,
      { kind: 'studio', studioId: client.studioId },
      { now: deps.clock(), appealWindowDays: deps.config.appealWindowDays, caps: deps.config.penaltyCaps },
    );
    sendExport(ctx, serviceId, chunks);
  });

  router.get('/v1/player/:serviceId/offenses', ...auth, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const client = ctx.state.client as AuthenticatedClient;
    const { limit, after } = readPage(ctx.query);
    const page = SERVICE_ID.test(serviceId)
      ? await routedRead(ctx, deps.reads, (db) =>
          renderOffensePage(db, serviceId, client.studioId, limit, after),
        )
      : undefined;
    if (!page) throw notFound(`Player ${serviceId}`);
    sendRendered(ctx, page);
  });

  router.get('/v1/player/:serviceId/trust-history', ...auth, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const client = ctx.state.client as AuthenticatedClient;
    const { limit, cursor } = check<{ limit: number; cursor?: string }>(pageQuery, ctx.query, 'query');
    const before =
      cursor === undefined
        ? undefined
        : decodeKeys(cursor, (k) => k.length === 1 && /^\d{1,18}$/.test(k[0]!));
    if (cursor !== undefined && !before) throw invalidCursor();
    const page = SERVICE_ID.test(serviceId)
      ? await routedRead(ctx, deps.reads, (db) => listTrustHistory(db, serviceId, limit, before?.[0]))
      : undefined;
    if (!page) throw notFound(`Player ${serviceId}`);
    ctx.body = {
      items: page.items.map((h) => presentTrustChange(h, client.studioId)),
      nextCursor: page.next === null ? null : encodeKeys([page.next]),
    } satisfies Answer<Paths, '/v1/player/{serviceId}/trust-history', 'get'>;
  });

  return router;
}
