import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import { Queue, Worker, type Job } from 'bullmq';
import { parseConfig } from '../common/config.js';
import { createLogger } from '../common/logger.js';
import { offenseJobs, QUEUES } from '../common/queues/index.js';
import { enrichmentProcessor } from '../worker/processors/enrichment.js';
import { reviewProcessor } from '../worker/processors/review.js';
import { concurrencyOf } from '../worker/run.js';
import { createPool, type Pool } from '../common/data/db.js';
import { migrate } from '../common/data/migrate.js';
import { findProfiles, recordReports, type ReportToRecord } from '../common/data/repos/offenses.js';
import { computePenalty } from '../common/domain/penalty.js';
import { parseReport } from '../common/domain/reports.js';
import { providePostgres, provideRedis } from '../common/services/index.js';
import { provisionGame, provisionStudio, setGameLimits } from '../common/usecases/provisioning.js';
import { createModerator } from '../common/usecases/moderation.js';
import { explainLarge, seedLarge } from './large.js';
import { parseLsn } from '../common/data/replicas.js';
import { startRedisCluster } from '../common/services/redis-cluster.js';
import { startStandby } from '../common/services/standby.js';

/**
 * npm run bench: every scenario in one run on this machine, interleaved, each measured three times
 * after a warm-up, the median printed with ratios to the references measured in the same run.
 * Load goes to loopback only, every loop is bounded in time, and everything started is stopped.
 */
const args = process.argv.slice(2);
const plansOut = args.includes('--plans') ? args[args.indexOf('--plans') + 1] : undefined;
/** The large data set (BENCH_LARGE=0 skips it): sizes and the time its seeding may take. */
const LARGE = {
  enabled: process.env.BENCH_LARGE !== '0',
  players: Number(process.env.BENCH_LARGE_PLAYERS ?? 1_000_000),
  offensesPerPlayer: Number(process.env.BENCH_LARGE_OFFENSES_PER_PLAYER ?? 10),
  openCaseEvery: 10,
  seconds: Number(process.env.BENCH_LARGE_SECONDS ?? 900),
};
const jsonOut = args.includes('--json')
  ? (args[args.indexOf('--json') + 1] ?? 'bench-results.json')
  : undefined;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 50;
const PLAYERS = 10_000;
/** Ids per lobby check (LK). */
const LOOKUP = 100;
/** Reports per request in the bulk scenario (BK). */
const BULK = 100;
const PEPPER = crypto.randomBytes(24).toString('base64url');
const CAPS = { cheating: 20, griefing: 15, toxicity: 10, afk: 5 };
/**
 * The bench's game is a busy studio's: limits high enough never to throttle the load (the limiter
 * still runs on every request), and B1 files with the same policy the API applies to that game.
 */
const BENCH_LIMITS = {
  reportsPerSecond: 100_000,
  reportsBurst: 100_000,
  readsPerSecond: 100_000,
  readsBurst: 100_000,
  reporterQuota: 100_000,
  studioBudget: 100,
};
// The service's own defaults for what the bench does not raise.
const DEFAULTS = parseConfig({ NODE_ENV: 'test' });
/** Statements in flight per API process for group commit (and B100's loops). */
const GROUP_IN_FLIGHT = DEFAULTS.reportBatchesInFlight;
const BENCH_POLICY = {
  reporterQuota: BENCH_LIMITS.reporterQuota,
  studioBudget: BENCH_LIMITS.studioBudget,
  credibilityThreshold: DEFAULTS.credibilityThreshold,
  credibilityMinHistory: DEFAULTS.credibilityMinHistory,
};

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

const children: ChildProcess[] = [];
/**
 * Starts a process with its stdout going to a file, not a pipe: pino writes synchronously, and a
 * pipe read by this busy load generator would throttle the service to the speed it is drained at.
 */
async function launch(
  file: string,
  env: NodeJS.ProcessEnv,
  logDir: string,
  nodeArgs: string[] = [],
  name = path.basename(file).replace(/\.[jt]s$/, ''),
): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  const logFile = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  // Built JavaScript runs on plain node, as the Procfile runs it; TypeScript goes through tsx.
  const loader = file.endsWith('.ts') ? ['--import', 'tsx'] : [];
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

