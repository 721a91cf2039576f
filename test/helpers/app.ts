import { expect } from 'chai';
import { call } from './http.js';
import crypto from 'node:crypto';
import { eventually } from './http-server.js';
import { Writable } from 'node:stream';
import { parseConfig, type Config } from '../../common/config.js';
import { createPool, type Pool } from '../../common/data/db.js';
import { createLogger } from '../../common/logger.js';
import {
  provisionGame,
  provisionPlayer,
  provisionStudio,
  type IssuedGame,
} from '../../common/usecases/provisioning.js';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { start, type RunningApi, type StartOptions } from '../../api/server.js';
import { loadSigningKeys } from '../../common/security/keys.js';
import { TokenService } from '../../common/security/tokens.js';
import { ModeratorTokens } from '../../common/security/moderator-tokens.js';
import { createModerator } from '../../common/usecases/moderation.js';
import { testServices } from './services.js';

export const TEST_PEPPER = 'test-pepper-0123456789abcdef0123456789abcdef';

let signingKey: Promise<JWK> | undefined;
/** One ES256 private JWK per test run, so tests can also sign tokens the service must refuse. */
export function testSigningKey(): Promise<JWK> {
  signingKey ??= (async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    return { ...jwk, kid: await calculateJwkThumbprint(jwk) };
  })();
  return signingKey;
}

/** The dependencies createApp needs beyond the basics, built as server.ts builds them. */
export async function oauthDeps(config: Config, pool: Pool) {
  const signingKeys = await loadSigningKeys(config);
  const issuer = 'http://127.0.0.1';
  const clock = () => new Date();
  return {
    signingKeys,
    issuer,
    clock,
    pepper: TEST_PEPPER,
    tokens: new TokenService(signingKeys, issuer, 3600, pool, clock),
    moderatorTokens: new ModeratorTokens(signingKeys, issuer, 900, clock),
  };
}

/** Config for a test process: the shared real servers, a queue prefix of its own, quiet logs. */
export async function testConfig(overrides: Record<string, string> = {}): Promise<Config> {
  const services = await testServices();
  return parseConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    DATA_DIR: '.test-data/unused',
    LOG_LEVEL: 'silent',
    QUEUE_PREFIX: `t${crypto.randomBytes(5).toString('hex')}`,
    CLIENT_SECRET_PEPPER: TEST_PEPPER,
    OUTBOX_RELAY_INTERVAL_MS: '200',
    // Many test APIs share one database, each with queues of its own prefix: a reconciler would re-add
    // every other test's rows to its own queues. The reconciler's tests turn it on.
    OUTBOX_RECONCILE_INTERVAL_MS: '0',
    // Every test API sends its notices from 127.0.0.1 into one shared database: the public channel's
    // daily bound per address would be spent by the suites before. Its own tests set small bounds.
    NOTICE_QUOTA_PER_ADDRESS: '100000',
    NOTICE_QUOTA_PER_EMAIL: '100000',
    JWT_SIGNING_KEY: JSON.stringify(await testSigningKey()),
    ...overrides,
  });
}

/** Collects the JSON lines a logger writes, to assert on what reaches the logs. */
export class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
  get text() {
    return this.lines.map((l) => JSON.stringify(l)).join('\n');
  }
}

export interface TestApi extends RunningApi {
  config: Config;
  pool: Pool;
  logs: LogCapture;
  close(): Promise<void>;
}

