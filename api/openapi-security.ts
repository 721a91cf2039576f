import { JOI } from './contract.js';
import { headerParam } from './params.js';

/**
 * Who may call what, in the OpenAPI document: the security schemes, and the last step of building
 * the document, which gives every operation its `security` and its 405 answer.
 */
export const securitySchemes = {
  clientId: {
    type: 'apiKey',
    in: 'header',
    name: 'client_id',
    description: "The game's client_id; always sent together with client_secret (a game's credentials).",
  },
  clientSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'client_secret',
    description: "The game's client_secret (from the admin tool; shown once).",
  },
  playerBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A player access token from POST /v1/oauth/token, sent with the client_secret of the game it was issued to.',
  },
  moderatorBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A moderator session token from POST /v1/admin/session.',
  },
  trustedFlaggerKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A trusted flagger\'s API key (ptf_...), from an admin\'s POST /v1/admin/trusted-flaggers (docs/moderators.md "Notices").',
  },
  consoleSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'pt_console',
    description:
      "The moderator console's HttpOnly session cookie (POST /v1/admin/console-session); writes also send its CSRF token in X-CSRF-Token.",
  },
  metricsBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'METRICS_TOKEN, when the operator set one (required in production).',
  },
  boardBasic: {
    type: 'http',
    scheme: 'basic',
    description: "An admin moderator's username and password (a browser cannot send a bearer token).",
  },
  oauthClientBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      'client_secret_basic (RFC 6749 2.3.1): client_id:client_secret. A public client, or client_secret_post, sends client_id (and client_secret) in the body instead.',
  },
} as const;

/** A game's credentials: both headers. */
export const studioSecurity = [{ clientId: [], clientSecret: [] }];
/** A moderator: a bearer session token, or the console's session cookie. */
export const moderatorSecurity = [{ moderatorBearer: [] }, { consoleSession: [] }];
/** A player's access token with the client_secret of its game. */
export const playerSecurity = [{ playerBearer: [], clientSecret: [] }];

/** Operations that take no game credentials: what they take instead ([] is public). */
const OTHER_SECURITY: Record<string, readonly object[]> = {
  'GET /healthz': [],
  'GET /readyz': [],
  'GET /v1/openapi.json': [],
  'GET /.well-known/oauth-authorization-server': [],
  'GET /v1/oauth/jwks.json': [],
  // The sign-in page: the player signs in on it.
  'GET /v1/oauth/authorize': [],
  'POST /v1/oauth/authorize': [],
  'POST /v1/oauth/token': [{ oauthClientBasic: [] }, {}],
  'POST /v1/oauth/revoke': [{ oauthClientBasic: [] }, {}],
  'POST /v1/admin/session': [],
  'POST /v1/admin/console-session': [],
  'GET /': [],
  'GET /docs': [],
  'GET /favicon.ico': [],
  'GET /console': [],
  'GET /metrics': [{ metricsBearer: [] }, {}],
  'GET /admin/queues': [{ boardBasic: [] }],
  // Notices from anyone (docs/moderators.md "Notices"): no credentials; where one stands, by its receipt's secret.
  'GET /v1/notices/games': [],
  'GET /v1/notices/{noticeId}': [],
  // The receipt's secret (Notice-Secret) is the credential, as for reading the standing.
  'POST /v1/notices/{noticeId}/complaint': [],
};

/** Reads a standby may serve (common/data/replicas.ts): they honour a Consistency-Token. */
export const STANDBY_READS = new Set([
  'GET /v1/player/me',
  'GET /v1/player/{serviceId}',
  'GET /v1/player/{serviceId}/offenses',
  'GET /v1/player/{serviceId}/trust-history',
  'GET /v1/player/{serviceId}/sanctions',
  'POST /v1/players/lookup',
]);
const consistencyTokenParam = headerParam('Consistency-Token');
const readSourceHeader = {
  description: 'With standbys configured: which served this read, primary or standby.',
  schema: { enum: ['primary', 'standby'] },
};
const consistencyTokenHeader = {
  description:
    'With standbys configured (DATABASE_REPLICA_URLS): a token for read-your-writes. Send it in the Consistency-Token header of a later read to see this change.',
  schema: consistencyTokenParam.schema,
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const CLIENT_HEADERS = new Set(['client_id', 'client_secret']);

interface Operation {
  security?: readonly object[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, unknown>;
  description?: string;
}

/**
 * The finished document: the client_id/client_secret header parameters become the studio's security
 * requirement (the clientId and clientSecret apiKey schemes together); every other operation must
 * declare its security or be listed above (so a new route cannot go out undeclared: building the
 * document throws); and every operation lists 405, the answer to any method its path does not take.
 */
export function finishDocument<T extends { paths: object }>(draft: T): T {
  const doc = structuredClone(draft);
  keepJoiRules(draft.paths, doc.paths);
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = op.parameters ?? [];
      const credentials = params.filter((p) => p.in === 'header' && CLIENT_HEADERS.has(p.name));
      if (credentials.length > 0) {
        op.parameters = params.filter((p) => !credentials.includes(p));
        if (op.parameters.length === 0) delete op.parameters;
        op.security ??= studioSecurity;
      }
      const key = `${method.toUpperCase()} ${path}`;
      op.security ??= OTHER_SECURITY[key];
      if (!op.security) throw new Error(`OpenAPI: ${key} declares no security`);
      op.responses['405'] ??= { $ref: '#/components/responses/MethodNotAllowed' };
      // Read-your-writes across standbys (api/middleware/consistency.ts).
      const responses = Object.entries(op.responses) as [string, { $ref?: string; headers?: object }][];
      if (STANDBY_READS.has(key)) {
        op.parameters = [...(op.parameters ?? []), consistencyTokenParam];
        for (const [status, r] of responses)
          if (status.startsWith('2') && !r.$ref)
            r.headers = { ...r.headers, 'Read-Source': readSourceHeader };
      } else if (method !== 'get' && method !== 'head' && method !== 'options')
        for (const [status, r] of responses)
          if (status.startsWith('2') && !r.$ref)
            r.headers = { ...r.headers, 'Consistency-Token': consistencyTokenHeader };
      // A write with the console's cookie must carry its CSRF token.
      if (method !== 'get' && op.security.some((req) => 'consoleSession' in req)) {
        const csrf = "csrf_failed: a write with the console's session cookie without its X-CSRF-Token.";
        const existing = op.responses['403'] as { description: string } | undefined;
        if (existing && !existing.description.includes('csrf_failed'))
          op.responses['403'] = { ...existing, description: `${existing.description} ${csrf}` };
        else
          op.responses['403'] ??= {
            description: csrf,
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/ErrorResponse' } },
            },
          };
      }
    }
  }
  return doc;
}

type WithJoi = { [JOI]?: unknown; name?: string; in?: string };
/**
 * structuredClone leaves symbol keys out: the Joi rules riding on request bodies and query
 * parameters (api/contract.ts) are put back on their copies, for the contract test to find.
 */
function keepJoiRules(from: object, to: object): void {
  const source = from as Record<string, Record<string, { requestBody?: WithJoi; parameters?: WithJoi[] }>>;
  const target = to as typeof source;
  for (const [path, item] of Object.entries(source))
    for (const [method, op] of Object.entries(item)) {
      const copy = target[path]![method]!;
      if (op.requestBody?.[JOI]) copy.requestBody![JOI] = op.requestBody[JOI];
      for (const param of op.parameters ?? [])
        if (param[JOI]) {
          const same = copy.parameters?.find((p) => p.name === param.name && p.in === param.in);
          if (same) same[JOI] = param[JOI];
        }
    }
}
