import { drain, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 10,
  what: 'the same backlog drained by the batching workers',
  against: { W0: 0.3 },
  noWarmup: true,
  make: (ctx) => () =>
    drain(true, { url: ctx.databaseUrl, pool: ctx.pool }, ctx.redisUrl, ctx.tenant, ctx.serviceIds),
};
export default scenario;
