import { Router } from '@koa/router';
import type { Context } from 'koa';
import { decodeCursor, encodeCursor, invalidCursor } from '../../../common/cursor.js';
import { listSanctions, lookupPlayers } from '../../../common/data/repos/sanctions.js';
import { SERVICE_ID } from '../../../common/domain/players.js';
import { partyStanding } from '../../../common/domain/parties.js';
import { notFound, validationError } from '../../../common/errors.js';
import {
  extendSanction,
  placeSanction,
  revokeSanction,
  type SanctionActor,
} from '../../../common/usecases/sanctions.js';
import { placeOrAwaitApproval } from '../../../common/usecases/waves.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import { check } from '../../../common/validation.js';
import { presentSanction } from '../../../common/views.js';
import type { ApiDeps } from '../../deps.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { routedRead } from '../../middleware/consistency.js';
import { LOOKUP_MAX, listQuery, lookupBody } from './schema.js';
import type { Queryable } from '../../../common/data/db.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

const serviceIdOf = (ctx: Context) => param(ctx, 'serviceId');

interface LookupBody {
  serviceIds?: string[];
  parties?: { party: string; serviceIds: string[] }[];
}

/**
 * What the lobby's shape forbids beyond each field's own rule: a party named twice, a player in two
 * parties (which one would they queue with?), and more than LOOKUP_MAX players in all. A 400 naming the field.
 */
function lobbyProblems(body: LookupBody): void {
  const partyOf = new Map<string, string>();
  const fields: { field: string; message: string }[] = [];
  const named = new Set<string>();
  (body.parties ?? []).forEach((p, i) => {
    if (named.has(p.party))
      fields.push({ field: `parties.${i}.party`, message: `names the party ${p.party} a second time` });
    named.add(p.party);
    p.serviceIds.forEach((id, j) => {
      const other = partyOf.get(id);
      if (other !== undefined)
        fields.push({
          field: `parties.${i}.serviceIds.${j}`,
          message: `is in two parties (${other} and ${p.party}): a player is in one party`,
        });
      else partyOf.set(id, p.party);
    });
  });
  const all = new Set([...(body.serviceIds ?? []), ...partyOf.keys()]);
  if (all.size > LOOKUP_MAX)
    fields.push({
      field: 'body',
      message: `names ${all.size} players (serviceIds and the parties' members together); at most ${LOOKUP_MAX}`,
    });
  if (fields.length) throw validationError(fields);
}

/**
 * Sanctions: studios place and revoke their own studio's on players of their games and read what
 * they may see; moderators place and revoke any; the lobby check reads many players at once.
 */
