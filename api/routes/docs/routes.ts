import { Router } from '@koa/router';
import { markDeprecated, type Deprecation } from '../../deprecations.js';
import { openApiDocument } from '../../openapi.js';

export function docsRoutes(deprecations: readonly Deprecation[]): Router {
  const router = new Router();
  const body = JSON.stringify(markDeprecated(openApiDocument, deprecations));
  router.get('/v1/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = body;
  });
  return router;
}
