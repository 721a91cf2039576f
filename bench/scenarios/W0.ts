import { drain, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 9,
  what: 'the enrichment and review workers draining a backlog, one job at a time',
  noWarmup: true,
  make: (ctx) => () =>
    drain(false, { url: ctx.databaseUrl, pool: ctx.pool }, ctx.redisUrl, ctx.tenant, ctx.serviceIds),
};
export default scenario;
