import { Router } from '@koa/router';
import { REPORT_KINDS, type ReportKind } from '../../../common/domain/reports.js';
import { notFound, validationError } from '../../../common/errors.js';
import { submitReport, type SubmitReportDeps } from '../../../common/usecases/submit-report.js';
import type { ApiDeps } from '../../deps.js';
import { effectiveLimits } from '../../../common/domain/limits.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { appErrorOf, problemBody, requireJsonBody } from '../../middleware/errors.js';
import { check } from '../../../common/validation.js';
import { BATCH_MAX, batchSchema, IDEMPOTENCY_KEY } from './schema.js';
import { SERVICE_ID } from '../../../common/domain/players.js';
import { withRetries } from '../../../common/data/db.js';
import { GroupCommit } from '../../../common/data/group-commit.js';
import {
  recordReports,
  type RecordOutcome,
  type ReportToRecord,
} from '../../../common/data/repos/offenses.js';

/** PostgreSQL's data and integrity errors (classes 22, 23) can be one report's fault; others not. */
const isItemFault = (err: unknown) => /^2[23]/.test((err as { code?: string }).code ?? '');

export function reportRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1' });
  // Reports that arrive together (from any number of requests) are filed by one statement and one
  // commit; a deadlock retries the batch; an error that may be one report's fault is isolated.
  const filing = { queueShards: deps.config.queueShards };
  const groupCommit = new GroupCommit<ReportToRecord, RecordOutcome>(
    (items) => withRetries(() => recordReports(deps.pool, items, filing)),
    {
      maxBatch: deps.config.reportBatchMax,
      maxInFlight: deps.config.reportBatchesInFlight,
      isolate: isItemFault,
      // Reports on one player apply in the order they arrived: one player, one batch at a time.
      keyOf: (item) => item.serviceId,
    },
  );
  const submitDeps: SubmitReportDeps = {
    pool: deps.pool,
    filing,
    caps: deps.config.penaltyCaps,
    idempotencyTtlHours: deps.config.idempotencyTtlHours,
    credibility: {
      threshold: deps.config.credibilityThreshold,
      minHistory: deps.config.credibilityMinHistory,
    },
    afterCommit: (rows) => deps.dispatcher.enqueue(rows),
    write: (item) => groupCommit.submit(item),
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
              ...(result.replayed ? { replayed: true } : {}),
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
      ctx.body = { results };
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
