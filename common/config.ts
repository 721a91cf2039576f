import type { MisusePolicy } from './lifecycles/misuse.js';
import { hostsOf, urlForHost } from './data/hosts.js';
import { redactUrl } from './startup.js';
import { parseRedisUrl } from './queues/redis-client.js';
import { parseShardList } from './queues/shards.js';
import Joi from 'joi';
import os from 'node:os';
import path from 'node:path';
import { fieldErrors } from './errors.js';
import { isAddressOrCidr } from './net/addresses.js';
import type { Limits } from './domain/limits.js';
import type { RetentionDays } from './data/shapes/retention.js';
import { TDB } from './domain/transparency-vocabulary.js';
import { COUNTED_IN_MATCHES, SANCTION_TYPES, type SanctionType } from './domain/sanctions.js';
import { SANCTION_MATCHES_MAX } from './domain/matches.js';

const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Every setting the processes read, validated once at start-up. A bad value stops the process with a
 * message naming the variable; nothing reads process.env anywhere else.
 */
export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** API processes `node api/server.js` runs on its port (node:cluster). */
  apiProcesses: number;
  publicUrl: string | undefined;
  databaseUrl: string | undefined;
  /** Hot standbys that serve reads (data/replicas.ts); empty: every read on the primary. */
  databaseReplicaUrls: string[];
  replicaMaxLagMs: number;
  replicaTokenWaitMs: number;
  replicaCheckIntervalMs: number;
  /** npm start only: hot standbys of the embedded PostgreSQL to start for reads. */
  replicas: number;
  redisUrl: string | undefined;
  /** REDIS_URL is a Redis Cluster (several hosts listed, or REDIS_CLUSTER=true). */
  redisCluster: boolean;
  /** Queue shards (queues/shards.ts), and those this worker process serves. */
  queueShards: number;
  workerShards: number[];
  dataDir: string;
  logLevel: string;
  bodyLimit: string;
  /** The body limit of a new ban wave (its players' ids): WAVE_BODY_LIMIT. */
  waveBodyLimit: string;
  pgPoolSize: number;
  queuePrefix: string;
  clientSecretPepper: string | undefined;
  /** The key signals are hashed under (docs/studios.md "Linked accounts"); unset: derived from the pepper. */
  signalHashKey: string | undefined;
  /** Keys signals were hashed under before a rotation, still matched until their values are seen again. */
  signalPreviousHashKeys: string[];
  clientAuthCacheSeconds: number;
  tokenTtlSeconds: number;
  /** Refresh tokens: each one unused, and a sign-in's family however often it rotates. */
  refreshTokenTtlSeconds: number;
  refreshTokenMaxAgeSeconds: number;
  jwtSigningKey: string | undefined;
  jwtPreviousKeys: string | undefined;
  penaltyCaps: { cheating: number; griefing: number; toxicity: number; afk: number };
  profileOffensesLimit: number;
  idempotencyTtlHours: number;
  outboxRelayIntervalMs: number;
  /** The outbox reconciler's periodic pass (0: off); see queues/reconcile.ts. */
  outboxReconcileIntervalMs: number;
  outboxReconcileRestartWindowSeconds: number;
  housekeepingIntervalMs: number;
  shutdownGraceMs: number;
  startupWaitMs: number;
  workerConcurrency: number;
  enrichmentWorkerConcurrency: number;
  reviewWorkerConcurrency: number;
  /** Match batches a matches worker writes at once (each one transaction). */
  matchesWorkerConcurrency: number;
  /** MATCH_RETENTION_DAYS: how long matches are kept (a month's partition dropped whole after it). */
  matchRetentionDays: number;
  /** CONDUCT_SUMMARY_EVERY_MATCHES: a conduct summary every this many of a studio's matches (0: none by count). */
  conductSummaryEveryMatches: number;
  workerStalledIntervalMs: number;
  workerLockDurationMs: number;
  workerMetricsPort: number | undefined;
  metricsToken: string | undefined;
  /** Addresses (IPs or CIDR ranges) outbound requests may reach although they are private or loopback. */
  outboundAllowlist: string[];
  evidenceFetchTimeoutMs: number;
  evidenceFetchMaxBytes: number;
  moderatorTokenTtlSeconds: number;
  /** The console's cookie sessions: idle timeout and absolute length. */
  consoleIdleTimeoutSeconds: number;
  consoleSessionMaxSeconds: number;
  /** Where the built console's assets are (npm run build; npm start builds them when stale). */
  consoleDir: string;
  caseLeaseSeconds: number;
  webhookTimeoutMs: number;
  webhookRetryBaseMs: number;
  webhookRetryMaxDelayMs: number;
  webhookRetryWindowMs: number;
  /** Deliveries in a row that failed for the whole retry window before a webhook is disabled. */
  webhookDisableAfterFailures: number;
  /** Attempts at once to one webhook endpoint, per webhooks worker process: its lane. */
  webhookEndpointConcurrency: number;
  /** Failed attempts in a row (any of its deliveries) that park an endpoint. */
  webhookBreakerFailures: number;
  /** How long an endpoint is first parked; doubled each time it trips again, up to 32 times. */
  webhookBreakerCooldownMs: number;
  /** DSA Transparency Database: the territorial scope its statements give (EU/EEA codes). */
  tdbTerritorialScope: string[];
  /** How long one submission to the database may take. */
  tdbTimeoutMs: number;
  /** The first wait after a passing failure (doubling, at most 30 min). */
  tdbRetryBaseMs: number;
  /** Where an account in dry-run mode writes its statements (JSON lines). */
  tdbDryRunFile: string;
  /**
   * The erasure ledger: one tombstone a confirmed erasure (ids and a time, nothing personal), kept
   * outside the database so a restore of an older backup erases again (docs/compliance.md "Personal data").
   */
  erasureLedger: string;
  /** Retention windows, in days, by kind (common/lifecycles/retention.ts; docs/compliance.md "Personal data"). */
  retentionDays: RetentionDays;
  /** How often the retention job runs (BullMQ job scheduler on the review queue). */
  retentionIntervalMs: number;
  /** Hours at most to review a case holding a trusted flagger's notice (docs/moderators.md "Notices"). */
  trustedFlaggerDueHours: number;
  /** Hours at most to review a case once an urgent notice joins it (docs/moderators.md "Notices": "Urgent notices"). */
  urgentNoticeDueHours: number;
  /** Notices a day from one address, and from one e-mail, on the public channel (docs/moderators.md "Notices"). */
  noticeQuotaPerAddress: number;
  noticeQuotaPerEmail: number;
  /** Days after a notice's decision within which its notifier may contest it (DSA Art. 20: six months). */
  noticeComplaintDays: number;
  /** The notice pages' privacy notice: the controller and how to reach them (GDPR Art. 13). */
  noticePrivacy: { controller: string; contact: string };
  /**
   * E-mail to notifiers (docs/moderators.md "Notices": "E-mail to the notifier"): the SMTP server (smtp:// or
   * smtps://, with its credentials; unset: mails wait, pending, for one), the sender address, how long
   * one send may take, the first wait after a passing failure (doubling, at most an hour) and how long
   * a mail is retried before it fails.
   */
  mail: {
    smtpUrl: string | undefined;
    from: string;
    timeoutMs: number;
    retryBaseMs: number;
    retryHours: number;
  };
  /** The development mailbox's page, set by npm start when it runs one (listed by GET /). */
  devMailboxUrl: string | undefined;
  /** Art. 23: manifestly unfounded marks before a warning and a suspension, the window they count in, the period. */
  misuse: MisusePolicy;
  /** Tags only admins set or remove; a moderator's wave with a player carrying one waits for a second moderator. */
  protectedTags: readonly string[];
  /** Ban waves (docs/moderators.md "Waves"): the size above which a moderator's wave waits for a second one, the most players, the batch. */
  waves: { approvalAbove: number; maxPlayers: number; batch: number };
  /** A moderator's permanent ban of any player waits for a second moderator (FOUR_EYES_PERMANENT_BANS). */
  fourEyesPermanentBans: boolean;
  /** How often scheduled rules weigh the open cases (RULES_SCHEDULE_INTERVAL_MS). */
  rulesScheduleIntervalMs: number;
  /** Defaults for every game; the admin tool overrides them per game. */
  limits: Limits;
  /** Player-sourced reports from a reporter whose smoothed upheld ratio is below this are held... */
  credibilityThreshold: number;
  /** ...once that many of the reporter's reports were resolved. */
  credibilityMinHistory: number;
  /** Clean days a player needs to earn one point back; 0 turns recovery off. */
  trustRecoveryDaysPerPoint: number;
  trustRecoveryIntervalMs: number;
  /** How long a rate-limit check may wait for Redis before the request goes through unlimited. */
  rateLimitTimeoutMs: number;
  /** Group commit of reports: most reports a statement, and statements in flight per API process. */
  reportBatchMax: number;
  reportBatchesInFlight: number;
  /** Reports waiting that start another statement while one is in flight (fewer wait for it). */
  reportBatchOverlapAt: number;
  /** How long a strike (an upheld case) counts. */
  strikeTtlDays: number;
  /** Active strikes -> the sanction placed when a player reaches that many, in increasing order. */
  strikeLadder: StrikeRung[];
  /** Hours a case has to be reviewed in, by its highest severity: low, medium, high, critical. */
  caseDueHours: number[];
  /** Days after a decision within which it may be appealed. */
  appealWindowDays: number;
}

