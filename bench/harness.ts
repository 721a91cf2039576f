import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import { Queue, Worker, type Job } from 'bullmq';
import { parseConfig } from '../common/config.js';
import { createLogger } from '../common/logger.js';
import { OFFENSE_BATCH_JOBS, offenseBatchJobId, QUEUES } from '../common/queues/index.js';
import { enrichmentProcessor } from '../worker/processors/enrichment.js';
import { reviewProcessor } from '../worker/processors/review.js';
import { concurrencyOf } from '../worker/run.js';
import { type Pool } from '../common/data/db.js';
import { cpuDelta, cpuSnapshot, type CpuSeconds } from './cpu.js';
import { recordReports, renderProfiles, type ReportToRecord } from '../common/data/repos/offenses.js';
import { computePenalty } from '../common/domain/penalty.js';
import { parseReport } from '../common/domain/reports.js';

/**
 * The bench's shared harness: the load generators (closed loop with autocannon, paced open loop),
 * the references driven directly (the report and profile statements), the worker drain, process
 * launch, and the figures. bench/run.ts sets the servers up and runs bench/scenarios/, one file per
 * scenario.
 *
 * npm run bench: every scenario in one run on this machine, interleaved, each measured three times
 * after a warm-up, the median printed with ratios to the references measured in the same run.
 * Load goes to loopback only, every loop is bounded in time, and everything started is stopped.
 */
export const args = process.argv.slice(2);
export const plansOut = args.includes('--plans') ? args[args.indexOf('--plans') + 1] : undefined;
/** The large data set (BENCH_LARGE=0 skips it): sizes and the time its seeding may take. */
export const LARGE = {
  enabled: process.env.BENCH_LARGE !== '0',
  players: Number(process.env.BENCH_LARGE_PLAYERS ?? 1_000_000),
  offensesPerPlayer: Number(process.env.BENCH_LARGE_OFFENSES_PER_PLAYER ?? 10),
  openCaseEvery: 10,
  seconds: Number(process.env.BENCH_LARGE_SECONDS ?? 900),
};
export const jsonOut = args.includes('--json')
  ? (args[args.indexOf('--json') + 1] ?? 'bench-results.json')
  : undefined;
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const WARMUP_SECONDS = 2;
export const CONNECTIONS = 50;
export const PLAYERS = 10_000;
/** Ids per lobby check (LK). */
export const LOOKUP = 100;
/** Reports per request in the bulk scenario (BK). */
export const BULK = 100;
export const PEPPER = crypto.randomBytes(24).toString('base64url');
export const CAPS = { cheating: 20, griefing: 15, toxicity: 10, afk: 5 };
/**
 * The bench's game is a busy studio's: limits high enough never to throttle the load (the limiter
 * still runs on every request), and B1 files with the same policy the API applies to that game.
 */
export const BENCH_LIMITS = {
  reportsPerSecond: 100_000,
  reportsBurst: 100_000,
  readsPerSecond: 100_000,
  readsBurst: 100_000,
  reporterQuota: 100_000,
  studioBudget: 100,
};
// The service's own defaults for what the bench does not raise.
export const DEFAULTS = parseConfig({ NODE_ENV: 'test' });
/** Statements in flight per API process for group commit (and B100's loops). */
export const GROUP_IN_FLIGHT = DEFAULTS.reportBatchesInFlight;
export const BENCH_POLICY = {
  reporterQuota: BENCH_LIMITS.reporterQuota,
  studioBudget: BENCH_LIMITS.studioBudget,
  credibilityThreshold: DEFAULTS.credibilityThreshold,
  credibilityMinHistory: DEFAULTS.credibilityMinHistory,
};

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /**
   * The CPU a measurement counted itself, and the units it did (the drain: its interval alone, not
   * the seeding before it, with this process's CPU as the workers'); otherwise the bench counts it
   * around the whole measurement.
   */
  cpu?: { used: CpuSeconds; units: number };
}

export const children: ChildProcess[] = [];
/**
 * Starts a process with its stdout going to a file, not a pipe: a pipe read by this busy load
 * generator would throttle the service's logging, and so the service, to the speed it is drained at.
 */
