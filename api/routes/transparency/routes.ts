import { Router } from '@koa/router';
import {
  accounts,
  listStatements,
  putAccount,
  removeAccount,
  retryStatement,
} from '../../../common/usecases/transparency.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';

/**
 * The DSA Transparency Database (issue 35), for admins: each platform's account (the operator's for
 * global decisions, each studio's for decisions on its games) and the statements: refused ones with
 * the database's words, the oldest pending, and a refused one sent again once mended.
 */
export function transparencyRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin/transparency' });
  const admin = moderatorAuth(deps, { role: 'admin' });

  router.get('/accounts', admin, async (ctx) => {
    ctx.body = { items: await accounts(deps.pool) };
  });
  router.put('/accounts/:platform', admin, requireJsonBody(), async (ctx) => {
    const { platform } = ctx.params as { platform: string };
    const { created, account } = await putAccount(deps.pool, deps.pepper, platform, ctx.request.body ?? {});
    ctx.status = created ? 201 : 200;
    ctx.body = account;
  });
  router.delete('/accounts/:platform', admin, async (ctx) => {
    await removeAccount(deps.pool, (ctx.params as { platform: string }).platform);
    ctx.status = 204;
  });
  router.get('/statements', admin, async (ctx) => {
    ctx.body = await listStatements(deps.pool, ctx.query);
  });
  router.post('/statements/:statementId/retry', admin, async (ctx) => {
    const outbox = await retryStatement(deps.pool, (ctx.params as { statementId: string }).statementId);
    deps.dispatcher.enqueue(outbox);
    ctx.status = 202;
    ctx.body = { state: 'pending' };
  });
  return router;
}
