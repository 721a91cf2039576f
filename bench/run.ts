import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createPool } from '../common/data/db.js';
import { migrate } from '../common/data/migrate.js';
import { recordReports } from '../common/data/repos/offenses.js';
import { providePostgres, provideRedis } from '../common/services/index.js';
import { provisionGame, provisionStudio, setGameLimits } from '../common/usecases/provisioning.js';
import { createModerator } from '../common/usecases/moderation.js';
import { explainLarge, seedLarge } from './large.js';
import { parseLsn } from '../common/data/replicas.js';
import { startRedisCluster } from '../common/services/redis-cluster.js';
import { startStandby } from '../common/services/standby.js';
import { cpuDelta, cpuSnapshot, serviceCpu, type CpuSeconds } from './cpu.js';
import {
  BENCH_LIMITS,
  CONNECTIONS,
  LARGE,
  LOOKUP,
  PEPPER,
  PLAYERS,
  SECONDS,
  WARMUP_SECONDS,
  benchReports,
  children,
  jsonOut,
  launch,
  median,
  openLoop,
  paced,
  plansOut,
  run,
  type BenchContext,
  type Figures,
  type Scenario,
} from './harness.js';

/**
 * npm run bench: sets the servers and the data set up, then runs every scenario of bench/scenarios/
 * (one file each; the shared harness in bench/harness.ts) and the composite ones below (standby,
 * cluster, two processes, the large set), and prints the figures and their ratios.
 */
