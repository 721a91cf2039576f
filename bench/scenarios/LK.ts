import type { Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 7,
  what: 'the lobby check: 100 random ids a call; its figure is ids/s',
  against: { P: 10 },
  make: (ctx) => ctx.lookupsAt(ctx.apiUrl),
};
export default scenario;
