import { Router } from '@koa/router';
import { openApiDocument } from '../../openapi.js';

export function docsRoutes(): Router {
  const router = new Router();
  const body = JSON.stringify(openApiDocument);
  router.get('/v1/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = body;
  });
  return router;
}
