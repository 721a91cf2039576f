import type { Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 4,
  what: "a studio reads a random player's profile",
  against: { B0: 0.1, BP: 0.5 },
  make: (ctx) => ctx.profilesAt(ctx.apiUrl),
};
export default scenario;
