import { run, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 11,
  what: 'every report on one hot player (its final score is checked exact)',
  against: { R: 0.9 },
  make: (ctx) => (s) =>
    run({
      url: ctx.apiUrl,
      duration: s,
      requests: [
        {
          method: 'POST',
          headers: ctx.headers,
          body: ctx.reportBody,
          path: `/v1/anticheat/submitReport/${ctx.hot}`,
        },
      ],
    }),
};
export default scenario;
