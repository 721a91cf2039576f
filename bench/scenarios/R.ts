import type { Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 6,
  what: 'a studio reports a random player, one report a request',
  against: { B1: 2, B0: 0.1, BK: 0.5 },
  make: (ctx) => ctx.reportsAt(ctx.apiUrl),
};
export default scenario;