export async function launch(
  file: string,
  env: NodeJS.ProcessEnv,
  logDir: string,
  nodeArgs: string[] = [],
  name = path.basename(file).replace(/\.[jt]s$/, ''),
  tracingHook = true,
): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  const logFile = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  // Built JavaScript runs on plain node, as the Procfile runs it; TypeScript goes through tsx.
  // The service's entry points load the tracing hook first, as the Procfile starts them (it does
  // nothing unless OTEL_EXPORTER_OTLP_ENDPOINT is set).
  const loader = file.endsWith('.ts')
    ? ['--import', 'tsx']
    : file.startsWith('dist/') && tracingHook
      ? ['--import', './dist/common/tracing/register.js']
      : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, 'inherit'],
  });
  fs.closeSync(fd);
  children.push(child);
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}; see ${logFile}`);
    for (const l of fs.readFileSync(logFile, 'utf8').split('\n')) {
      if (!l.startsWith('{')) continue;
      const line = JSON.parse(l) as Record<string, unknown>;
      if (line.msg === 'listening' || line.msg === 'api listening') return { child, line };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${file} did not start in 30 s; see ${logFile}`);
}

export function run(opts: autocannon.Options): Promise<Figures> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, duration: SECONDS, ...opts }, (err, r) => {
      if (err) return reject(err);
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors + r.timeouts + r.non2xx,
      });
    });
  });
}

/**
 * Open loop: operations start at an even pace (one every 1/rate s, whether or not earlier ones
 * finished), each timed from the moment it was due, so a slow answer cannot hold the next ones back
 * and hide its cost (coordinated omission). autocannon's overallRate is not that: each connection
 * sends its share of a second back to back at the start of the second and then waits, which is a
 * closed loop at full speed for part of every second. Hand-written for that reason; bounded by
 * `seconds`, and each `op` by its own timeout. `op` resolves whether it succeeded.
 */
export async function paced(rate: number, seconds: number, op: () => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  const total = Math.round(rate * seconds);
  let errors = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent * 1000) / rate;
      pending.push(
        op().then(
          (ok) => {
            if (ok) latencies.push(performance.now() - dueAt);
            else errors++;
          },
          () => {
            errors++;
          },
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  return figures(latencies, latencies.length / seconds, errors);
}

/** R@50%: POSTs to the API at `rate` per second (see paced), a 10 s timeout each. */
export async function openLoop(
  url: string,
  rate: number,
  seconds: number,
  headers: Record<string, string>,
  next: () => { path: string; body: string },
): Promise<Figures> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  try {
    return await paced(
      rate,
      seconds,
      () =>
        new Promise<boolean>((resolve) => {
          const { path, body } = next();
          const req = http.request(
            {
              host: target.hostname,
              port: target.port,
              method: 'POST',
              path,
              agent,
              timeout: 10_000,
              headers: { ...headers, 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode! >= 200 && res.statusCode! < 300));
              res.on('error', () => resolve(false));
            },
          );
          req.on('timeout', () => req.destroy(new Error('timeout')));
          req.on('error', () => resolve(false));
          req.end(body);
        }),
    );
  } finally {
    agent.destroy();
  }
}

/** Figures from per-operation times in ms (sorted here) and a rate measured by the caller. */
export function figures(times: number[], rps: number, errors: number): Figures {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.floor(times.length * q)] ?? 0;
  return { rps, p50: at(0.5), p99: at(0.99), errors };
}

