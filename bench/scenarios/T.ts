import { run, type Scenario } from '../harness.js';

const scenario: Scenario = {
  order: 5,
  what: 'the OAuth token exchange of pre-issued authorization codes',
  against: { B0: 0.2 },
  make: (ctx) => (s) =>
    run({
      url: ctx.apiUrl,
      duration: s,
      requests: [
        {
          method: 'POST',
          path: '/v1/oauth/token',
          headers: { 'content-type': 'application/json' },
          setupRequest: (r) => ({
            ...r,
            body: JSON.stringify({
              grant_type: 'authorization_code',
              code: ctx.nextCode(),
              client_id: ctx.game.clientId,
              client_secret: ctx.game.clientSecret,
            }),
          }),
        },
      ],
    }),
};
export default scenario;
