import { run, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 12,
  what: "a moderator's first page of open cases",
  make: (ctx) => (s) =>
    run({
      url: ctx.apiUrl,
      duration: s,
      requests: [
        {
          method: 'GET',
          path: '/v1/admin/cases?status=open&limit=20',
          headers: { authorization: `Bearer ${ctx.moderatorToken}` },
        },
      ],
    }),
};
export default scenario;
