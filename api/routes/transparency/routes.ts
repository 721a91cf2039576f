import { Router } from '@koa/router';
import {
  accounts,
  listStatements,
  putAccount,
  removeAccount,
  retryStatement,
} from '../../../common/usecases/transparency.js';
import { reportCsv, transparencyReport } from '../../../common/usecases/transparency-report.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

/**
 * The DSA Transparency Database (issue 35), for admins: each platform's account (the operator's for
 * global decisions, each studio's for decisions on its games) and the statements: refused ones with
 * the database's words, the oldest pending, and a refused one sent again once mended.
 */
export function transparencyRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin' });
  const admin = moderatorAuth(deps, { role: 'admin' });

  router.get('/transparency/accounts', admin, async (ctx) => {
    ctx.body = (await accounts(deps.pool)) satisfies Answer<Paths, '/v1/admin/transparency/accounts', 'get'>;
  });
  router.put('/transparency/accounts/:platform', admin, requireJsonBody(), async (ctx) => {
    const platform = param(ctx, 'platform');
    const { created, account } = await putAccount(deps.pool, deps.pepper, platform, ctx.request.body ?? {});
    ctx.status = created ? 201 : 200;
    ctx.body = account satisfies
      | Answer<Paths, '/v1/admin/transparency/accounts/{platform}', 'put'>
      | Answer<Paths, '/v1/admin/transparency/accounts/{platform}', 'put', 201>;
  });
  router.delete('/transparency/accounts/:platform', admin, async (ctx) => {
    await removeAccount(deps.pool, param(ctx, 'platform'));
    ctx.status = 204;
  });
  router.get('/transparency/statements', admin, async (ctx) => {
    ctx.body = (await listStatements(deps.pool, ctx.query)) satisfies Answer<
      Paths,
      '/v1/admin/transparency/statements',
      'get'
    >;
  });
  router.post('/transparency/statements/:statementId/retry', admin, async (ctx) => {
    const outbox = await retryStatement(deps.pool, param(ctx, 'statementId'));
    deps.dispatcher.enqueue(outbox);
    ctx.status = 202;
    ctx.body = { state: 'pending' } satisfies Answer<
      Paths,
      '/v1/admin/transparency/statements/{statementId}/retry',
      'post',
      202
    >;
  });
  // The transparency report (Art. 15, 24(1)): JSON, or CSV (format=csv, or Accept: text/csv).
  router.get('/transparency-report', admin, async (ctx) => {
    const wantsCsv =
      ctx.query.format === undefined && ctx.accepts('application/json', 'text/csv') === 'text/csv';
    const { format, report } = await transparencyReport(
      deps.pool,
      { ...ctx.query, ...(wantsCsv ? { format: 'csv' } : {}) },
      { territorialScope: deps.config.tdbTerritorialScope, now: deps.clock() },
    );
    if (format === 'csv') {
      const name = `transparency-report-${report.platform}-${report.period.from.slice(0, 10)}-${report.period.to.slice(0, 10)}.csv`;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${name}"`);
      ctx.body = reportCsv(report.rows);
    } else ctx.body = report satisfies Answer<Paths, '/v1/admin/transparency-report', 'get'>;
  });
  return router;
}
