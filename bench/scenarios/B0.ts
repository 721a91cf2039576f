import { run, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 0,
  what: 'a bare Koa route on this machine: the ceiling of any HTTP answer',
  make: (ctx) => (s) => run({ url: `${ctx.bareUrl}/hello`, duration: s }),
};
export default scenario;
