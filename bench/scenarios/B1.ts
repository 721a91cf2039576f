import { rawSql, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 2,
  what: 'the report statement, one report a call, driven directly',
  make: (ctx) => (s) => ctx.direct(rawSql(ctx.pool, ctx.nextReport, s)),
};
export default scenario;