export const median = (list: Figures[]): Figures => {
  const sorted = [...list].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * What B1, B100 and B1@50% file: the bench's anti-cheat report on a random player of the small set,
 * as the API would hand it to recordReports.
 */
export function benchReports(
  serviceIds: string[],
  tenant: { gameId: string; studioId: string },
): () => ReportToRecord {
  const parsed = parseReport('anticheat', {
    report: { isCheatDetected: true, severity: 'low', confidence: 0.2 },
  });
  if (!parsed.ok) throw new Error('bad bench report');
  const penalty = computePenalty(parsed.report, CAPS);
  return () => ({
    offenseId: crypto.randomUUID(),
    serviceId: serviceIds[Math.floor(Math.random() * serviceIds.length)]!,
    gameId: tenant.gameId,
    studioId: tenant.studioId,
    report: parsed.report,
    penalty,
    playerSourced: false,
    policy: BENCH_POLICY,
  });
}

/**
 * B1: the report statement the service sends, driven directly with pg by 50 concurrent loops, one
 * report a statement. B100: the same statement at its batched form, 100 reports on random players a
 * statement and commit, by as many loops as the API keeps statements in flight (GROUP_IN_FLIGHT);
 * its figure is reports/s. Together they bound what the report path can reach.
 */
export async function rawSql(
  pool: Pool,
  next: () => ReportToRecord,
  seconds: number,
  batch = 1,
  loops = CONNECTIONS,
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let reports = 0;
  const started0 = Date.now();
  const until = started0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (Date.now() < until) {
        const started = process.hrtime.bigint();
        try {
          const outcomes = await recordReports(pool, Array.from({ length: batch }, next));
          errors += outcomes.filter((o) => o.status !== 'created').length;
          reports += outcomes.length;
        } catch {
          errors++;
        }
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  const elapsed = (Date.now() - started0) / 1000;
  return figures(latencies, reports / elapsed, errors);
}

/**
 * BP: the profile statement (renderProfiles, one player a call, rendered for the bench's studio as
 * the API's are) driven directly on CONNECTIONS loops.
 */
export async function rawProfiles(
  pool: Pool,
  player: () => string,
  viewerStudioId: string,
  seconds: number,
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const started0 = Date.now();
  const until = started0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        const started = process.hrtime.bigint();
        try {
          const [body] = await renderProfiles(
            pool,
            [{ serviceId: player(), viewerStudioId }],
            DEFAULTS.profileOffensesLimit,
            new Date(),
          );
          if (body === undefined) errors++;
        } catch {
          errors++;
        }
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  return figures(latencies, latencies.length / ((Date.now() - started0) / 1000), errors);
}

export const DRAIN_JOBS = 20_000;
/**
 * Offenses a job names in the drain: a batch of reports as the group commit files them under R (about
 * 20); BENCH_DRAIN_BATCH sets it (100: a bulk request's).
 */
export const DRAIN_BATCH = Number(process.env.BENCH_DRAIN_BATCH ?? 20);

/**
 * W0 / W1: how fast the two offense queues drain 10,000 offenses (each on both queues: 20,000
 * offense jobs, counted as such), in jobs of DRAIN_BATCH offenses as the report statement writes
 * them, with no-op processors (W0: BullMQ and Redis alone) or the real enrichment and review
 * processors (W1), in the same workers at the production concurrency. Each round gets fresh
 * offenses with log evidence and its own queue prefix; the time counts from the workers' start
 * to the last completion.
 */
export async function drain(
  real: boolean,
  pg: { url: string; pool: Pool },
  redisUrl: string,
  studio: { gameId: string; studioId: string },
  serviceIds: string[],
): Promise<Figures> {
  const config = parseConfig({
    NODE_ENV: 'test',
    DATABASE_URL: pg.url,
    REDIS_URL: redisUrl,
    CLIENT_SECRET_PEPPER: PEPPER,
    LOG_LEVEL: 'silent',
    // The production defaults unless the caller sets them, as an operator would.
    ...(process.env.WORKER_CONCURRENCY ? { WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY } : {}),
    ...Object.fromEntries(
      ['ENRICHMENT_WORKER_CONCURRENCY', 'REVIEW_WORKER_CONCURRENCY']
        .filter((k) => process.env[k])
        .map((k) => [k, process.env[k]]),
    ),
  });
  const prefix = `w${crypto.randomBytes(4).toString('hex')}`;
  const { rows } = await pg.pool.query<{ id: string }>(
    `INSERT INTO offenses (player_id, game_id, studio_id, type, severity, detected, penalty_points, evidence)
     SELECT p.id, $2, $3, 'cheating', 'high', true, 0,
            jsonb_build_array(jsonb_build_object('type', 'text', 'content', 'line one' || chr(10) || 'line ' || i,
                                                 'submittedAt', now()))
       FROM generate_series(1, $4) AS i
       JOIN players p ON p.service_id = ($1::text[])[1 + i % array_length($1::text[], 1)]
     RETURNING id`,
    [serviceIds, studio.gameId, studio.studioId, DRAIN_JOBS / 2],
  );
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const names = [QUEUES.enrichment, QUEUES.review] as const;
  const queues = names.map((n) => new Queue(n, { connection, prefix }));
  for (let i = 0; i < rows.length; i += DRAIN_BATCH) {
    const offenseIds = rows.slice(i, i + DRAIN_BATCH).map((r) => r.id);
    for (const [k, job] of OFFENSE_BATCH_JOBS.entries())
      await queues[k]!.add(
        job.job_name,
        { offenseIds },
        { jobId: offenseBatchJobId(job.queue, offenseIds[0]!) },
      );
  }
  const deps = {
    pool: pg.pool,
    log: createLogger('silent', 'bench'),
    config,
    pepper: PEPPER,
    dispatch: () => undefined,
  };
  const processors = real
    ? [enrichmentProcessor(deps), reviewProcessor(deps)]
    : [async (_job: Job) => undefined, async (_job: Job) => undefined];
  let done = 0;
  let failed = 0;
  const durations: number[] = [];
  const started = process.hrtime.bigint();
  const cpuBefore = cpuSnapshot();
  const workers: Worker[] = [];
  const finished = new Promise<void>((resolve) => {
    const count = (job: Job | undefined, ok: boolean) => {
      const offenses = (job?.data as { offenseIds?: string[] } | undefined)?.offenseIds?.length ?? 1;
      if (ok) done += offenses;
      else failed += offenses;
      if (job?.processedOn && job.finishedOn) durations.push(job.finishedOn - job.processedOn);
      if (done + failed === DRAIN_JOBS) resolve();
    };
    for (const [k, name] of names.entries())
      workers.push(
        new Worker(name, processors[k]!, { connection, prefix, concurrency: concurrencyOf(config, name) })
          .on('completed', (job) => count(job, true))
          .on('failed', (job) => count(job, false))
          .on('error', () => undefined),
      );
  });
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, 120_000).unref());
  await Promise.race([finished, timeout]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // The workers are this process: its CPU over the drain is theirs (BullMQ's client, the processors).
  const used = cpuDelta(cpuBefore, cpuSnapshot());
  used.worker = used.loadgen;
  used.loadgen = 0;
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(queues.map((q) => q.obliterate({ force: true }).then(() => q.close())));
  return {
    ...figures(durations, done / seconds, failed + (DRAIN_JOBS - done - failed)),
    cpu: { used, units: done },
  };
}

/** What every scenario may use: the servers, the data set, the client's credentials and the loads. */
export interface BenchContext {
  pool: Pool;
  apiUrl: string;
  bareUrl: string;
  databaseUrl: string;
  redisUrl: string;
  tenant: { gameId: string; studioId: string };
  game: { clientId: string; clientSecret: string };
  serviceIds: string[];
  /** The one player H reports on. */
  hot: string;
  /** A studio's request headers (client credentials, JSON). */
  headers: Record<string, string>;
  reportBody: string;
  reportObject: unknown;
  /** A random player of the set being measured (the small one, then the large one). */
  randomPlayer: () => string;
  /** A random one of the 1,000 small-set players holding 20 offenses each (P20). */
  randomFullProfile: () => string;
  /** The next report for the statement driven directly (B1, B100). */
  nextReport: () => ReportToRecord;
  /** The next pre-issued authorization code (T). */
  nextCode: () => string;
  moderatorToken: string;
  /** POSTs of `items` things each (a fresh body per request), measured in things per second. */
  perItem: (
    seconds: number,
    path: string,
    items: number,
    body: () => object,
    url?: string,
  ) => Promise<Figures>;
  /** A measurement driving the database directly, its outbox rows then marked sent. */
  direct: (measuring: Promise<Figures>) => Promise<Figures>;
  profilesAt: (url: string, pick?: () => string) => (seconds: number) => Promise<Figures>;
  lookupsAt: (url: string) => (seconds: number) => Promise<Figures>;
  reportsAt: (url: string) => (seconds: number) => Promise<Figures>;
}

/**
 * One scenario, one file in bench/scenarios/ (its name is the file's): `make` gives the measurement
 * of `seconds`; `against` names the references measured in the same run that its figure is divided
 * by, each with its target (undefined: printed without one). A new scenario is one new file.
 */
export interface Scenario {
  order: number;
  what: string;
  against?: Record<string, number | undefined>;
  /** A drain of a fixed number of jobs (W0, W1): long enough that it needs no warm-up round. */
  noWarmup?: boolean;
  make: (ctx: BenchContext) => (seconds: number) => Promise<Figures>;
}
