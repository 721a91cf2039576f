import { rawProfiles, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 1,
  what: 'the profile statement alone, driven directly: the reference for P, as B1 is for R',
  make: (ctx) => (s) => rawProfiles(ctx.pool, ctx.randomPlayer, ctx.tenant.studioId, s),
};
export default scenario;