async function main() {
  const dir = path.resolve('.bench', `run-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  // The buffer pool is sized for the large set's working set (its players and their index), as a
  // deployment would be (README, "Database sizing"); PostgreSQL's default is 128 MB.
  const sharedBuffers = process.env.BENCH_PG_SHARED_BUFFERS ?? '2GB';
  const statementsFile = process.env.BENCH_PG_STATEMENTS;
  const pg = await providePostgres({
    dataDir: dir,
    databaseUrl: process.env.DATABASE_URL,
    settings: {
      shared_buffers: sharedBuffers,
      // BENCH_PG_STATEMENTS=FILE: PostgreSQL counts every statement, the function's own inside it too.
      ...(statementsFile
        ? {
            shared_preload_libraries: 'pg_stat_statements',
            'pg_stat_statements.track': 'all',
            'pg_stat_statements.track_planning': 'on',
          }
        : {}),
    },
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
    /** `count` players named after `tag`, each holding `offenses` offenses spread over 90 days. */
    const seedPlayers = async (tag: string, count: number, offenses: number) => {
      const { rows } = await pool.query<{ id: string; service_id: string }>(
        `INSERT INTO players (service_id, full_name, gamer_tag, offense_count)
         SELECT 'b${runId}-${tag}' || i, 'Bench ${tag}' || i, 'bench-${runId}-${tag}' || i, $2
           FROM generate_series(1, $1) AS i RETURNING id, service_id`,
        [count, offenses],
      );
      await pool.query(
        `INSERT INTO offenses (player_id, game_id, studio_id, type, severity, detected, penalty_points, description,
                               created_at, updated_at)
         SELECT p, $2, $3, (ARRAY['cheating','toxicity','afk','griefing'])[1 + (k % 4)],
                (ARRAY['low','medium','high','critical'])[1 + (k % 4)], true, 1 + (k % 5), 'seeded',
                now() - make_interval(days => 90) + make_interval(secs => (random() * 90 * 86400)::int), now()
           FROM unnest($1::uuid[]) AS p CROSS JOIN generate_series(1, $4) AS k`,
        [rows.map((r) => r.id), game.id, studio.id, offenses],
      );
      return rows.map((r) => r.service_id);
    };
    // Each player has 10 offenses already, as on the large set (1M players, 10M offenses): the two
    // sets differ in size, not in what one profile holds.
    const serviceIds = await seedPlayers('', PLAYERS, 10);
    // And 1,000 players holding 20 offenses each (a full profile at PROFILE_OFFENSES_LIMIT): P20's.
    const fullProfiles = await seedPlayers('f', 1000, 20);
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
    const profilesAt =
      (url: string, pick: () => string = () => randomPlayer()) =>
      (s: number) =>
        run({
          url,
          duration: s,
          requests: [
            { method: 'GET', headers, setupRequest: (r) => ({ ...r, path: `/v1/player/${pick()}` }) },
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
    const ctx: BenchContext = {
      pool,
      apiUrl,
      bareUrl,
      databaseUrl: pg.url,
      redisUrl: redis.url,
      tenant: { gameId: game.id, studioId: studio.id },
      game,
      serviceIds,
      hot,
      headers,
      reportBody,
      reportObject,
      randomPlayer: () => randomPlayer(),
      randomFullProfile: () => fullProfiles[Math.floor(Math.random() * fullProfiles.length)]!,
      nextReport,
      nextCode: () => codes[nextCode++ % codeCount]!,
      moderatorToken: session.access_token,
      perItem,
      direct,
      profilesAt,
      lookupsAt,
      reportsAt,
    };
    const defined = await loadScenarios();
    const scenarios: Record<string, (seconds: number) => Promise<Figures>> = Object.fromEntries(
      [...defined].map(([name, s]) => [name, s.make(ctx)]),
    );

    // BENCH_ONLY=P,B0 measures a subset (for profiling one path); the ratios need their references.
    const only = process.env.BENCH_ONLY?.split(',');
    if (only) for (const name of Object.keys(scenarios)) if (!only.includes(name)) delete scenarios[name];
    // W0/W1 warm up in their first round: a drain is long enough not to need a separate one.
    for (const [name, run] of Object.entries(scenarios))
      if (!defined.get(name)?.noWarmup) await run(WARMUP_SECONDS);
    const results: Record<string, Figures[]> = {};
    // CPU seconds of every process per unit of work (bench/cpu.ts), per round, beside the figures.
    const cpuPerUnit: Record<string, CpuSeconds[]> = {};
    if (statementsFile) {
      await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await pool.query('SELECT pg_stat_statements_reset()');
    }
    for (let round = 0; round < 3; round++) {
      for (const [name, scenario] of Object.entries(scenarios)) {
        const before = cpuSnapshot();
        const started = Date.now();
        const figures = await scenario(SECONDS);
        const used = figures.cpu?.used ?? cpuDelta(before, cpuSnapshot());
        const units = figures.cpu?.units ?? figures.rps * ((Date.now() - started) / 1000);
        (results[name] ??= []).push(figures);
        if (units > 0)
          (cpuPerUnit[name] ??= []).push(
            Object.fromEntries(Object.entries(used).map(([k, v]) => [k, v / units])) as CpuSeconds,
          );
      }
    }
    // What PostgreSQL ran over the measured rounds (BENCH_ONLY one scenario to read one's), by
    // total time: calls, rows, planning and execution (ms), written to BENCH_PG_STATEMENTS.
    if (statementsFile) {
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT calls, rows, round(total_plan_time::numeric, 1) AS plan_ms,
                round(total_exec_time::numeric, 1) AS exec_ms, toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
           FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 40`,
      );
      fs.writeFileSync(statementsFile, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
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

    // Tracing (issue 39), side by side: R through the API as it runs by default (the tracing hook
    // loaded, no OTLP endpoint: off), and R through an API that traces every report and exports its
    // spans over OTLP/HTTP to a sink in this process (which takes them and drops them).
    const tracingLines: string[] = [];
    if (process.env.BENCH_TRACING !== '0' && (!only || only.includes('R'))) {
      let exports = 0;
      const sink = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          exports++;
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
      const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
      const traced = await launch(
        'dist/api/server.js',
        { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl },
        dir,
        [],
        'api-traced',
      );
      const tracedUrl = traced.line.url as string;
      // And, launched alike beside it, the API as it runs by default (the hook loaded, off) and as it
      // ran before tracing existed (no hook at all).
      const hooked = await launch('dist/api/server.js', env, dir, [], 'api-hooked');
      const hookedUrl = hooked.line.url as string;
      const unhooked = await launch('dist/api/server.js', env, dir, [], 'api-unhooked', false);
      const unhookedUrl = unhooked.line.url as string;
      const cpuOf: Record<string, number[]> = {};
      try {
        const three = [
          ['R-', reportsAt(unhookedUrl)],
          ['R°', reportsAt(hookedUrl)],
          ['RT', reportsAt(tracedUrl)],
        ] as const;
        for (const [, scenario] of three) await scenario(WARMUP_SECONDS);
        // Each round starts with another of the three: what the previous scenario left the database
        // to do (its checkpoint, its vacuum) falls on each in turn, not always on the same one.
        for (let round = 0; round < 3; round++)
          for (const [name, scenario] of [...three.slice(round), ...three.slice(0, round)]) {
            const before = cpuSnapshot();
            const started = Date.now();
            const figures = await scenario(SECONDS);
            const units = figures.rps * ((Date.now() - started) / 1000);
            (results[name] ??= []).push(figures);
            const used = cpuDelta(before, cpuSnapshot());
            if (units > 0) {
              (cpuOf[name] ??= []).push(serviceCpu(used) / units);
              (cpuOf[`${name} api`] ??= []).push(used.api / units);
            }
          }
        for (const name of ['R-', 'R°', 'RT']) m[name] = median(results[name]!);
        const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        const cost = (from: string, to: string, key: string) => {
          const a = med(cpuOf[`${from}${key}`] ?? [0]) * 1e6;
          const b = med(cpuOf[`${to}${key}`] ?? [0]) * 1e6;
          const d = b - a;
          return `${a.toFixed(0)} -> ${b.toFixed(0)} (${d >= 0 ? '+' : '-'}${Math.abs(d).toFixed(0)}, x${(b / Math.max(a, 1e-9)).toFixed(2)})`;
        };
        tracingLines.push(
          `R-, R°, RT: R through an API without the tracing hook (as before tracing), with it loaded and off (no endpoint: the default), and on (every report traced, spans exported over OTLP/HTTP to a sink: ${exports} exports)`,
          `CPU per report, µs, hook loaded and off against no hook: the API process ${cost('R-', 'R°', ' api')}; the service ${cost('R-', 'R°', '')}`,
          `CPU per report, µs, tracing on against off: the API process ${cost('R°', 'RT', ' api')}; the service ${cost('R°', 'RT', '')}`,
        );
      } finally {
        for (const { child } of [traced, hooked, unhooked]) {
          child.kill('SIGTERM');
          await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
        }
        sink.close();
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

    // Each scenario's own references and targets (bench/scenarios/), then the composite ones.
    const pairs: [string, string, number | undefined][] = [
      ...[...defined].flatMap(([name, s]) =>
        Object.entries(s.against ?? {}).map(
          ([ref, target]) => [name, ref, target] as [string, string, number | undefined],
        ),
      ),
      ['PS', 'P·', 0.9],
      ['LKS', 'LK·', 0.9],
      ['RC', 'R·', 0.9],
      ['P2', 'P1', 1.3],
      ['R°', 'R-', undefined],
      ['RT', 'R°', undefined],
      ['R2', 'R1', 1],
      ['P@L', 'P', 0.8],
      ['R@L', 'R', 0.8],
      ['LK@L', 'LK', 0.8],
      ['Q@L', 'Q', 0.8],
    ];
    const ratios: Record<string, number> = {};
    const targets: Record<string, number> = {};
    for (const [a, b, target] of pairs) {
      if (m[a] && m[b]) ratios[`${a}/${b}`] = m[a].rps / m[b].rps;
      if (target !== undefined) targets[`${a}/${b}`] = target;
    }
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
    if (tracingLines.length) lines.push('', ...tracingLines);
    // CPU per unit of work, median of the rounds, per process group (µs of CPU time per report,
    // profile, id or request as each scenario counts its rps).
    const cpuMedian = Object.fromEntries(
      Object.entries(cpuPerUnit).map(([name, rounds]) => [
        name,
        Object.fromEntries(
          Object.keys(rounds[0]!).map((k) => {
            const xs = rounds.map((r) => r[k as keyof CpuSeconds]).sort((a, b) => a - b);
            return [k, xs[Math.floor(xs.length / 2)]!];
          }),
        ) as CpuSeconds,
      ]),
    );
    const us = (x: number) => (x * 1e6).toFixed(0).padStart(7);
    lines.push(
      '',
      'CPU per unit, µs (median of the rounds): the service is api + pg (backends) + pg bg (its background',
      'processes) + redis + other node processes + worker (the drain: its workers, in the bench process)',
      'scenario       api       pg    pg bg    redis    other   worker  service     bare  loadgen',
    );
    for (const [name, c] of Object.entries(cpuMedian))
      lines.push(
        `${name.padEnd(9)}  ${[c.api, c.postgres, c.pgbg, c.redis, c.other, c.worker, serviceCpu(c), c.bare, c.loadgen].map(us).join('  ')}`,
      );
    // End to end: what the workers spend after a report (W1: per offense job, two a report: its
    // enrichment and its review) on top of what the API path spent on it.
    if (cpuMedian.W1)
      for (const name of ['R', 'BK', 'H'].filter((n) => cpuMedian[n]))
        lines.push(
          `${name} end to end (the API path + W1's two offense jobs a report): ${us(serviceCpu(cpuMedian[name]!) + 2 * serviceCpu(cpuMedian.W1)).trim()} µs a report`,
        );
    const cpuRatio = (a: string, b: string, ofB: (c: CpuSeconds) => number, limit: number) => {
      if (!cpuMedian[a] || !cpuMedian[b]) return;
      const v = serviceCpu(cpuMedian[a]) / ofB(cpuMedian[b]);
      lines.push(`CPU ${a}/${b}: ${v.toFixed(2)} (target <= ${limit} ${v <= limit ? 'met' : 'MISSED'})`);
    };
    // Issue 40's targets: a report alone costs at most twice a report in bulk; a profile at most ten
    // bare Koa requests.
    cpuRatio('R', 'BK', serviceCpu, 2);
    cpuRatio('P', 'B0', (c) => c.bare, 10);
    if (cpuMedian.W1 && cpuMedian.R && cpuMedian.BK) {
      const drain = 2 * serviceCpu(cpuMedian.W1);
      const v = (serviceCpu(cpuMedian.R) + drain) / (serviceCpu(cpuMedian.BK) + drain);
      lines.push(
        `CPU R/BK end to end (W1's drain added to both): ${v.toFixed(2)} (target <= 2 ${v <= 2 ? 'met' : 'MISSED'})`,
      );
    }

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

/** Every scenario of bench/scenarios/, by name (its file's), in their order. */
async function loadScenarios(): Promise<Map<string, Scenario>> {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scenarios');
  const loaded = await Promise.all(
    fs
      .readdirSync(dir)
      .filter((f) => /\.[jt]s$/.test(f) && !f.endsWith('.d.ts'))
      .map(async (f) => {
        const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { default: Scenario };
        return [f.replace(/\.[jt]s$/, ''), mod.default] as const;
      }),
  );
  return new Map(loaded.sort((a, b) => a[1].order - b[1].order));
}
