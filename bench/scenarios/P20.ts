import type { Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 4.5,
  what: "a studio reads the profile of a random player holding 20 offenses (a full profile): issue 27's P",
  against: { B0: 0.1, P: undefined },
  make: (ctx) => ctx.profilesAt(ctx.apiUrl, ctx.randomFullProfile),
};
export default scenario;
