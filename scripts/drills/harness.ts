import { isAlive } from '../../common/services/process-guard.js';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { createPool, type Pool } from '../../common/data/db.js';
import { migrate } from '../../common/data/migrate.js';
import { providePostgres, provideRedis, type ServiceHandle } from '../../common/services/index.js';
import { findRedisServer, redisServerArgs, redisVersion } from '../../common/services/redis.js';
import { provisionGame, provisionStudio } from '../../common/usecases/provisioning.js';
import { CuttableProxy } from '../lib/cuttable-proxy.js';
import { deleteAccount, saveAccount } from '../../common/data/repos/transparency.js';
import { sealWebhookSecret } from '../../common/security/webhook-secrets.js';

/**
 * Fault drills: the real API and worker processes under a steady report load while something
 * breaks, then counts that prove nothing was lost or doubled. `npm run drill` runs them at full
 * length; test/integration/drills.test.ts runs the same drills shortened. Every loop is bounded in
 * count and time; all traffic stays on loopback; everything started is stopped.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PEPPER = `drill-pepper-${crypto.randomBytes(16).toString('hex')}`;
/** The API's SHUTDOWN_GRACE_MS on the rig: a SIGTERMed process must be gone within it. */
export const GRACE_MS = 8000;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type ProcessKind = 'api' | 'enrichment' | 'review' | 'webhooks';
const ENTRY: Record<ProcessKind, string> = {
  api: 'api/server.ts',
  enrichment: 'worker/enrichment.ts',
  review: 'worker/review.ts',
  webhooks: 'worker/webhooks.ts',
};

