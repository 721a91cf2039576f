import { Router } from '@koa/router';
import { REPORT_KINDS, type ReportKind } from '../../../common/domain/reports.js';
import { notFound, validationError } from '../../../common/errors.js';
import { submitReport, type SubmitReportDeps } from '../../../common/usecases/submit-report.js';
import type { RouteDeps } from '../../app.js';
import { effectiveLimits } from '../../../common/domain/limits.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { SERVICE_ID } from '../../../common/domain/players.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function reportRoutes(deps: RouteDeps): Router {
  const router = new Router({ prefix: '/v1' });
  const submitDeps: SubmitReportDeps = {
    pool: deps.pool,
    caps: deps.config.penaltyCaps,
    idempotencyTtlHours: deps.config.idempotencyTtlHours,
    credibility: {
      threshold: deps.config.credibilityThreshold,
      minHistory: deps.config.credibilityMinHistory,
    },
    afterCommit: (rows) => deps.dispatcher.enqueue(rows),
  };
  for (const kind of Object.keys(REPORT_KINDS) as ReportKind[]) {
    router.post(
      `/${kind}/submitReport/:serviceId`,
      deps.clientAuth.middleware(),
      deps.rateLimits.middleware('reports'),
      requireJsonBody(),
      async (ctx) => {
        const { serviceId } = ctx.params as { serviceId: string };
        if (!SERVICE_ID.test(serviceId)) throw notFound(`Player ${serviceId}`);
        // Sent but empty is a mistake, not "no key": a retry without it would apply twice.
        const key = 'idempotency-key' in ctx.headers ? ctx.get('idempotency-key') : undefined;
        if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
          throw validationError([
            { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
          ]);
        const client = ctx.state.client as AuthenticatedClient;
        const result = await submitReport(submitDeps, {
          kind,
          serviceId,
          tenant: {
            gameId: client.gameId,
            studioId: client.studioId,
            limits: effectiveLimits(deps.config.limits, client.limits),
          },
          body: ctx.request.body,
          idempotencyKey: key,
        });
        if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
        ctx.status = result.status;
        ctx.body = result.body;
      },
    );
  }
  return router;
}
