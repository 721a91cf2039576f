import { savedFilterRoutes } from './routes/saved-filters/routes.js';
import { queueRoutes } from './routes/review-queues/routes.js';
import { tagRoutes } from './routes/tags/routes.js';
import { noteRoutes } from './routes/notes/routes.js';
import { templateRoutes } from './routes/templates/routes.js';
import { transparencyRoutes } from './routes/transparency/routes.js';
import { complianceRoutes } from './routes/compliance/routes.js';
import { erasureRoutes } from './routes/erasures/routes.js';
import { retentionRoutes } from './routes/retention/routes.js';
import { WAVE_PATHS, waveRoutes } from './routes/waves/routes.js';
import { ruleRoutes } from './routes/rules/routes.js';
import { noticeRoutes } from './routes/notices/routes.js';
import { standingRoutes } from './routes/standing/routes.js';
import { signalRoutes } from './routes/signals/routes.js';
import { matchRoutes } from './routes/matches/routes.js';
import { DEPRECATIONS, deprecationMiddleware } from './deprecations.js';
import type { ApiDeps, AppDeps } from './deps.js';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { errorHandler } from './middleware/errors.js';
import { consistencyTokens } from './middleware/consistency.js';
import { ReadRouting } from '../common/data/replicas.js';
import { jsonBody, refuseNul } from './middleware/body.js';
import { requestContext } from './middleware/request-context.js';
import { RateLimits } from './middleware/rate-limit.js';
import { adminRoutes } from './routes/admin/routes.js';
import { demoRoutes } from './routes/demo/routes.js';
import { consoleSessionRoutes, consoleStatic, docsPages } from './routes/console/routes.js';
import { docsRoutes } from './routes/docs/routes.js';
import { healthRoutes } from './routes/health/routes.js';
import { oauthRoutes } from './routes/oauth/routes.js';
import { playerRoutes } from './routes/players/routes.js';
import { metricsMiddleware, metricsRoutes, queueBoard } from './routes/operations/routes.js';
import { reportRoutes } from './routes/reports/routes.js';
import { webhookRoutes } from './routes/webhooks/routes.js';
import { sanctionRoutes } from './routes/sanctions/routes.js';
import { appealRoutes } from './routes/appeals/routes.js';

/** Builds the Koa application: middleware order and routers, no listen(). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.use(requestContext(deps.log));
  if (deps.metrics) app.use(metricsMiddleware(deps.metrics));
  app.use(errorHandler);
  const deprecations = deps.deprecations ?? DEPRECATIONS;
  app.use(deprecationMiddleware(deprecations));
  const reads =
    deps.reads ??
    new ReadRouting(deps.pool, [], { maxLagMs: 0, tokenWaitMs: 0, checkIntervalMs: 1000, poolSize: 1 });
  app.use(consistencyTokens(reads, deps.log));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(jsonBody(deps.config.bodyLimit, { path: WAVE_PATHS, limit: deps.config.waveBodyLimit }));
  app.use(
    bodyParser({
      // JSON is read by jsonBody (strict UTF-8, no __proto__); the OAuth forms by koa-bodyparser.
      enableTypes: ['form'],
      formLimit: deps.config.bodyLimit,
      // Parse failures reach the error handler as errors with a type, not as a plain 400 text.
      onerror: (err) => {
        throw err;
      },
    }),
  );
  app.use(refuseNul);
  const routeDeps: ApiDeps = {
    ...deps,
    reads,
    rateLimits: new RateLimits({
      redis: deps.redis,
      keyPrefix: deps.config.queuePrefix,
      defaults: deps.config.limits,
      timeoutMs: deps.config.rateLimitTimeoutMs,
      log: deps.log,
      onUnavailable: (group) => deps.metrics?.rateLimiterUnavailable.inc({ group }),
    }),
  };
  const routers = [
    healthRoutes(routeDeps),
    oauthRoutes(routeDeps),
    playerRoutes(routeDeps),
    reportRoutes(routeDeps),
    adminRoutes(routeDeps),
    webhookRoutes(routeDeps),
    sanctionRoutes(routeDeps),
    appealRoutes(routeDeps),
    docsRoutes(deprecations),
    docsPages(deps.config.devMailboxUrl),
    consoleSessionRoutes(routeDeps),
    standingRoutes(routeDeps),
    templateRoutes(routeDeps),
    noteRoutes(routeDeps),
    tagRoutes(routeDeps),
    savedFilterRoutes(routeDeps),
    queueRoutes(routeDeps),
    transparencyRoutes(routeDeps),
    complianceRoutes(routeDeps),
    erasureRoutes(routeDeps),
    retentionRoutes(routeDeps),
    waveRoutes(routeDeps),
    ruleRoutes(routeDeps),
    noticeRoutes(routeDeps),
    signalRoutes(routeDeps),
    matchRoutes(routeDeps),
  ];
  for (const middleware of consoleStatic(routeDeps)) app.use(middleware);
  if (deps.metrics) routers.push(metricsRoutes(deps.metrics, deps.config.metricsToken));
  if (deps.queues) for (const middleware of queueBoard(routeDeps, deps.queues)) app.use(middleware);
  if (deps.config.nodeEnv !== 'production') routers.push(demoRoutes(deps.issuer, deps.config.dataDir));
  for (const router of routers) {
    app.use(router.routes());
    // Not thrown: the router sets 405 (or 501) with the Allow header, and the error handler turns
    // that into a problem document that keeps it (RFC 9110 15.5.6).
    app.use(router.allowedMethods({ throw: false }));
  }
  return app;
}