export function sanctionRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const client = deps.clientAuth.middleware();
  const studioOf = (ctx: Context): SanctionActor => ({
    kind: 'studio',
    id: (ctx.state.client as AuthenticatedClient).studioId,
  });
  const moderatorOf = (ctx: Context): SanctionActor => ({
    kind: 'moderator',
    id: (ctx.state.actor as Actor).id,
  });
  const moderator = moderatorAuth(deps);

  async function list(ctx: Context, viewerStudioId: string | null) {
    const serviceId = serviceIdOf(ctx);
    const q = check<{ active: boolean; limit: number; cursor?: string }>(listQuery, ctx.query, 'query');
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    if (q.cursor !== undefined && !after) throw invalidCursor();
    // A studio's read may come from a standby; the console's list, which a moderator acts on, not.
    const read = (db: Queryable) =>
      listSanctions(db, {
        serviceId,
        viewerStudioId,
        activeOnly: q.active,
        limit: q.limit,
        after,
        now: deps.clock(),
      });
    const page = viewerStudioId === null ? await read(deps.pool) : await routedRead(ctx, deps.reads, read);
    if (!page) throw notFound(`Player ${serviceId}`);
    ctx.body = {
      items: page.items.map(presentSanction),
      nextCursor: page.next && encodeCursor(page.next.ts, page.next.id),
    } satisfies Answer<Paths, '/v1/player/{serviceId}/sanctions', 'get'> &
      Answer<Paths, '/v1/admin/players/{serviceId}/sanctions', 'get'>;
  }

  const place = (actorOf: (ctx: Context) => SanctionActor) => async (ctx: Context) => {
    const { sanction, outbox } = await placeSanction(
      deps.pool,
      actorOf(ctx),
      serviceIdOf(ctx),
      ctx.request.body ?? {},
      deps.clock(),
      deps.config.appealWindowDays,
    );
    deps.dispatcher.enqueue(outbox);
    ctx.status = 201;
    ctx.body = presentSanction(sanction) satisfies Answer<
      Paths,
      '/v1/player/{serviceId}/sanctions',
      'post',
      201
    >;
  };
  const revoke = (actorOf: (ctx: Context) => SanctionActor) => async (ctx: Context) => {
    const sanctionId = param(ctx, 'sanctionId');
    const { sanction, outbox } = await revokeSanction(
      deps.pool,
      actorOf(ctx),
      serviceIdOf(ctx),
      sanctionId,
      ctx.request.body ?? {},
      deps.clock(),
    );
    deps.dispatcher.enqueue(outbox);
    ctx.body = presentSanction(sanction) satisfies Answer<
      Paths,
      '/v1/player/{serviceId}/sanctions/{sanctionId}/revoke',
      'post'
    > &
      Answer<Paths, '/v1/admin/players/{serviceId}/sanctions/{sanctionId}/revoke', 'post'>;
  };

  const reads = deps.rateLimits.middleware('reads');
  const writes = deps.rateLimits.middleware('reports');
  router.get('/v1/player/:serviceId/sanctions', client, reads, (ctx) =>
    list(ctx, (ctx.state.client as AuthenticatedClient).studioId),
  );
  router.post('/v1/player/:serviceId/sanctions', client, writes, requireJsonBody(), place(studioOf));
  router.post(
    '/v1/player/:serviceId/sanctions/:sanctionId/revoke',
    client,
    writes,
    requireJsonBody(),
    revoke(studioOf),
  );
  router.get('/v1/admin/players/:serviceId/sanctions', moderator, (ctx) => list(ctx, null));
  // A moderator's: at once, or (four eyes) as a one-player wave awaiting a second moderator: 202.
  router.post('/v1/admin/players/:serviceId/sanctions', moderator, requireJsonBody(), async (ctx) => {
    const by = moderatorOf(ctx) as { kind: 'moderator'; id: string };
    const done = await placeOrAwaitApproval(
      deps.pool,
      by,
      serviceIdOf(ctx),
      ctx.request.body ?? {},
      {
        ...deps.config.waves,
        protectedTags: deps.config.protectedTags,
        permanentBans: deps.config.fourEyesPermanentBans,
      },
      deps.clock(),
      deps.config.appealWindowDays,
    );
    if (done.awaiting) {
      deps.dispatcher.enqueue(done.outbox);
      ctx.status = 202;
      ctx.set('Location', `/v1/admin/waves/${done.awaiting.id}`);
      ctx.body = done.awaiting satisfies Answer<
        Paths,
        '/v1/admin/players/{serviceId}/sanctions',
        'post',
        202
      >;
      return;
    }
    deps.dispatcher.enqueue(done.placed.outbox);
    ctx.status = 201;
    ctx.body = presentSanction(done.placed.sanction) satisfies Answer<
      Paths,
      '/v1/admin/players/{serviceId}/sanctions',
      'post',
      201
    >;
  });
  // Extends a sanction in force to the accounts strongly linked to its player (docs/linked-accounts.md).
  router.post('/v1/admin/sanctions/:sanctionId/extend', moderator, async (ctx) => {
    const done = await extendSanction(
      deps.pool,
      moderatorOf(ctx),
      param(ctx, 'sanctionId'),
      deps.clock(),
      deps.config.appealWindowDays,
    );
    deps.dispatcher.enqueue(done.outbox);
    ctx.status = 200;
    ctx.body = {
      sanctions: done.sanctions.map(presentSanction),
      skipped: done.skipped,
    } satisfies Answer<Paths, '/v1/admin/sanctions/{sanctionId}/extend', 'post'>;
  });
  router.post(
    '/v1/admin/players/:serviceId/sanctions/:sanctionId/revoke',
    moderator,
    requireJsonBody(),
    revoke(moderatorOf),
  );

  // The lobby check: built to be called on every match start, so one statement for the whole list.
  router.post('/v1/players/lookup', client, reads, requireJsonBody(), async (ctx) => {
    const body = check<LookupBody>(lookupBody, ctx.request.body);
    const parties = body.parties ?? [];
    lobbyProblems(body);
    // Each id answered once, at its first place in the list (the parties' members after serviceIds).
    const asked = [...new Set([...(body.serviceIds ?? []), ...parties.flatMap((p) => p.serviceIds)])];
    const wellFormed = asked.filter((id) => SERVICE_ID.test(id));
    const found =
      wellFormed.length === 0
        ? []
        : await routedRead(ctx, deps.reads, (db) =>
            lookupPlayers(db, wellFormed, (ctx.state.client as AuthenticatedClient).studioId, deps.clock()),
          );
    const byId = new Map(found.map((p) => [p.serviceId, p]));
    ctx.body = {
      // In the order asked, so a matchmaker can zip the answer with its lobby.
      players: wellFormed
        .flatMap((id) => byId.get(id) ?? [])
        .map((p) => ({
          serviceId: p.serviceId,
          trustScore: p.trustScore,
          activeSanctions: p.activeSanctions.map((s) => ({
            id: s.id,
            type: s.type,
            scope: s.scopeStudioId ?? 'global',
            expiresAt: s.expiresAt?.toISOString() ?? null,
            matchesLeft: s.matchesLeft,
          })),
          evasionSuspected: p.evasionSuspected,
          honorLevel: p.honorLevel,
        })),
      notFound: wellFormed.filter((id) => !byId.has(id)),
      invalid: asked.filter((id) => !SERVICE_ID.test(id)),
      ...(body.parties && {
        parties: parties.map((p) => {
          const members = p.serviceIds.flatMap((id) => byId.get(id) ?? []);
          const standing = partyStanding(members);
          return {
            party: p.party,
            members: members.map((m) => m.serviceId),
            notFound: p.serviceIds.filter((id) => SERVICE_ID.test(id) && !byId.has(id)),
            invalid: p.serviceIds.filter((id) => !SERVICE_ID.test(id)),
            trustScore: standing.trustScore,
            lowPriority: standing.lowPriority,
            canQueue: standing.canQueue,
            warnings: standing.warnings,
          };
        }),
      }),
    } satisfies Answer<Paths, '/v1/players/lookup', 'post'>;
  });

  return router;
}
