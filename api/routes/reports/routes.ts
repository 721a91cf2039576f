import { Router } from '@koa/router';
import { REPORT_KINDS, type ReportKind } from '../../../common/domain/reports.js';
import { notFound } from '../../../common/errors.js';
import { reportFiling, submitReport } from '../../../common/usecases/submit-report.js';
import type { ApiDeps } from '../../deps.js';
import { effectiveLimits } from '../../../common/domain/limits.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { appErrorOf, problemBody, requireJsonBody } from '../../middleware/errors.js';
import { check } from '../../../common/validation.js';
import { BATCH_MAX, batchSchema } from './schema.js';
import { SERVICE_ID } from '../../../common/domain/players.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { optionalHeader, param } from '../../params.js';

type Paths = typeof paths;

export function reportRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1' });
  // Built once: the group commit and the dispatch after commit live with the use case.
  const submitDeps = reportFiling({
    pool: deps.pool,
    queueShards: deps.config.queueShards,
    batchMax: deps.config.reportBatchMax,
    batchesInFlight: deps.config.reportBatchesInFlight,
    batchOverlapAt: deps.config.reportBatchOverlapAt,
    caps: deps.config.penaltyCaps,
    idempotencyTtlHours: deps.config.idempotencyTtlHours,
    credibility: {
      threshold: deps.config.credibilityThreshold,
      minHistory: deps.config.credibilityMinHistory,
    },
    dispatch: (rows) => deps.dispatcher.enqueue(rows),
  });
  for (const kind of Object.keys(REPORT_KINDS) as ReportKind[]) {
    router.post(
      `/${kind}/submitReport/:serviceId`,
      deps.clientAuth.middleware(),
      deps.rateLimits.middleware('reports'),
      requireJsonBody(),
      async (ctx) => {
        const serviceId = param(ctx, 'serviceId');
        // Sent but empty is a mistake, not "no key": a retry without it would apply twice.
        const key = optionalHeader(ctx, 'Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
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
        ctx.body = result.body satisfies Answer<Paths, '/v1/anticheat/submitReport/{serviceId}', 'post', 201>;
      },
    );
  }
  // Bulk submission: up to 100 reports of any kinds in one request, each answered as the single
  // endpoint would (its 201 body or its problem document), in order; the ones without an
  // Idempotency-Key are submitted in the same tick, so the group commit files them together.
  router.post(
    '/reports/batch',
    deps.clientAuth.middleware(),
    requireJsonBody(),
    deps.rateLimits.middleware('reports', (ctx) => {
      const reports = (ctx.request.body as { reports?: unknown } | undefined)?.reports;
      return Array.isArray(reports) ? Math.min(reports.length, BATCH_MAX) : 1;
    }),
    async (ctx) => {
      const { reports } = check<{ reports: BatchItem[] }>(batchSchema, ctx.request.body);
      const client = ctx.state.client as AuthenticatedClient;
      const tenant = {
        gameId: client.gameId,
        studioId: client.studioId,
        limits: effectiveLimits(deps.config.limits, client.limits),
      };
      const requestId = ctx.state.requestId as string;
      const results = await Promise.all(
        reports.map(async (item) => {
          try {
            if (!SERVICE_ID.test(item.serviceId)) throw notFound(`Player ${item.serviceId}`);
            const result = await submitReport(submitDeps, {
              kind: item.kind,
              serviceId: item.serviceId,
              tenant,
              body: { report: item.report },
              idempotencyKey: item.idempotencyKey,
            });
            return {
              status: result.status,
              ...(result.replayed ? { replayed: true as const } : {}),
              body: result.body,
            };
          } catch (err) {
            const { appError, unexpected } = appErrorOf(err, requestId);
            if (unexpected) ctx.state.log?.error({ err: (err as Error).message }, 'batch item failed');
            return { status: appError.status, body: problemBody(appError, requestId) };
          }
        }),
      );
      ctx.status = 207;
      ctx.body = { results } satisfies Answer<Paths, '/v1/reports/batch', 'post', 207>;
    },
  );

  return router;
}

interface BatchItem {
  kind: ReportKind;
  serviceId: string;
  report: unknown;
  idempotencyKey?: string;
}
