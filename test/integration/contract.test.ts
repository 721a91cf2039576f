import { expect } from 'chai';
import type Router from '@koa/router';
import { openApiDocument } from '../../api/openapi.js';
import { AUDIT_ACTIONS } from '../../common/data/repos/moderation.js';
import { startTestApi, type TestApi } from '../helpers/app.js';

/** Koa's path syntax to OpenAPI's: /v1/player/:serviceId -> /v1/player/{serviceId}. */
const toTemplate = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Pages for people, not operations of the JSON contract: the API reference page and its assets, and
 * the demo callback (development only), documented in the README.
 */
const NOT_OPERATIONS = new Set([
  'GET /docs',
  'GET /docs/assets/{file}',
  'GET /demo/callback',
  // The player's standing page and its forms (docs/studios.md "Players"): pages for people, like the console.
  'GET /standing',
  'POST /standing/sign-in',
  'POST /standing/appeal',
  'POST /standing/sign-out',
  // The page's download of the player's own data (the export's JSON, docs/compliance.md "Personal data"), and
  // the same as a readable page.
  'GET /standing/export',
  'GET /standing/record',
  // The public notice form and the notifier's page (docs/moderators.md "Notices"): pages for people.
  'GET /notice',
  'POST /notice',
  'GET /notice/status',
  'POST /notice/status',
  'POST /notice/complaint',
]);

/** Documented operations served by mounted middleware, not a router: the console's files and the queue board. */
const MOUNTED = new Set(['GET /console', 'GET /admin/queues']);

describe('The contract covers the routes: every route registered in Koa is an operation, and the reverse', function () {
  this.timeout(30_000);
  let api: TestApi;
  before(async () => (api = await startTestApi({ NODE_ENV: 'test' })));
  after(async () => await api?.close());

  it('the routes of every router are the operations of the document, and no more', () => {
    const routes = new Set<string>();
    for (const mw of api.app.middleware as ((...a: unknown[]) => unknown)[]) {
      const router = (mw as { router?: Router }).router;
      if (!router) continue;
      for (const layer of router.stack)
        for (const method of layer.methods.map((m) => m.toLowerCase()).filter((m) => METHODS.includes(m)))
          routes.add(`${method.toUpperCase()} ${toTemplate(layer.path as string)}`);
    }
    const operations = new Set<string>();
    for (const [path, item] of Object.entries(
      openApiDocument.paths as Record<string, Record<string, unknown>>,
    ))
      for (const method of Object.keys(item).filter((m) => METHODS.includes(m)))
        operations.add(`${method.toUpperCase()} ${path}`);

    const undocumented = [...routes].filter((r) => !operations.has(r) && !NOT_OPERATIONS.has(r)).sort();
    const unrouted = [...operations].filter((o) => !routes.has(o) && !MOUNTED.has(o)).sort();
    expect(undocumented, 'routes registered in Koa with no operation in the document').to.deep.equal([]);
    expect(unrouted, 'operations of the document with no route registered in Koa').to.deep.equal([]);
    expect(routes.size).to.be.greaterThan(50);
  });

  it("the audit actions the document lists are the ones the database's check constraint takes", async () => {
    const { rows } = await api.pool.query<{ def: string }>(
      "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'moderation_audit_action_check'",
    );
    const inDatabase = [...rows[0]!.def.matchAll(/'([a-z_]+)'::text/g)].map((m) => m[1]).sort();
    expect(inDatabase).to.deep.equal([...AUDIT_ACTIONS].sort());
    const schemas = (
      openApiDocument as unknown as {
        components: { schemas: Record<string, { properties: Record<string, { enum: string[] }> }> };
      }
    ).components.schemas;
    expect([...schemas.AuditEntry!.properties.action!.enum].sort()).to.deep.equal(inDatabase);
  });
});
