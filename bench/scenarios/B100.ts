import { BULK, GROUP_IN_FLIGHT, rawSql, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 3,
  what: "the report statement, 100 reports a call, as many in flight as the API's group commit",
  against: { B1: undefined },
  make: (ctx) => (s) => ctx.direct(rawSql(ctx.pool, ctx.nextReport, s, BULK, GROUP_IN_FLIGHT)),
};
export default scenario;
