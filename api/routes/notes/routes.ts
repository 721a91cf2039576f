import { Router } from '@koa/router';
import type { Context } from 'koa';
import { addNote, listNotes, type NoteSubject } from '../../../common/usecases/notes.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/** Internal notes on cases and players: moderators only, never in a studio's or a player's answers. */
export function noteRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin' });
  const auth = moderatorAuth(deps);
  const caseOf = (ctx: Context): NoteSubject => ({
    kind: 'case',
    caseId: param(ctx, 'caseId'),
  });
  const playerOf = (ctx: Context): NoteSubject => ({
    kind: 'player',
    serviceId: param(ctx, 'serviceId'),
  });

  for (const [path, subject] of [
    ['/cases/:caseId/notes', caseOf],
    ['/players/:serviceId/notes', playerOf],
  ] as const) {
    router.get(path, auth, async (ctx) => {
      ctx.body = { items: await listNotes(deps.pool, subject(ctx)) } satisfies Answer<
        Paths,
        '/v1/admin/cases/{caseId}/notes',
        'get'
      >;
    });
    router.post(path, auth, requireJsonBody(), async (ctx) => {
      ctx.status = 201;
      ctx.body = (await addNote(
        deps.pool,
        ctx.state.actor as Actor,
        subject(ctx),
        ctx.request.body ?? {},
      )) satisfies Answer<Paths, '/v1/admin/cases/{caseId}/notes', 'post', 201>;
    });
  }
  return router;
}