function run(opts: autocannon.Options): Promise<Figures> {
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
async function paced(rate: number, seconds: number, op: () => Promise<boolean>): Promise<Figures> {
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
async function openLoop(
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
function figures(times: number[], rps: number, errors: number): Figures {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.floor(times.length * q)] ?? 0;
  return { rps, p50: at(0.5), p99: at(0.99), errors };
}

const median = (list: Figures[]): Figures => {
  const sorted = [...list].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * What B1, B100 and B1@50% file: the bench's anti-cheat report on a random player of the small set,
 * as the API would hand it to recordReports.
 */
function benchReports(
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
async function rawSql(
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

/** BP: the profile statement (findProfiles, one player a call) driven directly on CONNECTIONS loops. */
async function rawProfiles(pool: Pool, player: () => string, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const started0 = Date.now();
  const until = started0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        const started = process.hrtime.bigint();
        try {
          const id = player();
          if (!(await findProfiles(pool, [id], DEFAULTS.profileOffensesLimit, new Date())).has(id)) errors++;
        } catch {
          errors++;
        }
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  return figures(latencies, latencies.length / ((Date.now() - started0) / 1000), errors);
}

const DRAIN_JOBS = 20_000;

/**
 * W0 / W1: how fast the two offense queues drain 20,000 jobs (10,000 offenses, one job on each
 * queue), with no-op processors (W0: BullMQ and Redis alone) or the real enrichment and review
 * processors (W1), in the same workers at the production concurrency. Each round gets fresh
 * offenses with log evidence and its own queue prefix; the time counts from the workers' start
 * to the last completion.
 */
async function drain(
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
  for (let i = 0; i < rows.length; i += 1000) {
    const jobs = rows.slice(i, i + 1000).flatMap((r) =>
      offenseJobs(r.id).map((j) => ({
        queue: j.queue,
        name: j.jobName,
        data: { offenseId: r.id },
        opts: { jobId: j.jobId },
      })),
    );
    for (const [k, name] of names.entries()) await queues[k]!.addBulk(jobs.filter((j) => j.queue === name));
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
  const workers: Worker[] = [];
  const finished = new Promise<void>((resolve) => {
    const count = (job: Job | undefined, ok: boolean) => {
      if (ok) done++;
      else failed++;
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
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(queues.map((q) => q.obliterate({ force: true }).then(() => q.close())));
  return figures(durations, done / seconds, failed + (DRAIN_JOBS - done - failed));
}

async function main() {
  const dir = path.resolve('.bench', `run-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  // The buffer pool is sized for the large set's working set (its players and their index), as a
  // deployment would be (README, "Database sizing"); PostgreSQL's default is 128 MB.
  const sharedBuffers = process.env.BENCH_PG_SHARED_BUFFERS ?? '2GB';
  const pg = await providePostgres({
    dataDir: dir,
    databaseUrl: process.env.DATABASE_URL,
    settings: { shared_buffers: sharedBuffers },
  });
  const redis = await provideRedis({ dataDir: dir, redisUrl: process.env.REDIS_URL });
  const prefix = `bench${crypto.randomBytes(3).toString('hex')}`;
  const pool = createPool(pg.url, CONNECTIONS);
  try {
    await migrate(pg.url);
    process.stdout.write(
      `PostgreSQL ${pg.version} (shared_buffers ${(await pool.query<{ s: string }>("SELECT current_setting('shared_buffers') AS s")).rows[0]!.s}), Redis ${redis.version}; ${CONNECTIONS} connections, ${SECONDS} s x 3 per scenario\n`,
    );
    const studio = await provisionStudio(pool, { name: 'Bench Studio' });
    const game = await provisionGame(pool, PEPPER, {
      studioId: studio.id,
      title: 'Bench',
      redirectUris: ['https://bench.example/cb'],
    });
    await setGameLimits(pool, { clientId: game.clientId, limits: BENCH_LIMITS });
    const runId = crypto.randomBytes(3).toString('hex');
    const { rows } = await pool.query<{ service_id: string }>(
      `INSERT INTO players (service_id, full_name, gamer_tag)
       SELECT 'b${runId}-' || i, 'Bench ' || i, 'bench-${runId}-' || i FROM generate_series(1, $1) AS i RETURNING service_id`,
      [PLAYERS],
    );
    const serviceIds = rows.map((r) => r.service_id);
    // Each player has 10 offenses already, as on the large set (1M players, 10M offenses): the two
    // sets differ in size, not in what one profile holds.
    await pool.query(
      `INSERT INTO offenses (player_id, game_id, studio_id, type, severity, detected, penalty_points, description,
                             created_at, updated_at)
       SELECT p.id, $2, $3, (ARRAY['cheating','toxicity','afk','griefing'])[1 + (k % 4)],
              (ARRAY['low','medium','high','critical'])[1 + (k % 4)], true, 1 + (k % 5), 'seeded',
              now() - make_interval(days => 90) + make_interval(secs => (random() * 90 * 86400)::int), now()
         FROM players p CROSS JOIN generate_series(1, 10) AS k WHERE p.service_id LIKE $1`,
      [`b${runId}-%`, game.id, studio.id],
    );
    const hot = serviceIds[0]!;
    const headers = {
      client_id: game.clientId,
      client_secret: game.clientSecret,
      'content-type': 'application/json',
    };

    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      PORT: '0',
      QUEUE_PREFIX: prefix,
      CLIENT_SECRET_PEPPER: PEPPER,
      NODE_ENV: 'production',
      PUBLIC_URL: 'http://127.0.0.1',
      METRICS_TOKEN: crypto.randomBytes(16).toString('hex'),
      JWT_SIGNING_KEY: '',
      // The relay is the dispatcher's fallback for rows left unsent; at its default (every second, rows
      // older than 2 s) it would send B1's rows while B1 is measured. Once a minute keeps it out of
      // the figures; R's rows are still sent at once by the dispatcher.
      OUTBOX_RELAY_INTERVAL_MS: '60000',
      // One moderator session lasts the whole run.
      MODERATOR_TOKEN_TTL_SECONDS: '86400',
    };
    const { generateKeyPair, exportJWK } = await import('jose');
    const key = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
    env.JWT_SIGNING_KEY = JSON.stringify(key);
    // BENCH_CPU_PROF=DIR: the API writes a V8 CPU profile there when it stops (for `--cpu-prof` analysis).
    const profDir = process.env.BENCH_CPU_PROF;
    // The production build, as the Procfile runs it (`npm run bench` builds it first).
    const api = await launch(
      'dist/api/server.js',
      env,
      dir,
      profDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profDir)}`] : [],
    );
    const apiUrl = api.line.url as string;
    const bare = await launch('bench/bare-koa.ts', {}, dir);
    const bareUrl = `http://127.0.0.1:${bare.line.port as number}`;

    // Pre-issued codes for the token exchange, inserted the way the authorize page stores them.
    const codes: string[] = [];
    const codeCount = 60_000;
    for (let i = 0; i < codeCount; i++) codes.push(crypto.randomBytes(32).toString('base64url'));
    const { rows: playerIds } = await pool.query<{ id: string }>(
      'SELECT id FROM players WHERE service_id = ANY($1)',
      [serviceIds.slice(0, 1000)],
    );
    await pool.query(
      `INSERT INTO authorization_codes (code_hash, game_id, player_id, redirect_uri, redirect_uri_explicit, scope, expires_at)
       SELECT sha256(convert_to(c, 'UTF8')), $2, ($3::uuid[])[1 + (n % array_length($3::uuid[], 1))], 'https://bench.example/cb', false, 'profile', now() + interval '1 hour'
         FROM unnest($1::text[]) WITH ORDINALITY AS t(c, n)`,
      [codes, game.id, playerIds.map((p) => p.id)],
    );
    let nextCode = 0;
    let randomPlayer = () => serviceIds[Math.floor(Math.random() * serviceIds.length)]!;

    // The moderator queue (Q): a moderator's first page of open cases, 2,000 of them on the small set.
    const moderator = await createModerator(pool, {
      username: `bench-${runId}`,
      displayName: 'Bench moderator',
      role: 'moderator',
      password: 'bench moderator password',
    });
    const session = (await (
      await fetch(`${apiUrl}/v1/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: `bench-${runId}`, password: 'bench moderator password' }),
      })
    ).json()) as { access_token: string };
    await pool.query(
      `INSERT INTO review_cases (player_id, type, reports_count, highest_severity, total_penalty, distinct_games,
                                 distinct_reporters, priority, opened_at, due_at)
       SELECT id, 'toxicity', 3, 'medium', 9, 1, 2, (random() * 100)::numeric(8, 2),
              now() - make_interval(secs => (random() * 86400)::int), now() + interval '1 day'
         FROM players WHERE service_id LIKE $1 LIMIT 2000`,
      [`b${runId}-%`],
    );
    await pool.query('ANALYZE');
    const reportBody = JSON.stringify({
      report: { isCheatDetected: true, severity: 'low', confidence: 0.2 },
    });
    const reportObject = (JSON.parse(reportBody) as { report: unknown }).report;

    /** POSTs of `items` things each (a fresh body per request), measured in things per second. */
    const perItem = async (
      seconds: number,
      path: string,
      items: number,
      body: () => object,
      url = apiUrl,
    ) => {
      const f = await run({
        url,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers,
            path,
            setupRequest: (r) => ({ ...r, body: JSON.stringify(body()) }),
          },
        ],
      });
      return { ...f, rps: f.rps * items };
    };
    const nextReport = benchReports(serviceIds, { gameId: game.id, studioId: studio.id });
    // B1, B100 and B1@50% measure the database alone: their outbox rows have no dispatcher, and left
    // unsent they would make the API's relay send them during the next scenario.
    const direct = async (measuring: Promise<Figures>) => {
      const f = await measuring;
      await pool.query('UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL');
      return f;
    };
    const profilesAt = (url: string) => (s: number) =>
      run({
        url,
        duration: s,
        requests: [
          { method: 'GET', headers, setupRequest: (r) => ({ ...r, path: `/v1/player/${randomPlayer()}` }) },
        ],
      });
    const lookupsAt = (url: string) => (s: number) =>
      perItem(
        s,
        '/v1/players/lookup',
        LOOKUP,
        () => ({ serviceIds: Array.from({ length: LOOKUP }, () => randomPlayer()) }),
        url,
      );
    const reportsAt = (url: string) => (s: number) =>
      run({
        url,
        duration: s,
        requests: [
          {
            method: 'POST',
            headers,
            body: reportBody,
            setupRequest: (r) => ({ ...r, path: `/v1/anticheat/submitReport/${randomPlayer()}` }),
          },
        ],
      });
    const scenarios: Record<string, (seconds: number) => Promise<Figures>> = {
      B0: (s) => run({ url: `${bareUrl}/hello`, duration: s }),
      // The profile statement alone, driven directly: the reference for P, as B1 is for R.
      BP: (s) => rawProfiles(pool, randomPlayer, s),
      B1: (s) => direct(rawSql(pool, nextReport, s)),
      B100: (s) => direct(rawSql(pool, nextReport, s, BULK, GROUP_IN_FLIGHT)),
      P: profilesAt(apiUrl),
      T: (s) =>
        run({
          url: apiUrl,
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
                  code: codes[nextCode++ % codeCount],
                  client_id: game.clientId,
                  client_secret: game.clientSecret,
                }),
              }),
            },
          ],
        }),
      R: reportsAt(apiUrl),
      // The lobby check: 100 random ids per call; its figure is ids/s.
      LK: lookupsAt(apiUrl),
      // Bulk: 100 reports on random players per request; its figure is reports/s, not requests/s.
      BK: (s) =>
        perItem(s, '/v1/reports/batch', BULK, () => ({
          reports: Array.from({ length: BULK }, () => ({
            kind: 'anticheat',
            serviceId: randomPlayer(),
            report: reportObject,
          })),
        })),
      W0: () =>
        drain(false, { url: pg.url, pool }, redis.url, { gameId: game.id, studioId: studio.id }, serviceIds),
      W1: () =>
        drain(true, { url: pg.url, pool }, redis.url, { gameId: game.id, studioId: studio.id }, serviceIds),
      H: (s) =>
        run({
          url: apiUrl,
          duration: s,
          requests: [
            { method: 'POST', headers, body: reportBody, path: `/v1/anticheat/submitReport/${hot}` },
          ],
        }),
      Q: (s) =>
        run({
          url: apiUrl,
          duration: s,
          requests: [
            {
              method: 'GET',
              path: '/v1/admin/cases?status=open&limit=20',
              headers: { authorization: `Bearer ${session.access_token}` },
            },
          ],
        }),
    };

    // BENCH_ONLY=P,B0 measures a subset (for profiling one path); the ratios need their references.
    const only = process.env.BENCH_ONLY?.split(',');
    if (only) for (const name of Object.keys(scenarios)) if (!only.includes(name)) delete scenarios[name];
    // W0/W1 warm up in their first round: a drain is long enough not to need a separate one.
    for (const [name, run] of Object.entries(scenarios)) if (!name.startsWith('W')) await run(WARMUP_SECONDS);
    const results: Record<string, Figures[]> = {};
    for (let round = 0; round < 3; round++) {
      for (const [name, scenario] of Object.entries(scenarios))
        (results[name] ??= []).push(await scenario(SECONDS));
    }
    const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)])) as Record<
      string,
      Figures
    >;

    // Open loop: R at half its measured maximum rate, paced evenly (see openLoop).
    const rate = m.R ? Math.max(1, Math.floor(m.R.rps / 2)) : 0;
    const open: Figures[] = [];
    for (let i = 0; i < (m.R ? 3 : 0); i++)
      open.push(
        await openLoop(apiUrl, rate, SECONDS, headers, () => ({
          path: `/v1/anticheat/submitReport/${randomPlayer()}`,
          body: reportBody,
        })),
      );
    if (open.length) m['R@50%'] = median(open);
    // The reference for R@50%: the report statement itself, driven directly at the same pace.
    const openSql: Figures[] = [];
    for (let i = 0; i < (m.R ? 3 : 0); i++)
      openSql.push(
        await direct(
          paced(
            rate,
            SECONDS,
            async () => (await recordReports(pool, [nextReport()]))[0]?.status === 'created',
          ),
        ),
      );
    if (openSql.length) m['B1@50%'] = median(openSql);

    // Beyond one machine (issue 22), side by side: reads from a hot standby against the same reads
    // from the primary, and reports with the queues on a 3-master Redis Cluster against one Redis.
    const topologyLines: string[] = [];
    const topologyWanted = !only || ['P', 'LK', 'R'].some((n) => only.includes(n));
    // BENCH_TOPOLOGY=0 skips this; =standby or =cluster runs one half.
    const topology = process.env.BENCH_TOPOLOGY ?? 'all';
    const clusterShards = process.env.BENCH_CLUSTER_SHARDS ?? '6';
    if (['all', 'standby'].includes(topology) && topologyWanted && pg.owned) {
      const standby = await startStandby({
        primaryUrl: pg.url,
        primaryDataFolder: path.join(dir, 'postgres'),
        dir: path.join(dir, 'standby'),
      });
      const withStandby = await launch(
        'dist/api/server.js',
        { ...env, DATABASE_REPLICA_URLS: standby.url },
        dir,
        [],
        'api-standby',
      );
      const standbyUrl = withStandby.line.url as string;
      try {
        for (const [name, scenario] of [
          ['P·', profilesAt(apiUrl)],
          ['PS', profilesAt(standbyUrl)],
          ['LK·', lookupsAt(apiUrl)],
          ['LKS', lookupsAt(standbyUrl)],
        ] as const) {
          await scenario(WARMUP_SECONDS);
          (results[name] ??= []).push(await scenario(SECONDS));
        }
        for (let round = 1; round < 3; round++)
          for (const [name, scenario] of [
            ['P·', profilesAt(apiUrl)],
            ['PS', profilesAt(standbyUrl)],
            ['LK·', lookupsAt(apiUrl)],
            ['LKS', lookupsAt(standbyUrl)],
          ] as const)
            results[name]!.push(await scenario(SECONDS));
        for (const name of ['P·', 'PS', 'LK·', 'LKS']) m[name] = median(results[name]!);
        // Replay lag under R: the primary's flushed position sampled, then the time until the standby
        // has replayed it.
        const lags: number[] = [];
        const primaryClient = await pool.connect();
        const standbyPool = createPool(standby.url, 1);
        let loading = true;
        const sampling = (async () => {
          while (loading) {
            const { rows } = await primaryClient.query<{ lsn: string }>(
              'SELECT pg_current_wal_flush_lsn()::text AS lsn',
            );
            const target = parseLsn(rows[0]!.lsn)!;
            const t0 = process.hrtime.bigint();
            for (;;) {
              const { rows: r } = await standbyPool.query<{ lsn: string }>(
                'SELECT pg_last_wal_replay_lsn()::text AS lsn',
              );
              if (parseLsn(r[0]!.lsn)! >= target) break;
            }
            lags.push(Number(process.hrtime.bigint() - t0) / 1e6);
            await new Promise((r) => setTimeout(r, 5));
          }
        })();
        const underR = await reportsAt(apiUrl)(SECONDS);
        loading = false;
        await sampling;
        primaryClient.release();
        await standbyPool.end();
        lags.sort((a, b) => a - b);
        // Read-your-writes through the standby API: a report, then its player's profile with the token.
        const sources: Record<string, number> = {};
        let tokenErrors = 0;
        const until = Date.now() + SECONDS * 1000;
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            while (Date.now() < until) {
              const player = randomPlayer();
              const write = await fetch(`${standbyUrl}/v1/anticheat/submitReport/${player}`, {
                method: 'POST',
                headers,
                body: reportBody,
              });
              await write.arrayBuffer();
              const token = write.headers.get('consistency-token');
              const read = await fetch(`${standbyUrl}/v1/player/${player}`, {
                headers: { ...headers, ...(token ? { 'consistency-token': token } : {}) },
              });
              await read.arrayBuffer();
              if (write.status !== 201 || read.status !== 200 || !token) tokenErrors++;
              const source = read.headers.get('read-source') ?? 'none';
              sources[source] = (sources[source] ?? 0) + 1;
            }
          }),
        );
        const tokenReads = Object.values(sources).reduce((a, b) => a + b, 0);
        topologyLines.push(
          `standby replay lag under R (${underR.rps.toFixed(0)} reports/s): p50 ${(lags[Math.floor(lags.length / 2)] ?? 0).toFixed(2)} ms, p99 ${(lags[Math.floor(lags.length * 0.99)] ?? 0).toFixed(2)} ms over ${lags.length} samples`,
          `reads with a consistency token right after their write: ${tokenReads}, served by the standby ${(((sources.standby ?? 0) / Math.max(1, tokenReads)) * 100).toFixed(1)}% (${JSON.stringify(sources)}), errors ${tokenErrors}`,
        );
      } finally {
        withStandby.child.kill('SIGTERM');
        await new Promise((r) =>
          withStandby.child.exitCode !== null ? r(null) : withStandby.child.once('exit', r),
        );
        await standby.stop('fast').catch(() => undefined);
      }
    }
    if (['all', 'cluster'].includes(topology) && topologyWanted) {
      const cluster = await startRedisCluster({ dir: path.join(dir, 'cluster'), masters: 3 });
      const onCluster = await launch(
        'dist/api/server.js',
        { ...env, REDIS_URL: cluster.url, QUEUE_SHARDS: clusterShards, QUEUE_PREFIX: `${prefix}c` },
        dir,
        [],
        'api-cluster',
      );
      const clusterUrl = onCluster.line.url as string;
      try {
        for (let round = 0; round < 3; round++)
          for (const [name, scenario] of [
            ['R·', reportsAt(apiUrl)],
            ['RC', reportsAt(clusterUrl)],
          ] as const) {
            if (round === 0) await scenario(WARMUP_SECONDS);
            (results[name] ??= []).push(await scenario(SECONDS));
          }
        for (const name of ['R·', 'RC']) m[name] = median(results[name]!);
      } finally {
        onCluster.child.kill('SIGTERM');
        await new Promise((r) =>
          onCluster.child.exitCode !== null ? r(null) : onCluster.child.once('exit', r),
        );
        await cluster.stop();
      }
    }

    // Two API processes on this machine (API_PROCESSES=2, node:cluster) against one, side by side.
    if (process.env.BENCH_PROCESSES !== '0' && (!only || ['P', 'R'].some((n) => only.includes(n)))) {
      const two = await launch('dist/api/server.js', { ...env, API_PROCESSES: '2' }, dir, [], 'api-two');
      const twoUrl = two.line.url as string;
      try {
        for (let round = 0; round < 3; round++)
          for (const [name, scenario] of [
            ['P1', profilesAt(apiUrl)],
            ['P2', profilesAt(twoUrl)],
            ['R1', reportsAt(apiUrl)],
            ['R2', reportsAt(twoUrl)],
          ] as const) {
            if (round === 0) await scenario(WARMUP_SECONDS);
            (results[name] ??= []).push(await scenario(SECONDS));
          }
        for (const name of ['P1', 'P2', 'R1', 'R2']) m[name] = median(results[name]!);
      } finally {
        // SIGTERM to the first process stops both API processes it runs.
        two.child.kill('SIGTERM');
        await new Promise((r) => (two.child.exitCode !== null ? r(null) : two.child.once('exit', r)));
      }
    }

    // The same scenarios on the large data set: cost must stay flat as the data grows.
    let large: Awaited<ReturnType<typeof seedLarge>> | undefined;
    let plans = '';
    if (LARGE.enabled && (!only || ['P', 'R', 'LK', 'Q'].some((n) => only.includes(n)))) {
      process.stdout.write(
        `seeding the large set: ${LARGE.players.toLocaleString('en')} players x ${LARGE.offensesPerPlayer} offenses (at most ${LARGE.seconds} s)\n`,
      );
      large = await seedLarge(
        pool,
        { gameId: game.id, studioId: studio.id, runId },
        { ...LARGE, deadline: Date.now() + LARGE.seconds * 1000 },
        (line) => process.stdout.write(`${line}\n`),
      );
      const set = large;
      randomPlayer = () => set.serviceIdOf(1 + Math.floor(Math.random() * set.players));
      const onLarge = (['P', 'R', 'LK', 'Q'] as const).filter((n) => scenarios[n]);
      for (const name of onLarge) await scenarios[name]!(WARMUP_SECONDS);
      const largeResults: Record<string, Figures[]> = {};
      for (let round = 0; round < 3; round++)
        for (const name of onLarge) (largeResults[`${name}@L`] ??= []).push(await scenarios[name]!(SECONDS));
      for (const [k, v] of Object.entries(largeResults)) m[k] = median(v);
      plans = await explainLarge(pool, set, {
        studioId: studio.id,
        moderatorId: moderator.id,
        smallSet: serviceIds,
      });
      if (plansOut) fs.writeFileSync(plansOut, plans);
    }

    // The hot player's final score must be exactly 100 minus what its offenses took.
    const check = await pool.query<{ trust_score: number; taken: number }>(
      `SELECT p.trust_score, coalesce(sum(o.penalty_points), 0)::int AS taken FROM players p LEFT JOIN offenses o ON o.player_id = p.id AND o.description <> 'seeded' WHERE p.service_id = $1 GROUP BY p.trust_score`,
      [hot],
    );
    const hotExact = check.rows[0]!.trust_score === 100 - check.rows[0]!.taken;

    const ratios: Record<string, number> = {};
    for (const [a, b] of [
      ['R', 'B1'],
      ['B100', 'B1'],
      ['BK', 'B100'],
      ['H', 'R'],
      ['P', 'B0'],
      ['P', 'BP'],
      ['PS', 'P·'],
      ['LKS', 'LK·'],
      ['RC', 'R·'],
      ['P2', 'P1'],
      ['R2', 'R1'],
      ['T', 'B0'],
      ['R', 'B0'],
      ['BK', 'R'],
      ['LK', 'P'],
      ['W1', 'W0'],
      ['P@L', 'P'],
      ['R@L', 'R'],
      ['LK@L', 'LK'],
      ['Q@L', 'Q'],
    ] as const)
      if (m[a] && m[b]) ratios[`${a}/${b}`] = m[a].rps / m[b].rps;
    const targets: Record<string, number> = {
      'R/B1': 2,
      'R/B0': 0.1,
      'H/R': 0.9,
      'P/B0': 0.25,
      'PS/P·': 0.9,
      'LKS/LK·': 0.9,
      'RC/R·': 0.9,
      'P2/P1': 1.3,
      'R2/R1': 1,
      'T/B0': 0.2,
      'W1/W0': 0.3,
      'BK/R': 5,
      'LK/P': 10,
      'P@L/P': 0.8,
      'R@L/R': 0.8,
      'LK@L/LK': 0.8,
      'Q@L/Q': 0.8,
    };
    const lines = [
      '',
      'scenario   req/s     p50 ms  p99 ms  errors',
      '---------  --------  ------  ------  ------',
    ];
    for (const [name, f] of Object.entries(m))
      lines.push(
        `${name.padEnd(9)}  ${f.rps.toFixed(0).padStart(8)}  ${f.p50.toFixed(1).padStart(6)}  ${f.p99.toFixed(1).padStart(6)}  ${String(f.errors).padStart(6)}`,
      );
    if (large)
      lines.push(
        '',
        `large set: ${large.players.toLocaleString('en')} players, ${large.offenses.toLocaleString('en')} offenses, ${large.cases.toLocaleString('en')} cases (${large.openCases.toLocaleString('en')} open), seeded in ${large.seconds.toFixed(0)} s; X@L is scenario X on it`,
      );
    if (topologyLines.length || m.RC)
      lines.push(
        '',
        `P·, LK·, R·: P, LK, R measured again beside PS, LKS (the same through an API reading from a hot standby) and RC (R with the queues on a 3-master Redis Cluster, QUEUE_SHARDS=${clusterShards})`,
        ...topologyLines,
      );
    lines.push('', 'ratio     value  target');
    for (const [name, v] of Object.entries(ratios))
      lines.push(
        `${name.padEnd(8)}  ${v.toFixed(2).padStart(5)}  ${targets[name] !== undefined ? `>= ${targets[name]} ${v >= targets[name]! ? 'met' : 'MISSED'}` : ''}`,
      );
    if (m['R@50%'] && m['B1@50%']) {
      const limit = 2 * m['B1@50%'].p99;
      // Past B1's own maximum its statements queue, and its p99 is a queue's: no reference at all.
      const verdict =
        m.B1 && m.B1.rps < rate
          ? `not measured: B1's maximum, ${m.B1.rps.toFixed(0)}/s, is below this pace`
          : m['R@50%'].p99 <= limit
            ? 'met'
            : 'MISSED';
      lines.push(
        `open-loop p99 at ${rate} req/s: R ${m['R@50%'].p99.toFixed(1)} ms, B1 ${m['B1@50%'].p99.toFixed(1)} ms (target R <= 2x B1 = ${limit.toFixed(1)} ms ${verdict})`,
      );
    }
    lines.push(
      `hot player final score exact: ${hotExact ? 'yes' : 'NO'} (score ${check.rows[0]!.trust_score}, offenses took ${check.rows[0]!.taken})`,
      '',
    );
    process.stdout.write(lines.join('\n'));
    if (jsonOut)
      fs.writeFileSync(
        jsonOut,
        JSON.stringify(
          {
            seconds: SECONDS,
            connections: CONNECTIONS,
            postgres: pg.version,
            redis: redis.version,
            scenarios: m,
            ratios,
            openLoopRate: rate,
            hotExact,
            large: large && { ...large, serviceIdOf: undefined },
            plans,
          },
          null,
          2,
        ),
      );
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    );
    await pool.end();
    await pg.stop();
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  for (const c of children) c.kill('SIGKILL');
  process.exit(1);
});