export interface Proc {
  kind: ProcessKind;
  child: ChildProcess;
  logFile: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The evidence host: answers every fetch after a delay, so enrichment jobs are in flight for a while. */
class SlowEvidenceHost {
  delayMs = 300;
  requests = 0;
  private readonly server = http.createServer((_req, res) => {
    this.requests++;
    setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end('PNG'), this.delayMs).unref();
  });
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this;
  }
  url(p: string) {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}${p}`;
  }
  async close() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

export interface RigOptions {
  /** Where the servers' data and the processes' logs go. */
  dir: string;
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
  /** Settings for every process beyond the rig's own (a topology drill's REDIS_URL, QUEUE_SHARDS). */
  env?: NodeJS.ProcessEnv;
}

/**
 * The service as operators run it, with PostgreSQL and Redis behind cuttable proxies: the real
 * database and queue, and a way to take either away from the processes and give it back.
 */
export class DrillRig {
  readonly procs = new Map<ProcessKind, Proc>();
  readonly apiUrl: string;
  headers!: Record<string, string>;
  gameId!: string;
  studioId!: string;
  private counter = 0;

  private constructor(
    readonly dir: string,
    private readonly services: ServiceHandle[],
    readonly pool: Pool,
    readonly pgProxy: CuttableProxy,
    readonly redisProxy: CuttableProxy,
    readonly redisUrl: string,
    readonly evidence: SlowEvidenceHost,
    readonly env: NodeJS.ProcessEnv,
    readonly apiPort: number,
    readonly queuePrefix: string,
  ) {
    this.apiUrl = `http://127.0.0.1:${apiPort}`;
  }

  static async start(opts: RigOptions): Promise<DrillRig> {
    fs.mkdirSync(opts.dir, { recursive: true });
    const pg = await providePostgres({ dataDir: opts.dir, databaseUrl: opts.databaseUrl, ephemeral: true });
    // Its own Redis persists as production does (append-only, fsync every second), so the
    // redis-crash drill can play a machine crash on it.
    const redis = await provideRedis({
      dataDir: opts.dir,
      redisUrl: opts.redisUrl,
      ephemeral: !!opts.redisUrl,
    });
    await migrate(pg.url);
    const pgProxy = CuttableProxy.forUrl(pg.url);
    const redisProxy = CuttableProxy.forUrl(redis.url);
    await pgProxy.open();
    await redisProxy.open();
    const evidence = await new SlowEvidenceHost().start();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    jwk.kid = await calculateJwkThumbprint(jwk);
    const apiPort = await freePort();
    const queuePrefix = `drill${crypto.randomBytes(3).toString('hex')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      METRICS_TOKEN: crypto.randomBytes(16).toString('hex'),
      DATABASE_URL: pgProxy.url(pg.url),
      REDIS_URL: redisProxy.url(redis.url),
      PORT: String(apiPort),
      QUEUE_PREFIX: queuePrefix,
      CLIENT_SECRET_PEPPER: PEPPER,
      JWT_SIGNING_KEY: JSON.stringify(jwk),
      LOG_LEVEL: 'info',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      OUTBOX_RELAY_INTERVAL_MS: '200',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      // A database shared with other users (the test run's, under many queue prefixes): the
      // reconciler would re-add their outbox rows to this rig's queues. Its own server: on.
      ...(opts.databaseUrl ? { OUTBOX_RECONCILE_INTERVAL_MS: '0' } : {}),
      // A killed worker's job comes back within seconds instead of the production 30 s.
      WORKER_LOCK_DURATION_MS: '2000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      PG_POOL_SIZE: '10',
      // A statement whose submitting worker was killed mid-call is claimed for twice the call's
      // timeout: a minute, as in production, longer than the killed worker's
      // stalled job takes to run again, so the transparency drill meets a claim that outlives it.
      TDB_TIMEOUT_MS: '30000',
      TDB_RETRY_BASE_MS: '200',
      // The notifier-mail drill files its notices from loopback, many a run: no daily quota. A mail
      // whose sending worker was killed is claimed for twice MAIL_TIMEOUT_MS (10 s here).
      NOTICE_QUOTA_PER_ADDRESS: '100000',
      NOTICE_QUOTA_PER_EMAIL: '100000',
      MAIL_TIMEOUT_MS: '5000',
      MAIL_RETRY_BASE_MS: '200',
      ...opts.env,
    };
    const pool = createPool(pg.url, 4);
    const rig = new DrillRig(
      opts.dir,
      [pg, redis],
      pool,
      pgProxy,
      redisProxy,
      redis.url,
      evidence,
      env,
      apiPort,
      queuePrefix,
    );
    const studio = await provisionStudio(pool, { name: 'Drill Studio' });
    const game = await provisionGame(pool, PEPPER, {
      studioId: studio.id,
      title: 'Drill',
      redirectUris: ['https://drill.example/cb'],
    });
    rig.gameId = game.id;
    rig.studioId = studio.id;
    rig.headers = {
      client_id: game.clientId,
      client_secret: game.clientSecret,
      'content-type': 'application/json',
    };
    return rig;
  }

  /** Starts a process of `kind` and waits until it is ready (the API answers /readyz, a worker logged it started). */
  async launch(kind: ProcessKind): Promise<Proc> {
    const logFile = path.join(this.dir, `${kind}-${++this.counter}.log`);
    // A file, not a pipe: pino writes synchronously, and a pipe drained by a busy parent throttles it.
    const fd = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, ENTRY[kind])], {
      env: this.env,
      cwd: ROOT,
      stdio: ['ignore', fd, fd],
    });
    fs.closeSync(fd);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const proc: Proc = { kind, child, logFile, exited };
    this.procs.set(kind, proc);
    const until = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${kind} exited with ${child.exitCode}; see ${logFile}`);
      if (kind === 'api') {
        const ok = await fetch(`${this.apiUrl}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return proc;
      } else if (fs.readFileSync(logFile, 'utf8').includes('"msg":"worker started"')) return proc;
      if (Date.now() > until) throw new Error(`${kind} did not become ready in 60 s; see ${logFile}`);
      await sleep(100);
    }
  }

  /**
   * A platform's account at the DSA Transparency Database (`operator` or a studio id), as an admin
   * configures it; undefined `at` removes it.
   */
  async transparencyAccount(platform: string, at?: { baseUrl: string; token: string }): Promise<void> {
    if (!at) await deleteAccount(this.pool, platform);
    else
      await saveAccount(this.pool, {
        platform,
        mode: 'submit',
        baseUrl: at.baseUrl,
        tokenSealed: sealWebhookSecret(at.token, PEPPER),
      });
  }

  /** Log lines of every process of `kind` this rig started, parsed. */
  logLines(kind: ProcessKind): Record<string, unknown>[] {
    return fs
      .readdirSync(this.dir)
      .filter((f) => f.startsWith(`${kind}-`) && f.endsWith('.log'))
      .flatMap((f) => fs.readFileSync(path.join(this.dir, f), 'utf8').split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** The rig's own PostgreSQL, not through its proxy (a standby copies it). */
  get databaseUrl(): string {
    return this.services[0]!.url;
  }

  /** Fresh players for one drill: each starts at 100, so its sums are the drill's own. */
  async players(tag: string, count: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ service_id: string }>(
      `INSERT INTO players (service_id, full_name, gamer_tag)
       SELECT $1 || '-' || i, 'Drill ' || i, $1 || '-' || i FROM generate_series(1, $2) AS i RETURNING service_id`,
      [tag, count],
    );
    return rows.map((r) => r.service_id);
  }

  async jobCounts(queue: string): Promise<Record<string, number>> {
    const q = new Queue(queue, { connection: { url: this.redisUrl }, prefix: this.queuePrefix });
    try {
      return await q.getJobCounts('active', 'waiting', 'delayed', 'failed', 'completed');
    } finally {
      await q.close();
    }
  }

  /** A Redis this rig started again after crashing its own (redis-crash), stopped with the rig. */
  private restartedRedis: ChildProcess | undefined;

  /**
   * A machine crash under the rig's own Redis: SIGKILL, its append-only file cut back to the size it
   * had `lostMs` before (what fsync-every-second leaves after a power loss), then the same server
   * started again on the same port and folder after `downMs`. Undefined when Redis is not the rig's.
   */
  async crashRedis(lostMs: number, downMs: number): Promise<{ cutBytes: number; file: string } | undefined> {
    const handle = this.services[1]!;
    if (!handle.owned || !handle.pid) return undefined;
    const pid = this.restartedRedis?.pid ?? handle.pid;
    // Where and how provideRedis started it (redis-server rewrites its command line, so it is not
    // read back from /proc).
    const dir = path.join(this.dir, 'redis');
    const argv = [
      await findRedisServer(),
      ...redisServerArgs(Number(new URL(this.redisUrl).port), dir, false),
    ];
    const aofDir = path.join(dir, 'appendonlydir');
    const incr = () => {
      const names = fs.readdirSync(aofDir).filter((f) => f.endsWith('.incr.aof'));
      return path.join(aofDir, names.sort().at(-1)!);
    };
    const sizes: { at: number; size: number }[] = [];
    const until = Date.now() + lostMs + 500;
    while (Date.now() < until) {
      sizes.push({ at: Date.now(), size: fs.statSync(incr()).size });
      await sleep(50);
    }
    process.kill(pid, 'SIGKILL');
    await waitUntil('Redis gone', async () => !isAlive(pid), 5000);
    const file = incr();
    const killedAt = Date.now();
    const keep = [...sizes].reverse().find((x) => x.at <= killedAt - lostMs)?.size ?? sizes[0]!.size;
    const cutBytes = fs.statSync(file).size - keep;
    fs.truncateSync(file, keep);
    await sleep(downMs);
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
    this.restartedRedis = child;
    await waitUntil(
      'Redis back',
      () =>
        redisVersion(this.redisUrl).then(
          () => true,
          () => false,
        ),
      15_000,
    );
    return { cutBytes, file };
  }

  async stop(): Promise<void> {
    for (const p of this.procs.values()) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.race([Promise.all([...this.procs.values()].map((p) => p.exited)), sleep(15_000)]);
    for (const p of this.procs.values()) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await this.pgProxy.cut();
    await this.redisProxy.cut();
    await this.evidence.close();
    await this.pool.end();
    await Promise.all(this.services.map((s) => s.stop()));
    this.restartedRedis?.kill('SIGTERM');
  }
}

interface Attempt {
  status: number | 'network';
  ms: number;
  at: number;
}

interface LogicalReport {
  matchId: string;
  serviceId: string;
  attempts: Attempt[];
  offenseId?: string;
  penalty?: number;
  held?: number;
}

/**
 * A steady report load as a careful studio client sends it: every report has its own
 * Idempotency-Key and is retried with the same key on 503, 429, 409 or a dropped connection, after
 * the Retry-After it was given (200 ms without one, 5 s at most), until it is accepted or `giveUpMs`
 * after the load stopped.
 */
export class ReportLoad {
  readonly reports: LogicalReport[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<void>>();
  private stoppedAt: number | undefined;

  constructor(
    private readonly rig: DrillRig,
    private readonly tag: string,
    private readonly players: string[],
    private readonly ratePerSecond: number,
    private readonly giveUpMs = 30_000,
  ) {}

  start(): void {
    const tick = 50;
    let owed = 0;
    this.timer = setInterval(() => {
      owed += (this.ratePerSecond * tick) / 1000;
      for (; owed >= 1; owed--) {
        const p = this.one().finally(() => this.pending.delete(p));
        this.pending.add(p);
      }
    }, tick);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stoppedAt = Date.now();
    await Promise.all([...this.pending]);
  }

  private async one(): Promise<void> {
    const report: LogicalReport = {
      matchId: `${this.tag}-${this.reports.length + 1}`,
      serviceId: this.players[this.reports.length % this.players.length]!,
      attempts: [],
    };
    this.reports.push(report);
    const severities = ['low', 'medium', 'high', 'critical'];
    const body = JSON.stringify({
      report: {
        isCheatDetected: true,
        severity: severities[this.reports.length % 4],
        matchId: report.matchId,
        evidence: [{ type: 'screenshot', url: this.rig.evidence.url(`/${report.matchId}.png`) }],
        logs: [`${report.matchId} snap`, 'second line'],
      },
    });
    for (;;) {
      const started = Date.now();
      let status: number | 'network';
      let retryAfterMs = 200;
      try {
        const res = await fetch(`${this.rig.apiUrl}/v1/anticheat/submitReport/${report.serviceId}`, {
          method: 'POST',
          headers: { ...this.rig.headers, 'idempotency-key': report.matchId },
          body,
          signal: AbortSignal.timeout(15_000),
        });
        status = res.status;
        // A careful client waits as long as it is told to (503 and 429 carry Retry-After).
        const retryAfter = Number(res.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = Math.min(retryAfter * 1000, 5000);
        const json = (await res.json()) as {
          report?: { _id: string };
          penaltyApplied?: number;
          penaltyHeld?: number;
        };
        if (res.status === 201) {
          report.offenseId = json.report!._id;
          report.penalty = json.penaltyApplied!;
          report.held = json.penaltyHeld!;
        }
      } catch {
        status = 'network';
      }
      report.attempts.push({ status, ms: Date.now() - started, at: started });
      if (status === 201) return;
      // 503, 429 (after its Retry-After), 409 (the same key still in flight) and dropped connections
      // are worth a retry; another 4xx or a 500 is a defect the verification reports.
      const retryable = status === 'network' || status === 503 || status === 429 || status === 409;
      if (!retryable || (this.stoppedAt && Date.now() > this.stoppedAt + this.giveUpMs)) return;
      await sleep(retryAfterMs);
    }
  }

  /** Attempts that started within [from, to). */
  attemptsBetween(from: number, to: number): Attempt[] {
    return this.reports.flatMap((r) => r.attempts).filter((a) => a.at >= from && a.at < to);
  }
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DrillResult {
  name: string;
  what: string;
  lines: string[];
  checks: Check[];
  ok: boolean;
  /** Why it did not run (an opt-in drill whose packages are missing); it then neither passes nor fails. */
  skipped?: string;
}

/**
 * What proves nothing was lost or doubled: every report answered 201 is stored once, no report is
 * stored twice, the penalties add up against the trust scores, every offense was reviewed and
 * enriched exactly once, and the outbox is empty. Waits up to `drainMs` for the workers.
 */
export async function verify(rig: { pool: Pool }, load: ReportLoad, players: string[], drainMs = 60_000) {
  const tag = load.reports[0]?.matchId.replace(/-\d+$/, '') ?? 'none';
  const accepted = load.reports.filter((r) => r.offenseId);
  const defects = load.reports.flatMap((r) =>
    r.attempts.filter(
      (a) => a.status !== 201 && a.status !== 503 && a.status !== 409 && a.status !== 'network',
    ),
  );
  const retried = load.reports.filter((r) => r.attempts.length > 1).length;
  const stored = async () =>
    (
      await rig.pool.query<{
        n: number;
        distinct_matches: number;
        penalty: number;
        held: number;
        reviewed: number;
        enriched: number;
        unsent: number;
      }>(
        `SELECT count(*)::int AS n, count(DISTINCT o.context->>'matchId')::int AS distinct_matches,
                coalesce(sum(o.penalty_points), 0)::int AS penalty,
                coalesce(sum(o.penalty_held), 0)::int AS held,
                count(co.case_id)::int AS reviewed,
                count(*) FILTER (WHERE NOT EXISTS (
                  SELECT 1 FROM jsonb_array_elements(o.evidence) e WHERE e->'enrichment' IS NULL))::int AS enriched,
                (SELECT count(*)::int FROM outbox ob WHERE ob.sent_at IS NULL) AS unsent
           FROM offenses o LEFT JOIN case_offenses co ON co.offense_id = o.id
          WHERE o.context->>'matchId' LIKE $1 || '-%'`,
        [tag],
      )
    ).rows[0]!;
  let s = await stored();
  const until = Date.now() + drainMs;
  while ((s.reviewed < s.n || s.enriched < s.n || s.unsent > 0) && Date.now() < until) {
    await sleep(250);
    s = await stored();
  }
  const scores = (
    await rig.pool.query<{ deducted: number }>(
      'SELECT coalesce(sum(100 - trust_score), 0)::int AS deducted FROM players WHERE service_id = ANY($1)',
      [players],
    )
  ).rows[0]!.deducted;
  const answeredPenalty = accepted.reduce((sum, r) => sum + r.penalty!, 0);
  const answeredHeld = accepted.reduce((sum, r) => sum + r.held!, 0);
  const ids = new Set(accepted.map((r) => r.offenseId));
  const found = (
    await rig.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM offenses WHERE id = ANY($1::uuid[])',
      [[...ids]],
    )
  ).rows[0]!.n;

  const lines = [
    `reports: ${load.reports.length} sent, ${accepted.length} answered 201 (${retried} after a retry), ${load.reports.length - accepted.length} never accepted`,
    `offenses stored: ${s.n} (${ids.size - found} answered 201 but missing, ${s.n - s.distinct_matches} duplicates)`,
    `penalties: ${answeredPenalty} answered, ${s.penalty} stored, ${scores} taken off the trust scores; held for a moderator: ${answeredHeld} answered, ${s.held} stored`,
    `jobs: admin-review filed ${s.reviewed}/${s.n}, evidence-enrichment done ${s.enriched}/${s.n}; outbox unsent ${s.unsent}`,
  ];
  const checks: Check[] = [
    {
      name: 'no report lost',
      ok: accepted.length === load.reports.length,
      // The attempts of a few that never got in: what they were answered, and when, is the clue.
      detail: [
        lines[0]!,
        ...load.reports
          .filter((r) => !r.offenseId)
          .slice(0, 3)
          .map(
            (r) =>
              `    ${r.matchId}: ${r.attempts.map((a) => `${a.status} after ${a.ms} ms at +${a.at - r.attempts[0]!.at} ms`).join(', ')}`,
          ),
      ].join('\n'),
    },
    { name: 'every 201 stored', ok: found === ids.size, detail: lines[1]! },
    { name: 'no duplicates', ok: s.n === s.distinct_matches && s.n === accepted.length, detail: lines[1]! },
    {
      name: 'penalties exact',
      ok: answeredPenalty === s.penalty && s.penalty === scores && answeredHeld === s.held,
      detail: lines[2]!,
    },
    {
      name: 'every job processed',
      ok: s.reviewed === s.n && s.enriched === s.n && s.unsent === 0,
      detail: lines[3]!,
    },
    {
      name: 'no unexpected status',
      ok: defects.length === 0,
      detail: `${defects.length} answers other than 201, 503 or 409 (${[...new Set(defects.map((d) => d.status))].join(', ')})`,
    },
  ];
  return { lines, checks };
}

export interface DrillOptions {
  /** How long the fault lasts (the issue's drills: 10 s). */
  faultSeconds: number;
  /** Load before and after the fault. */
  steadySeconds: number;
  rate: number;
  log?: (line: string) => void;
}

export type Drill = (
  rig: DrillRig,
  opts: DrillOptions,
) => Promise<{ what: string; lines: string[]; checks: Check[]; load: ReportLoad; players: string[] }>;

let drillCounter = 0;
export async function underLoad(
  rig: DrillRig,
  opts: DrillOptions,
  name: string,
  fault: (load: ReportLoad) => Promise<{ lines: string[]; checks: Check[] }>,
) {
  const tag = `d${++drillCounter}${crypto.randomBytes(2).toString('hex')}-${name}`;
  // About four reports a player: enough to serialise on rows, few enough that scores rarely hit 0.
  const players = await rig.players(
    tag,
    Math.max(20, Math.ceil((opts.rate * (2 * opts.steadySeconds + opts.faultSeconds)) / 4)),
  );
  const load = new ReportLoad(rig, tag, players, opts.rate);
  load.start();
  try {
    await sleep(opts.steadySeconds * 1000);
    const result = await fault(load);
    await sleep(opts.steadySeconds * 1000);
    return { ...result, load, players };
  } finally {
    await load.stop();
  }
}

export const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** How many backends wait for a lock held by backend `pid` (directly, not behind another waiter). */
export async function waitingOn(db: Pool, pid: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
    [pid],
  );
  return rows[0]!.n;
}

/**
 * The outbound worker dies mid-call: SIGKILLed, Redis cut for the fault, a new worker started while
 * it is cut, then Redis back (and one more worker if the one started meanwhile gave up).
 */
export async function killOutboundAndCutRedis(rig: DrillRig, faultSeconds: number): Promise<void> {
  const webhooks = rig.procs.get('webhooks')!;
  webhooks.child.kill('SIGKILL');
  await webhooks.exited;
  await rig.redisProxy.cut();
  await sleep(faultSeconds * 1000);
  await rig.launch('webhooks').catch(() => undefined);
  await rig.redisProxy.open();
  if (rig.procs.get('webhooks')!.child.exitCode !== null) await rig.launch('webhooks');
}

export async function waitUntil(what: string, fn: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error(`not met within ${ms} ms: ${what}`);
    await sleep(100);
  }
}

export function formatResult(r: DrillResult): string {
  if (r.skipped) return [`drill ${r.name}: ${r.what}`, `  result: SKIPPED (${r.skipped})`].join('\n');
  return [
    `drill ${r.name}: ${r.what}`,
    ...r.lines.map((l) => `  ${l}`),
    ...r.checks.filter((c) => !c.ok).map((c) => `  FAILED ${c.name}: ${c.detail}`),
    `  result: ${r.ok ? 'PASS' : 'FAIL'}`,
  ].join('\n');
}

/** What `npm run drill` passes every drill with a set-up of its own: a folder, and the load's figures. */
export interface StandaloneArgs extends DrillOptions {
  dir: string;
}

/**
 * One drill, one file in scripts/drills/cases/ (its name is the file's): either it runs on the shared
 * rig (the API and every worker behind cuttable proxies) under `underLoad`, and `runDrill` verifies the
 * ledger after it; or it brings its own servers and verifies itself. Opt-in drills run only when named.
 */
export type DrillCase =
  | { kind: 'rig'; run: Drill }
  | { kind: 'standalone'; optIn?: boolean; run: (args: StandaloneArgs) => Promise<DrillResult> };

/**
 * `npm start` (scripts/start.ts) of a tree (this one, or a release checked out beside it) on the
 * DATA_DIR and port its `env` names, for the drills that run the embedded set-up whole (restore,
 * upgrade). Its output is kept, to read its banner and its processes' log lines.
 */
export class NpmStart {
  private child: ChildProcess | undefined;
  private output = '';
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly cwd = process.cwd(),
    private readonly startMs = 120_000,
  ) {}

  async start(): Promise<void> {
    this.output = '';
    this.child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: this.cwd,
      env: this.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (c: Buffer) => (this.output += c.toString()));
    this.child.stderr!.on('data', (c: Buffer) => (this.output += c.toString()));
    const until = Date.now() + this.startMs;
    while (!this.output.includes('is running at')) {
      if (this.child.exitCode !== null || Date.now() > until)
        throw new Error(`npm start (${this.cwd}) did not come up:\n${this.output.slice(-2000)}`);
      await sleep(200);
    }
  }

  /** Whether this start's output says `text`. */
  printed(text: string): boolean {
    return this.output.includes(text);
  }

  /** Its processes' JSON log lines that say a job failed (BullMQ's failed event, logged at warn). */
  failedJobs(): string[] {
    return this.output.split('\n').filter((l) => l.includes('"msg":"job failed"'));
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(60_000)]);
    try {
      process.kill(-child.pid!, 'SIGKILL'); // anything left of the group
    } catch {
      // all gone
    }
  }
}

/** What `offensesDone` reads of one offense: stored, filed into a case, its evidence enriched. */
export interface OffenseDone {
  id: string;
  filed: boolean;
  enriched: boolean;
}

/**
 * The offenses of `ids` that are stored, each with whether it is filed and enriched; with `wait`,
 * read again every 500 ms (a minute at most) until every one stored is both.
 */
export async function offensesDone(
  db: Pick<import('pg').Client, 'query'>,
  ids: readonly string[],
  wait = false,
): Promise<OffenseDone[]> {
  const read = async () =>
    (
      await db.query<OffenseDone>(
        `SELECT o.id, EXISTS (SELECT 1 FROM case_offenses co WHERE co.offense_id = o.id) AS filed,
                NOT EXISTS (SELECT 1 FROM jsonb_array_elements(o.evidence) e WHERE NOT e ? 'enrichment') AS enriched
           FROM offenses o WHERE o.id = ANY($1::uuid[])`,
        [ids],
      )
    ).rows;
  let rows = await read();
  for (let i = 0; wait && i < 120 && !rows.every((r) => r.filed && r.enriched); i++) {
    await sleep(500);
    rows = await read();
  }
  return rows;
}
