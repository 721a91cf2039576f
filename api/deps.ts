import type { Config } from '../common/config.js';
import type { Pool } from '../common/data/db.js';
import type { ReadRouting } from '../common/data/replicas.js';
import type { Logger } from '../common/logger.js';
import type { ApiMetrics } from '../common/metrics.js';
import type { OutboxDispatcher } from '../common/queues/outbox.js';
import type { RedisClient } from '../common/queues/redis-client.js';
import type { ShardedQueues } from '../common/queues/shards.js';
import type { SigningKeys } from '../common/security/keys.js';
import type { ModeratorTokens } from '../common/security/moderator-tokens.js';
import type { TokenService } from '../common/security/tokens.js';
import type { Deprecation } from './deprecations.js';
import type { ClientAuthenticator } from './middleware/client-auth.js';
import type { RateLimits } from './middleware/rate-limit.js';

/**
 * The API's dependency bag, declared apart from api/app.ts so the route folders import it without a
 * circle through the app that imports them (issue 33). `AppDeps` is what a process (api/server.ts, a
 * test) hands createApp; `ApiDeps` is what every router gets: the same, with what createApp builds
 * from it (the rate limits, the read routing).
 */
export interface AppDeps {
  config: Config;
  log: Logger;
  pool: Pool;
  redis: RedisClient;
  dispatcher: OutboxDispatcher;
  clientAuth: ClientAuthenticator;
  tokens: TokenService;
  signingKeys: SigningKeys;
  /** The public base URL: the tokens' `iss` and the metadata's endpoints. */
  issuer: string;
  /** Server secret, here the key of the sign-in form's CSRF token. */
  pepper: string;
  clock: () => Date;
  moderatorTokens: ModeratorTokens;
  /** Operator views: /metrics when given, and Bull Board at /admin/queues when the queues are. */
  metrics?: ApiMetrics;
  queues?: ShardedQueues;
  /** Where reads may go (standbys); without it every read is on the primary. */
  reads?: ReadRouting;
  /** Operations announced for removal (api/deprecations.ts); tests pass their own. */
  deprecations?: readonly Deprecation[];
}

/** What every router gets: the app's dependencies and what createApp builds from them. */
export interface ApiDeps extends AppDeps {
  rateLimits: RateLimits;
  reads: ReadRouting;
}
