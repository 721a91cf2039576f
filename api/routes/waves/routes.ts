import { Router } from '@koa/router';
import type { Context } from 'koa';
import type { Moderator } from '../../../common/data/repos/moderation.js';
import type { WaveActor } from '../../../common/lifecycles/wave.js';
import {
  createWave,
  decideWave,
  getWave,
  listWaveMembers,
  listWavesPage,
} from '../../../common/usecases/waves.js';
import type { ApiDeps } from '../../deps.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { param } from '../../params.js';

/** The paths that make a wave: their body may be up to WAVE_BODY_LIMIT (thousands of players). */
export const WAVE_PATHS = /^\/v1\/(admin\/)?waves$/;

/**
 * Ban waves (docs/moderators.md "Waves"): moderators make them from players or cases, an admin approves a large
 * one, and either cancels or rolls one back; a studio makes, follows, cancels and rolls back its own.
 */
type Paths = typeof paths;

export function waveRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const moderator = moderatorAuth(deps);
  const studio = [deps.clientAuth.middleware(), deps.rateLimits.middleware('reports')];
  const modActor = (ctx: Context) => {
    const m = ctx.state.moderator as Moderator;
    return { kind: 'moderator' as const, id: m.id, role: m.role };
  };
  const studioActor = (ctx: Context): WaveActor => ({
    kind: 'studio',
    id: (ctx.state.client as AuthenticatedClient).studioId,
  });
  const waveId = (ctx: Context) => param(ctx, 'waveId');

  for (const [base, auth, actor] of [
    ['/v1/admin/waves', [moderator], modActor],
    ['/v1/waves', studio, studioActor],
  ] as const) {
    const studioId = (ctx: Context) => (base === '/v1/waves' ? studioActor(ctx).id : null);
    router.post(base, ...auth, async (ctx) => {
      const { wave, unmatched, outbox } = await createWave(
        deps.pool,
        actor(ctx),
        ctx.request.body,
        { ...deps.config.waves, protectedTags: deps.config.protectedTags },
        new Date(),
      );
      deps.dispatcher.enqueue(outbox);
      ctx.status = 201;
      ctx.set('Location', `${base}/${wave.id}`);
      ctx.body = { ...wave, unmatched } satisfies Answer<Paths, '/v1/admin/waves', 'post', 201>;
    });
    router.get(base, ...auth, async (ctx) => {
      ctx.body = (await listWavesPage(deps.pool, ctx.query, studioId(ctx))) satisfies Answer<
        Paths,
        '/v1/admin/waves',
        'get'
      >;
    });
    router.get(`${base}/:waveId`, ...auth, async (ctx) => {
      ctx.body = (await getWave(deps.pool, waveId(ctx), studioId(ctx))) satisfies Answer<
        Paths,
        '/v1/admin/waves/{waveId}',
        'get'
      >;
    });
    router.get(`${base}/:waveId/members`, ...auth, async (ctx) => {
      ctx.body = (await listWaveMembers(deps.pool, waveId(ctx), ctx.query, studioId(ctx))) satisfies Answer<
        Paths,
        '/v1/admin/waves/{waveId}/members',
        'get'
      >;
    });
    const events =
      base === '/v1/admin/waves'
        ? (['approve', 'cancel', 'roll_back'] as const)
        : (['cancel', 'roll_back'] as const);
    for (const event of events)
      router.post(`${base}/:waveId/${event === 'roll_back' ? 'rollback' : event}`, ...auth, async (ctx) => {
        const { wave, outbox } = await decideWave(
          deps.pool,
          waveId(ctx),
          actor(ctx),
          event,
          ctx.request.body,
          new Date(),
        );
        deps.dispatcher.enqueue(outbox);
        ctx.status = event === 'roll_back' ? 202 : 200;
        ctx.body = wave satisfies
          | Answer<Paths, '/v1/admin/waves/{waveId}/cancel', 'post'>
          | Answer<Paths, '/v1/admin/waves/{waveId}/rollback', 'post', 202>;
      });
  }
  return router;
}