export interface StrikeRung {
  strikes: number;
  type: SanctionType;
  durationSeconds: number | null;
  /** A chat or matchmaking restriction that lasts this many finished matches instead (issue 54). */
  matches?: number;
}

const DURATION = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/**
 * "2=matchmaking_restriction/10matches,4=temporary_ban/7d,8=permanent_ban": validated, in order. A
 * rung's length is a time (s, m, h, d) or, for a chat or matchmaking restriction, a number of
 * finished matches (docs/moderators.md "Sanctions").
 */
export function parseStrikeLadder(text: string): StrikeRung[] {
  if (text.trim() === '') return [];
  const rungs = text.split(',').map((part) => {
    const m = /^\s*(\d+)=([a-z_]+)(?:\/(\d+)(matches|[smhd]))?\s*$/.exec(part);
    if (!m) throw new Error(`"${part.trim()}" is not <strikes>=<type>[/<duration><s|m|h|d> or /<n>matches]`);
    const type = m[2] as SanctionType;
    if (!(SANCTION_TYPES as readonly string[]).includes(type))
      throw new Error(`"${type}" is not a sanction type`);
    if (m[4] === 'matches') {
      const matches = Number(m[3]);
      if (!(COUNTED_IN_MATCHES as readonly string[]).includes(type))
        throw new Error(`a ${type} is not counted in matches (only a chat or matchmaking restriction)`);
      if (matches < 1 || matches > SANCTION_MATCHES_MAX)
        throw new Error(`a rung lasts 1 to ${SANCTION_MATCHES_MAX} matches`);
      return { strikes: Number(m[1]), type, durationSeconds: null, matches };
    }
    const durationSeconds = m[3] ? Number(m[3]) * DURATION[m[4] as keyof typeof DURATION] : null;
    if (type === 'permanent_ban' && durationSeconds) throw new Error('a permanent ban takes no duration');
    if (type !== 'permanent_ban' && type !== 'warning' && !durationSeconds)
      throw new Error(`a ${type} needs a duration`);
    return { strikes: Number(m[1]), type, durationSeconds };
  });
  rungs.forEach((r, i) => {
    if (r.strikes < 1 || (i > 0 && r.strikes <= rungs[i - 1]!.strikes))
      throw new Error('the strike counts must be positive and increasing');
  });
  return rungs;
}

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development'),
  // In production the API must be reachable from outside its container or host (docker run -p,
  // Procfile platforms): all interfaces. Elsewhere only this machine, so a laptop's demo is not on the
  // network.
  HOST: Joi.string()
    .hostname()
    .when('NODE_ENV', {
      is: 'production',
      then: Joi.any().default('0.0.0.0'),
      otherwise: Joi.any().default('127.0.0.1'),
    }),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  // "auto": one per core this process may use.
  API_PROCESSES: Joi.alternatives(Joi.number().integer().min(1).max(64), Joi.string().valid('auto')).default(
    1,
  ),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  // One host, or several (libpq's host1:port1,host2:port2): writes go to the one that takes them.
  DATABASE_URL: Joi.string().custom((value: string, helpers) => {
    const hosts = hostsOf(value);
    const single = hosts ? hosts.map((h) => urlForHost(value, h)) : [value];
    const uri = Joi.string().uri({ scheme: ['postgres', 'postgresql'] });
    return single.every((u) => !uri.validate(u).error)
      ? value
      : helpers.message({
          custom: 'must be a postgres:// URL (with one host, or several separated by commas)',
        });
  }),
  // Streaming standbys for reads, comma-separated (each one host; see data/replicas.ts).
  DATABASE_REPLICA_URLS: Joi.string()
    .allow('')
    .custom((value: string, helpers) => {
      const uri = Joi.string().uri({ scheme: ['postgres', 'postgresql'] });
      for (const entry of splitList(value))
        if (uri.validate(entry).error || hostsOf(entry))
          return helpers.message({ custom: `"${redactUrl(entry)}" is not a postgres:// URL of one host` });
      return value;
    })
    .default(''),
  // A standby further behind than this serves no read that carries no consistency token.
  REPLICA_MAX_LAG_MS: Joi.number().integer().min(0).max(600_000).default(1000),
  // How long a read with a consistency token waits for a standby to replay it before the primary serves it.
  REPLICA_TOKEN_WAIT_MS: Joi.number().integer().min(0).max(10_000).default(100),
  REPLICA_CHECK_INTERVAL_MS: Joi.number().integer().min(20).max(60_000).default(100),
  REPLICAS: Joi.number().integer().min(0).max(4).default(0),
  // One server, or the seed nodes of a Redis Cluster (redis://node-1:7000,node-2:7001).
  REDIS_URL: Joi.string().custom((value: string, helpers) =>
    parseRedisUrl(value)
      ? value
      : helpers.message({
          custom:
            "must be a redis:// or rediss:// URL (with one host, or a cluster's nodes separated by commas)",
        }),
  ),
  REDIS_CLUSTER: Joi.boolean().default(false),
  // BullMQ keeps a queue in one cluster slot: shards spread the queues over the cluster's masters.
  QUEUE_SHARDS: Joi.number().integer().min(1).max(256).default(1),
  // Which shards a worker process takes jobs from: "0,2", "0-3"; empty: all.
  WORKER_SHARDS: Joi.string()
    .allow('')
    .custom((value: string, helpers) => {
      const shards = Number((helpers.state.ancestors[0] as { QUEUE_SHARDS?: unknown }).QUEUE_SHARDS ?? 1);
      try {
        parseShardList(value, Number.isInteger(shards) && shards > 0 ? shards : 1);
        return value;
      } catch (err) {
        return helpers.message({ custom: (err as Error).message });
      }
    })
    .default(''),
  DATA_DIR: Joi.string().default('.data'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('100kb'),
  WAVE_BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('2mb'),
  PG_POOL_SIZE: Joi.number().integer().min(1).max(200).default(20),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[a-zA-Z0-9_-]+$/)
    .default('pt'),
  CLIENT_SECRET_PEPPER: Joi.string().min(32),
  SIGNAL_HASH_KEY: Joi.string().min(32),
  SIGNAL_PREVIOUS_HASH_KEYS: Joi.string().allow('').default(''),
  CLIENT_AUTH_CACHE_SECONDS: Joi.number().integer().min(0).max(300).default(30),
  TOKEN_TTL_SECONDS: Joi.number().integer().min(60).max(86400).default(3600),
  REFRESH_TOKEN_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(365 * 86400)
    .default(30 * 86400),
  REFRESH_TOKEN_MAX_AGE_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(365 * 86400)
    .default(90 * 86400),
  JWT_SIGNING_KEY: Joi.string(),
  JWT_PREVIOUS_KEYS: Joi.string().custom((value: string, helpers) => {
    try {
      const keys = JSON.parse(value) as unknown;
      if (Array.isArray(keys) && keys.every((k) => k && typeof k === 'object')) return value;
    } catch {
      // reported below
    }
    return helpers.message({ custom: 'must be a JSON array of JWKs' });
  }),
  // The spec fixes the anti-cheat and griefing caps as maxima: an operator may lower them, never raise.
  PENALTY_CAP_ANTICHEAT: Joi.number().integer().min(0).max(20).default(20),
  PENALTY_CAP_GRIEFING: Joi.number().integer().min(0).max(15).default(15),
  PENALTY_CAP_TOXICITY: Joi.number().integer().min(0).max(100).default(10),
  PENALTY_CAP_AFK: Joi.number().integer().min(0).max(100).default(5),
  PROFILE_OFFENSES_LIMIT: Joi.number().integer().min(1).max(100).default(20),
  IDEMPOTENCY_TTL_HOURS: Joi.number()
    .integer()
    .min(24)
    .max(24 * 30)
    .default(24),
  OUTBOX_RELAY_INTERVAL_MS: Joi.number().integer().min(50).max(60000).default(1000),
  // 0 turns the reconciler off (tests that share one database among many queue prefixes).
  OUTBOX_RECONCILE_INTERVAL_MS: Joi.number().integer().min(0).max(3_600_000).default(60_000),
  OUTBOX_RECONCILE_RESTART_WINDOW_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(7 * 86_400)
    .default(86_400),
  HOUSEKEEPING_INTERVAL_MS: Joi.number().integer().min(1000).max(86_400_000).default(600_000),
  SHUTDOWN_GRACE_MS: Joi.number().integer().min(100).max(120000).default(10000),
  // How long a process waits at start for PostgreSQL (and a worker or npm start for Redis) before it
  // exits 1 with one line naming the server and the error.
  STARTUP_WAIT_SECONDS: Joi.number().integer().min(0).max(600).default(30),
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(50),
  // The offense workers batch the database work of the jobs they run at once: more at once, fewer
  // statements and commits (and enrichment waits on the network, which concurrency hides).
  ENRICHMENT_WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(50),
  REVIEW_WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(50),
  MATCHES_WORKER_CONCURRENCY: Joi.number().integer().min(1).max(200).default(8),
  MATCH_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(180),
  CONDUCT_SUMMARY_EVERY_MATCHES: Joi.number().integer().min(0).max(1000).default(10),
  // How soon a job whose worker died is picked up again (BullMQ's lock and stalled check).
  WORKER_STALLED_INTERVAL_MS: Joi.number().integer().min(500).max(600_000).default(30_000),
  WORKER_LOCK_DURATION_MS: Joi.number().integer().min(500).max(600_000).default(30_000),
  WORKER_METRICS_PORT: Joi.number().integer().min(0).max(65535),
  METRICS_TOKEN: Joi.string().min(16),
  OUTBOUND_ALLOWLIST: Joi.string()
    .allow('')
    .custom((value: string, helpers) => {
      for (const entry of splitList(value))
        if (!isAddressOrCidr(entry))
          return helpers.message({ custom: `"${entry}" is not an IP address or CIDR range` });
      return value;
    })
    .default(''),
  EVIDENCE_FETCH_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(5000),
  EVIDENCE_FETCH_MAX_BYTES: Joi.number()
    .integer()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  MODERATOR_TOKEN_TTL_SECONDS: Joi.number().integer().min(60).max(86400).default(900),
  CONSOLE_IDLE_TIMEOUT_SECONDS: Joi.number().integer().min(60).max(86400).default(1800),
  CONSOLE_SESSION_MAX_SECONDS: Joi.number()
    .integer()
    .min(300)
    .max(7 * 86400)
    .default(12 * 3600),
  CONSOLE_DIR: Joi.string().default('dist/console'),
  CASE_LEASE_SECONDS: Joi.number().integer().min(10).max(86400).default(900),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_BASE_MS: Joi.number().integer().min(10).max(3_600_000).default(30_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: Joi.number().integer().min(10).max(86_400_000).default(3_600_000),
  WEBHOOK_RETRY_WINDOW_MS: Joi.number()
    .integer()
    .min(10)
    .max(7 * 86_400_000)
    .default(86_400_000),
  WEBHOOK_DISABLE_AFTER_FAILURES: Joi.number().integer().min(1).max(10_000).default(10),
  WEBHOOK_ENDPOINT_CONCURRENCY: Joi.number().integer().min(1).max(100).default(4),
  WEBHOOK_BREAKER_FAILURES: Joi.number().integer().min(1).max(10_000).default(5),
  WEBHOOK_BREAKER_COOLDOWN_MS: Joi.number().integer().min(100).max(3_600_000).default(30_000),
  TDB_TERRITORIAL_SCOPE: Joi.string()
    .pattern(/^[A-Z]{2}(,[A-Z]{2})*$/)
    .custom((value: string, helpers) =>
      value.split(',').every((c) => (TDB.countries as readonly string[]).includes(c))
        ? value
        : helpers.message({ custom: 'must list EU/EEA country codes (AT,BE,...), comma-separated' }),
    )
    .default(TDB.countries.join(',')),
  TDB_TIMEOUT_MS: Joi.number().integer().min(100).max(300_000).default(30_000),
  TDB_RETRY_BASE_MS: Joi.number().integer().min(10).max(3_600_000).default(10_000),
  TDB_DRY_RUN_FILE: Joi.string(),
  ERASURE_LEDGER: Joi.string(),
  RETENTION_EVIDENCE_DAYS: Joi.number().integer().min(1).max(36_500).default(365),
  RETENTION_REPORT_TEXT_DAYS: Joi.number().integer().min(1).max(36_500).default(365),
  RETENTION_RESOLVED_CASES_DAYS: Joi.number().integer().min(1).max(36_500).default(730),
  RETENTION_TRUST_HISTORY_DAYS: Joi.number().integer().min(1).max(36_500).default(730),
  RETENTION_AUDIT_DAYS: Joi.number().integer().min(1).max(36_500).default(1095),
  RETENTION_SIGN_IN_DAYS: Joi.number().integer().min(1).max(36_500).default(1),
  RETENTION_TDB_PAYLOAD_DAYS: Joi.number().integer().min(1).max(36_500).default(90),
  RETENTION_NOTIFIER_DAYS: Joi.number().integer().min(1).max(36_500).default(365),
  RETENTION_INTERVAL_MS: Joi.number().integer().min(1000).max(86_400_000).default(3_600_000),
  TRUSTED_FLAGGER_DUE_HOURS: Joi.number().integer().min(1).max(720).default(12),
  URGENT_NOTICE_DUE_HOURS: Joi.number().integer().min(1).max(72).default(1),
  NOTICE_QUOTA_PER_ADDRESS: Joi.number().integer().min(1).max(100_000).default(20),
  NOTICE_QUOTA_PER_EMAIL: Joi.number().integer().min(1).max(100_000).default(10),
  NOTICE_COMPLAINT_DAYS: Joi.number().integer().min(183).max(3650).default(183),
  // The privacy notice of the notice form and status page (GDPR Art. 13): who the controller is and
  // how to reach them; the studio sets both (docs/moderators.md "Notices").
  NOTICE_PRIVACY_CONTROLLER: Joi.string()
    .max(500)
    .default('The studio that runs the game you report about, which uses this service to handle notices'),
  NOTICE_PRIVACY_CONTACT: Joi.string()
    .max(500)
    .default('the contact for personal data the game names in its own privacy policy'),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  DEV_MAILBOX_URL: Joi.string().uri({ scheme: ['http'] }),
  MAIL_FROM: Joi.string()
    .max(300)
    .pattern(/^[^\r\n]+$/)
    .default('Player Trust notices <notices@player-trust.localhost>'),
  MAIL_TIMEOUT_MS: Joi.number().integer().min(1000).max(300_000).default(20_000),
  MAIL_RETRY_BASE_MS: Joi.number().integer().min(10).max(3_600_000).default(30_000),
  MAIL_RETRY_HOURS: Joi.number().integer().min(1).max(720).default(72),
  PROTECTED_TAGS: Joi.string()
    .pattern(/^[a-z0-9][a-z0-9_-]{0,31}(,[a-z0-9][a-z0-9_-]{0,31})*$/)
    .allow('')
    .default('protected'),
  FOUR_EYES_PERMANENT_BANS: Joi.boolean().default(false),
  RULES_SCHEDULE_INTERVAL_MS: Joi.number().integer().min(10_000).max(86_400_000).default(300_000),
  WAVE_APPROVAL_ABOVE: Joi.number().integer().min(0).max(100_000).default(100),
  WAVE_MAX_PLAYERS: Joi.number().integer().min(1).max(100_000).default(10_000),
  WAVE_BATCH: Joi.number().integer().min(1).max(1000).default(200),
  MISUSE_WARN_AFTER: Joi.number().integer().min(1).max(1000).default(3),
  MISUSE_SUSPEND_AFTER: Joi.number()
    .integer()
    .min(2)
    .max(1000)
    .greater(Joi.ref('MISUSE_WARN_AFTER'))
    .default(5),
  MISUSE_WINDOW_DAYS: Joi.number().integer().min(1).max(3650).default(180),
  MISUSE_SUSPENSION_DAYS: Joi.number().integer().min(1).max(3650).default(30),
  RATE_LIMIT_REPORTS_PER_SECOND: Joi.number().integer().min(1).max(100_000).default(200),
  RATE_LIMIT_REPORTS_BURST: Joi.number().integer().min(0).max(1_000_000).default(1000),
  RATE_LIMIT_READS_PER_SECOND: Joi.number().integer().min(1).max(100_000).default(500),
  RATE_LIMIT_READS_BURST: Joi.number().integer().min(0).max(1_000_000).default(2500),
  RATE_LIMIT_WEBHOOKS_PER_SECOND: Joi.number().integer().min(1).max(10_000).default(5),
  RATE_LIMIT_WEBHOOKS_BURST: Joi.number().integer().min(0).max(100_000).default(25),
  RATE_LIMIT_TIMEOUT_MS: Joi.number().integer().min(5).max(5000).default(100),
  REPORTER_QUOTA_PER_DAY: Joi.number().integer().min(1).max(100_000).default(20),
  STUDIO_PLAYER_BUDGET_POINTS: Joi.number().integer().min(0).max(100).default(50),
  CREDIBILITY_THRESHOLD: Joi.number().min(0).max(1).default(0.3),
  CREDIBILITY_MIN_HISTORY: Joi.number().integer().min(1).max(10_000).default(5),
  TRUST_RECOVERY_DAYS_PER_POINT: Joi.number().integer().min(0).max(365).default(7),
  TRUST_RECOVERY_INTERVAL_MS: Joi.number().integer().min(1000).max(86_400_000).default(3_600_000),
  REPORT_BATCH_MAX: Joi.number().integer().min(1).max(1000).default(100),
  REPORT_BATCHES_IN_FLIGHT: Joi.number().integer().min(1).max(100).default(4),
  REPORT_BATCH_OVERLAP_AT: Joi.number().integer().min(1).max(10_000).default(25),
  STRIKE_TTL_DAYS: Joi.number().integer().min(1).max(3650).default(180),
  // Modelled on Xbox's enforcement: 2 active strikes -> a day without matchmaking, 4 -> a week's ban,
  // 8 -> a year's.
  STRIKE_LADDER: Joi.string()
    .allow('')
    .custom((value: string, helpers) => {
      try {
        parseStrikeLadder(value);
        return value;
      } catch (err) {
        return helpers.message({ custom: (err as Error).message });
      }
    })
    .default('2=matchmaking_restriction/1d,4=temporary_ban/7d,8=temporary_ban/365d'),
  CASE_DUE_HOURS: Joi.string()
    .pattern(/^low=\d+,medium=\d+,high=\d+,critical=\d+$/)
    .message('must be low=<hours>,medium=<hours>,high=<hours>,critical=<hours>')
    .default('low=168,medium=72,high=24,critical=4'),
  APPEAL_WINDOW_DAYS: Joi.number().integer().min(1).max(365).default(30),
})
  .unknown(true)
  .when(Joi.object({ NODE_ENV: Joi.valid('production').required() }).unknown(), {
    then: Joi.object({
      DATABASE_URL: Joi.required(),
      REDIS_URL: Joi.required(),
      CLIENT_SECRET_PEPPER: Joi.required(),
      JWT_SIGNING_KEY: Joi.required(),
      // Behind a proxy the listen address is not what clients reach: tokens' iss and the OAuth
      // metadata must name the public URL.
      PUBLIC_URL: Joi.required(),
      // Metrics name routes, queues and backlogs: not for the public internet.
      METRICS_TOKEN: Joi.required(),
    }),
  });

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses an environment into a frozen Config; throws ConfigError naming every bad variable. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const { value, error } = schema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    const problems = fieldErrors(error.details).map((f) => `${f.field}: ${f.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const v = value as Record<string, never>;
  return Object.freeze({
    nodeEnv: v.NODE_ENV,
    host: v.HOST,
    port: v.PORT,
    apiProcesses: (v.API_PROCESSES as unknown) === 'auto' ? os.availableParallelism() : v.API_PROCESSES,
    publicUrl: v.PUBLIC_URL,
    databaseUrl: v.DATABASE_URL,
    databaseReplicaUrls: splitList(v.DATABASE_REPLICA_URLS),
    replicaMaxLagMs: v.REPLICA_MAX_LAG_MS,
    replicaTokenWaitMs: v.REPLICA_TOKEN_WAIT_MS,
    replicaCheckIntervalMs: v.REPLICA_CHECK_INTERVAL_MS,
    replicas: v.REPLICAS,
    redisUrl: v.REDIS_URL,
    redisCluster: v.REDIS_CLUSTER || (v.REDIS_URL ? parseRedisUrl(v.REDIS_URL)!.cluster : false),
    queueShards: v.QUEUE_SHARDS,
    workerShards: parseShardList(v.WORKER_SHARDS, v.QUEUE_SHARDS),
    dataDir: path.resolve(v.DATA_DIR),
    logLevel: v.LOG_LEVEL,
    bodyLimit: v.BODY_LIMIT,
    waveBodyLimit: v.WAVE_BODY_LIMIT,
    pgPoolSize: v.PG_POOL_SIZE,
    queuePrefix: v.QUEUE_PREFIX,
    clientSecretPepper: v.CLIENT_SECRET_PEPPER,
    signalHashKey: v.SIGNAL_HASH_KEY,
    signalPreviousHashKeys: splitList(v.SIGNAL_PREVIOUS_HASH_KEYS),
    clientAuthCacheSeconds: v.CLIENT_AUTH_CACHE_SECONDS,
    tokenTtlSeconds: v.TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: v.REFRESH_TOKEN_TTL_SECONDS,
    refreshTokenMaxAgeSeconds: v.REFRESH_TOKEN_MAX_AGE_SECONDS,
    jwtSigningKey: v.JWT_SIGNING_KEY,
    jwtPreviousKeys: v.JWT_PREVIOUS_KEYS,
    penaltyCaps: Object.freeze({
      cheating: v.PENALTY_CAP_ANTICHEAT,
      griefing: v.PENALTY_CAP_GRIEFING,
      toxicity: v.PENALTY_CAP_TOXICITY,
      afk: v.PENALTY_CAP_AFK,
    }),
    profileOffensesLimit: v.PROFILE_OFFENSES_LIMIT,
    idempotencyTtlHours: v.IDEMPOTENCY_TTL_HOURS,
    outboxRelayIntervalMs: v.OUTBOX_RELAY_INTERVAL_MS,
    outboxReconcileIntervalMs: v.OUTBOX_RECONCILE_INTERVAL_MS,
    outboxReconcileRestartWindowSeconds: v.OUTBOX_RECONCILE_RESTART_WINDOW_SECONDS,
    housekeepingIntervalMs: v.HOUSEKEEPING_INTERVAL_MS,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    startupWaitMs: v.STARTUP_WAIT_SECONDS * 1000,
    workerConcurrency: v.WORKER_CONCURRENCY,
    enrichmentWorkerConcurrency: v.ENRICHMENT_WORKER_CONCURRENCY,
    matchesWorkerConcurrency: v.MATCHES_WORKER_CONCURRENCY,
    matchRetentionDays: v.MATCH_RETENTION_DAYS,
    conductSummaryEveryMatches: v.CONDUCT_SUMMARY_EVERY_MATCHES,
    reviewWorkerConcurrency: v.REVIEW_WORKER_CONCURRENCY,
    workerStalledIntervalMs: v.WORKER_STALLED_INTERVAL_MS,
    workerLockDurationMs: v.WORKER_LOCK_DURATION_MS,
    workerMetricsPort: v.WORKER_METRICS_PORT,
    metricsToken: v.METRICS_TOKEN,
    outboundAllowlist: Object.freeze(splitList(v.OUTBOUND_ALLOWLIST)) as string[],
    evidenceFetchTimeoutMs: v.EVIDENCE_FETCH_TIMEOUT_MS,
    evidenceFetchMaxBytes: v.EVIDENCE_FETCH_MAX_BYTES,
    moderatorTokenTtlSeconds: v.MODERATOR_TOKEN_TTL_SECONDS,
    consoleIdleTimeoutSeconds: v.CONSOLE_IDLE_TIMEOUT_SECONDS,
    consoleSessionMaxSeconds: v.CONSOLE_SESSION_MAX_SECONDS,
    consoleDir: v.CONSOLE_DIR,
    caseLeaseSeconds: v.CASE_LEASE_SECONDS,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    webhookRetryBaseMs: v.WEBHOOK_RETRY_BASE_MS,
    webhookRetryMaxDelayMs: v.WEBHOOK_RETRY_MAX_DELAY_MS,
    webhookRetryWindowMs: v.WEBHOOK_RETRY_WINDOW_MS,
    webhookDisableAfterFailures: v.WEBHOOK_DISABLE_AFTER_FAILURES,
    webhookEndpointConcurrency: v.WEBHOOK_ENDPOINT_CONCURRENCY,
    webhookBreakerFailures: v.WEBHOOK_BREAKER_FAILURES,
    webhookBreakerCooldownMs: v.WEBHOOK_BREAKER_COOLDOWN_MS,
    tdbTerritorialScope: String(v.TDB_TERRITORIAL_SCOPE).split(','),
    tdbTimeoutMs: v.TDB_TIMEOUT_MS,
    tdbRetryBaseMs: v.TDB_RETRY_BASE_MS,
    tdbDryRunFile: path.resolve(v.TDB_DRY_RUN_FILE ?? path.join(v.DATA_DIR, 'transparency-dry-run.jsonl')),
    erasureLedger: path.resolve(v.ERASURE_LEDGER ?? path.join(v.DATA_DIR, 'erasure-ledger.jsonl')),
    retentionDays: Object.freeze({
      evidence: v.RETENTION_EVIDENCE_DAYS,
      reportText: v.RETENTION_REPORT_TEXT_DAYS,
      resolvedCases: v.RETENTION_RESOLVED_CASES_DAYS,
      trustHistory: v.RETENTION_TRUST_HISTORY_DAYS,
      audit: v.RETENTION_AUDIT_DAYS,
      signIns: v.RETENTION_SIGN_IN_DAYS,
      transparencyPayloads: v.RETENTION_TDB_PAYLOAD_DAYS,
      notifierContacts: v.RETENTION_NOTIFIER_DAYS,
      // Art. 23 records are moderators' actions: kept as long as the audit log.
      misuseRecords: v.RETENTION_AUDIT_DAYS,
    }),
    retentionIntervalMs: v.RETENTION_INTERVAL_MS,
    trustedFlaggerDueHours: v.TRUSTED_FLAGGER_DUE_HOURS,
    urgentNoticeDueHours: v.URGENT_NOTICE_DUE_HOURS,
    noticeQuotaPerAddress: v.NOTICE_QUOTA_PER_ADDRESS,
    noticeQuotaPerEmail: v.NOTICE_QUOTA_PER_EMAIL,
    noticeComplaintDays: v.NOTICE_COMPLAINT_DAYS,
    noticePrivacy: { controller: v.NOTICE_PRIVACY_CONTROLLER, contact: v.NOTICE_PRIVACY_CONTACT },
    devMailboxUrl: v.DEV_MAILBOX_URL,
    mail: {
      smtpUrl: v.SMTP_URL,
      from: v.MAIL_FROM,
      timeoutMs: v.MAIL_TIMEOUT_MS,
      retryBaseMs: v.MAIL_RETRY_BASE_MS,
      retryHours: v.MAIL_RETRY_HOURS,
    },
    protectedTags: Object.freeze(String(v.PROTECTED_TAGS).split(',').filter(Boolean)),
    waves: { approvalAbove: v.WAVE_APPROVAL_ABOVE, maxPlayers: v.WAVE_MAX_PLAYERS, batch: v.WAVE_BATCH },
    fourEyesPermanentBans: v.FOUR_EYES_PERMANENT_BANS,
    rulesScheduleIntervalMs: v.RULES_SCHEDULE_INTERVAL_MS,
    misuse: {
      warnAfter: v.MISUSE_WARN_AFTER,
      suspendAfter: v.MISUSE_SUSPEND_AFTER,
      windowDays: v.MISUSE_WINDOW_DAYS,
      suspensionDays: v.MISUSE_SUSPENSION_DAYS,
    },
    limits: Object.freeze({
      reportsPerSecond: v.RATE_LIMIT_REPORTS_PER_SECOND,
      reportsBurst: v.RATE_LIMIT_REPORTS_BURST,
      readsPerSecond: v.RATE_LIMIT_READS_PER_SECOND,
      readsBurst: v.RATE_LIMIT_READS_BURST,
      webhooksPerSecond: v.RATE_LIMIT_WEBHOOKS_PER_SECOND,
      webhooksBurst: v.RATE_LIMIT_WEBHOOKS_BURST,
      reporterQuota: v.REPORTER_QUOTA_PER_DAY,
      studioBudget: v.STUDIO_PLAYER_BUDGET_POINTS,
    }),
    credibilityThreshold: v.CREDIBILITY_THRESHOLD,
    credibilityMinHistory: v.CREDIBILITY_MIN_HISTORY,
    trustRecoveryDaysPerPoint: v.TRUST_RECOVERY_DAYS_PER_POINT,
    trustRecoveryIntervalMs: v.TRUST_RECOVERY_INTERVAL_MS,
    rateLimitTimeoutMs: v.RATE_LIMIT_TIMEOUT_MS,
    reportBatchMax: v.REPORT_BATCH_MAX,
    reportBatchesInFlight: v.REPORT_BATCHES_IN_FLIGHT,
    reportBatchOverlapAt: v.REPORT_BATCH_OVERLAP_AT,
    strikeTtlDays: v.STRIKE_TTL_DAYS,
    strikeLadder: parseStrikeLadder(v.STRIKE_LADDER),
    caseDueHours: (v.CASE_DUE_HOURS as string).split(',').map((pair) => Number(pair.split('=')[1])),
    appealWindowDays: v.APPEAL_WINDOW_DAYS,
  });
}

/** For entry points: parse process.env or print the problem and exit 1. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