export async function startTestApi(
  overrides: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestApi> {
  const config = await testConfig(overrides);
  const logs = new LogCapture();
  const api = await start(config, createLogger('info', 'api', logs), options);
  const pool = createPool(config.databaseUrl!, 5);
  return {
    ...api,
    config,
    pool,
    logs,
    close: async () => {
      await api.stop();
      await pool.end();
    },
  };
}

export interface Tenant {
  studioId: string;
  game: IssuedGame;
  headers: Record<string, string>;
}

const unique = () => crypto.randomBytes(6).toString('hex');

export async function createTenant(pool: Pool, name = 'Studio'): Promise<Tenant> {
  const studio = await provisionStudio(pool, { name: `${name} ${unique()}` });
  const game = await provisionGame(pool, TEST_PEPPER, {
    studioId: studio.id,
    title: `Game ${unique()}`,
    redirectUris: ['https://game.example/callback'],
  });
  return {
    studioId: studio.id,
    game,
    headers: { client_id: game.clientId, client_secret: game.clientSecret },
  };
}

export async function createTestPlayer(pool: Pool, extra: { kyc?: boolean } = {}) {
  const id = unique();
  return provisionPlayer(pool, {
    serviceId: `p-${id}`,
    fullName: `Player ${id}`,
    gamerTag: `tag-${id}`,
    password: 'correct horse battery',
    kyc: extra.kyc ?? false,
  });
}

export async function trustScore(pool: Pool, serviceId: string): Promise<number> {
  const { rows } = await pool.query<{ trust_score: number }>(
    'SELECT trust_score FROM players WHERE service_id = $1',
    [serviceId],
  );
  return rows[0]!.trust_score;
}

export async function offenseCount(pool: Pool, serviceId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM offenses o JOIN players p ON p.id = o.player_id WHERE p.service_id = $1',
    [serviceId],
  );
  return rows[0]!.n;
}

export interface TestModerator {
  id: string;
  username: string;
  password: string;
  headers: Record<string, string>;
}

/** A moderator account (admin tool's use case) signed in through the API: headers carry its token. */
export async function createTestModerator(
  api: { url: string; pool: Pool },
  role: 'moderator' | 'admin' = 'moderator',
): Promise<TestModerator> {
  const username = `mod-${unique()}`;
  const password = 'a long moderator password';
  const moderator = await createModerator(api.pool, {
    username,
    displayName: `Mod ${username}`,
    role,
    password,
  });
  return {
    id: moderator.id,
    username,
    password,
    headers: await moderatorHeaders(api.url, username, password),
  };
}

/** A moderator signs in through the API (again: a new token, e.g. after a test moved the clock). */
export async function moderatorHeaders(
  url: string,
  username: string,
  password: string,
): Promise<Record<string, string>> {
  const res = await fetch(`${url}/v1/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { access_token: string };
  return { authorization: `Bearer ${body.access_token}` };
}

/** The review case an offense was filed into, once the review worker has filed it. */
export const caseOfOffense = (pool: Pool, offenseId: string) =>
  eventually(`the case of offense ${offenseId}`, async () => {
    const { rows } = await pool.query<{ id: string }>(
      'SELECT case_id AS id FROM case_offenses WHERE offense_id = $1',
      [offenseId],
    );
    return rows[0]?.id;
  });

/** A studio's report through the API, checked against the OpenAPI document (201 expected): its offense id. */
export async function fileReport(
  url: string,
  tenant: Tenant,
  serviceId: string,
  kind: 'anticheat' | 'toxicity' | 'afk' | 'griefing',
  report: object,
): Promise<string> {
  const res = await call<{ report: { _id: string } }>(url, 'POST', `/v1/${kind}/submitReport/${serviceId}`, {
    spec: `/v1/${kind}/submitReport/{serviceId}` as never,
    headers: tenant.headers,
    json: { report },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.report._id;
}

/**
 * A studio's bulk request (POST /v1/reports/batch), checked against the OpenAPI document; every
 * report must be accepted (201): their offense ids, in order.
 */
export async function fileBatch(
  url: string,
  tenant: Tenant,
  reports: { kind: 'anticheat' | 'toxicity' | 'afk' | 'griefing'; serviceId: string; report: object }[],
): Promise<string[]> {
  const res = await call<{ results: { status: number; body: { report: { _id: string } } }[] }>(
    url,
    'POST',
    '/v1/reports/batch',
    { spec: '/v1/reports/batch', headers: tenant.headers, json: { reports } },
  );
  expect(res.status, res.text).to.equal(207);
  expect(res.body.results.map((r) => r.status)).to.deep.equal(reports.map(() => 201));
  return res.body.results.map((r) => r.body.report._id);
}
