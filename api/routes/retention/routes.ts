import { Router } from '@koa/router';
import type { Moderator } from '../../../common/data/repos/moderation.js';
import { retentionOverview, runRetentionNow } from '../../../common/usecases/retention.js';
import type { ApiDeps } from '../../deps.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;

/**
 * Retention for admins (GDPR Art. 5(1)(e); docs/compliance.md "Personal data"): each kind's window and what is due
 * now, and a run now (the scheduled job's run, under its lock) or a dry run.
 */
export function retentionRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const admin = moderatorAuth(deps, { role: 'admin' });
  router.get('/v1/admin/retention', admin, async (ctx) => {
    ctx.body = (await retentionOverview(
      deps.pool,
      deps.config.retentionDays,
      deps.config.retentionIntervalMs,
    )) satisfies Answer<Paths, '/v1/admin/retention', 'get'>;
  });
  router.post('/v1/admin/retention/runs', admin, async (ctx) => {
    ctx.body = (await runRetentionNow(
      deps.pool,
      deps.config.retentionDays,
      { kind: 'admin', moderatorId: (ctx.state.moderator as Moderator).id },
      ctx.request.body,
    )) satisfies Answer<Paths, '/v1/admin/retention/runs', 'post'>;
  });
  return router;
}
