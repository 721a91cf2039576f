import { Router } from '@koa/router';
import type { Context } from 'koa';
import type { Moderator } from '../../../common/data/repos/moderation.js';
import {
  approveRule,
  backtestRule,
  createRule,
  getRule,
  listRuleMatches,
  listRuleViews,
  saveRule,
} from '../../../common/usecases/rules.js';
import type { ApiDeps } from '../../deps.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { param } from '../../params.js';

/** Rules (docs/moderators.md "Rules"): moderators read them and their matches; admins write them. */
export function ruleRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const moderator = moderatorAuth(deps);
  const admin = moderatorAuth(deps, { role: 'admin' });
  const actor = (ctx: Context) => ctx.state.moderator as Moderator;
  const ruleId = (ctx: Context) => param(ctx, 'ruleId');

  router.get('/v1/admin/rules', moderator, async (ctx) => {
    ctx.body = (await listRuleViews(deps.pool)) satisfies Answer<Paths, '/v1/admin/rules', 'get'>;
  });
  router.post('/v1/admin/rules', admin, async (ctx) => {
    const rule = await createRule(deps.pool, actor(ctx), ctx.request.body);
    ctx.status = 201;
    ctx.set('Location', `/v1/admin/rules/${rule.id}`);
    ctx.body = rule satisfies Answer<Paths, '/v1/admin/rules', 'post', 201>;
  });
  router.post('/v1/admin/rule-backtests', admin, async (ctx) => {
    ctx.body = (await backtestRule(deps.pool, ctx.request.body)) satisfies Answer<
      Paths,
      '/v1/admin/rule-backtests',
      'post'
    >;
  });
  router.get('/v1/admin/rules/:ruleId', moderator, async (ctx) => {
    ctx.body = (await getRule(deps.pool, ruleId(ctx))) satisfies Answer<
      Paths,
      '/v1/admin/rules/{ruleId}',
      'get'
    >;
  });
  router.put('/v1/admin/rules/:ruleId', admin, async (ctx) => {
    ctx.body = (await saveRule(deps.pool, actor(ctx), ruleId(ctx), ctx.request.body)) satisfies Answer<
      Paths,
      '/v1/admin/rules/{ruleId}',
      'put'
    >;
  });
  router.post('/v1/admin/rules/:ruleId/approve', admin, async (ctx) => {
    ctx.body = (await approveRule(deps.pool, actor(ctx), ruleId(ctx))) satisfies Answer<
      Paths,
      '/v1/admin/rules/{ruleId}/approve',
      'post'
    >;
  });
  router.get('/v1/admin/rules/:ruleId/matches', moderator, async (ctx) => {
    ctx.body = (await listRuleMatches(deps.pool, ruleId(ctx), ctx.query)) satisfies Answer<
      Paths,
      '/v1/admin/rules/{ruleId}/matches',
      'get'
    >;
  });
  return router;
}
