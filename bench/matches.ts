import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { parseConfig } from '../common/config.js';
import { createPool, type Pool } from '../common/data/db.js';
import { migrate } from '../common/data/migrate.js';
import { ensureMatchPartitions } from '../common/lifecycles/matches.js';
import { createLogger } from '../common/logger.js';
import { QUEUES } from '../common/queues/index.js';
import { providePostgres, provideRedis } from '../common/services/index.js';
import { provisionGame, provisionStudio, setGameLimits } from '../common/usecases/provisioning.js';
import { matchesProcessor } from '../worker/processors/matches.js';
import { startWorker } from '../worker/run.js';
import { cpuDelta, cpuSnapshot } from './cpu.js';
import { BENCH_LIMITS, children, launch, PEPPER, run, type Figures } from './harness.js';

/**
 * npm run bench:matches (issue 54, part 7): matches at the volume games play them, side by side with
 * their references, on a small set and (BENCH_MATCHES_LARGE=1) a large one, to show how each grows:
 *
 * - MI, ingestion through the API: 100 matches of 10 players a call (1,000 player-match rows), as
 *   many calls as the API accepts in BENCH_SECONDS (202: queued), then the matches worker drains
 *   them (in this process, at MATCHES_WORKER_CONCURRENCY): rows/s accepted, rows/s written, and the
 *   CPU per row of the API, the worker and PostgreSQL;
 * - MD, the same rows written directly: the matches and their players, one INSERT ... FROM unnest
 *   each a call of 1,000 rows (what the worker's transaction cannot do with less);
 * - the bytes a player-match row costs on disk with its indexes (and a match row);
 * - LP, the lobby check with parties (20 parties of 5 a call, 100 ids), against LK's shape (100
 *   ids, no parties): ids/s.
 *
 * Each set's players each hold ROWS_PER_PLAYER recorded matches, seeded directly over the last 30
 * days (small: 10k players, 100k rows; large: 1M players, 10M rows, the largest this machine seeds in
 * the bench's time; 100M rows is ten times the disk and an hour of seeding).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SETS = [
  { name: 'small', players: 10_000 },
  ...(process.env.BENCH_MATCHES_LARGE ? [{ name: 'large', players: 1_000_000 }] : []),
];
const ROWS_PER_PLAYER = 10;
const PER_CALL = 100;
const TEAM = 5;
const CONNECTIONS = 4;

async function seed(pool: Pool, gameId: string, studioId: string, tag: string, count: number) {
  const t0 = performance.now();
  await pool.query(
    `INSERT INTO players (service_id, full_name, gamer_tag)
     SELECT 'm${tag}-' || i, 'Matches ' || i, 'm${tag}-' || i FROM generate_series(1, $1) i`,
    [count],
  );
  await pool.query(
    `INSERT INTO player_games (player_id, game_id) SELECT id, $2 FROM players WHERE service_id LIKE $1`,
    [`m${tag}-%`, gameId],
  );
  const days = Array.from({ length: 33 }, (_, d) => new Date(Date.now() - d * 86_400_000));
  await ensureMatchPartitions(pool, days);
  // Matches of 10 consecutive players, ROWS_PER_PLAYER rounds, each round shifted by 3 players.
  const matches = (count / 10) * ROWS_PER_PLAYER;
  for (let at = 0; at < matches; at += 100_000) {
    const n = Math.min(100_000, matches - at);
    await pool.query(
      `WITH m AS (
         SELECT k, 'seed-${tag}-' || k AS match_id, now() - (k % 30) * interval '1 day' - (k % 997) * interval '1 minute' AS ended_at
           FROM generate_series($3::int, $3::int + $4::int - 1) k),
       mi AS (INSERT INTO matches (studio_id, match_id, game_id, mode, started_at, ended_at, players, roster, recorded_at)
              SELECT $1, m.match_id, $2, 'ranked', m.ended_at - interval '30 minutes', m.ended_at, 10,
                     sha256(convert_to(m.match_id, 'UTF8')), m.ended_at FROM m)
       INSERT INTO player_matches (player_id, studio_id, match_id, ended_at, team, party, result, left_early)
       SELECT p.id, $1, m.match_id, m.ended_at, CASE WHEN j < 5 THEN 'blue' ELSE 'red' END,
              CASE WHEN j % 5 < 2 THEN 'p' || (j / 5) END, CASE WHEN j < 5 THEN 'win' ELSE 'loss' END, j = 9 AND k % 7 = 0
         FROM m CROSS JOIN generate_series(0, 9) j
         JOIN players p ON p.service_id = 'm${tag}-' || (1 + ((k % ($5::int / 10)) * 10 + (k / ($5::int / 10)) * 3 + j) % $5::int)`,
      [studioId, gameId, at, n, count],
    );
  }
  await pool.query('ANALYZE');
  return (performance.now() - t0) / 1000;
}

async function main() {
  const dir = path.resolve('.bench', `matches-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  const db = await providePostgres({
    dataDir: dir,
    databaseUrl: process.env.DATABASE_URL,
    settings: { shared_buffers: process.env.BENCH_PG_SHARED_BUFFERS ?? '1GB' },
  });
  const redis = await provideRedis({ dataDir: dir, redisUrl: process.env.REDIS_URL });
  const pool = createPool(db.url, 16);
  try {
    await migrate(db.url);
    const studio = await provisionStudio(pool, {
      name: `Matches bench ${crypto.randomBytes(3).toString('hex')}`,
    });
    const game = await provisionGame(pool, PEPPER, {
      studioId: studio.id,
      title: 'Matches bench',
      redirectUris: ['https://bench.example/cb'],
    });
    await setGameLimits(pool, { clientId: game.clientId, limits: BENCH_LIMITS });
    const { generateKeyPair, exportJWK } = await import('jose');
    const key = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const prefix = `mat${crypto.randomBytes(3).toString('hex')}`;
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: prefix,
      CLIENT_SECRET_PEPPER: PEPPER,
    };
    const api = await launch(
      'dist/api/server.js',
      {
        ...env,
        PORT: '0',
        NODE_ENV: 'production',
        PUBLIC_URL: 'http://127.0.0.1',
        METRICS_TOKEN: crypto.randomBytes(16).toString('hex'),
        JWT_SIGNING_KEY: JSON.stringify(key),
      },
      dir,
    );
    const apiUrl = api.line.url as string;
    const headers = {
      client_id: game.clientId,
      client_secret: game.clientSecret,
      'content-type': 'application/json',
    };
    const out: string[] = [];
    const say = (line: string) => {
      out.push(line);
      process.stdout.write(`${line}\n`);
    };
    const us = (seconds: number, units: number) => (units ? (seconds / units) * 1e6 : 0);

    for (const set of SETS) {
      const tag = `${set.name}${crypto.randomBytes(2).toString('hex')}`;
      const seeded = await seed(pool, game.id, studio.id, tag, set.players);
      const rowsBefore = Number(
        (await pool.query<{ n: string }>('SELECT count(*) AS n FROM player_matches')).rows[0]!.n,
      );
      say(
        `\n${set.name} set: ${set.players.toLocaleString('en')} players, ${rowsBefore.toLocaleString('en')} player-match rows (seeded in ${seeded.toFixed(0)} s)`,
      );
      const pick = () => `m${tag}-${1 + Math.floor(Math.random() * set.players)}`;
      let seq = 0;
      const matchBody = () => {
        const end = new Date(Date.now() - 60_000).toISOString();
        const start = new Date(Date.now() - 31 * 60_000).toISOString();
        return {
          matches: Array.from({ length: PER_CALL }, () => {
            const ids = new Set<string>();
            while (ids.size < 2 * TEAM) ids.add(pick());
            return {
              matchId: `bench-${tag}-${++seq}`,
              mode: 'ranked',
              startedAt: start,
              endedAt: end,
              players: [...ids].map((serviceId, j) => ({
                serviceId,
                team: j < TEAM ? 'blue' : 'red',
                ...(j % TEAM < 2 ? { party: `p${Math.floor(j / TEAM)}` } : {}),
                result: j < TEAM ? 'win' : 'loss',
                leftEarly: j === 9 && seq % 7 === 0,
              })),
            };
          }),
        };
      };

      // MI: accepted through the API (queued), then drained by the matches worker.
      const cpu0 = cpuSnapshot();
      const accepted = await run({
        url: apiUrl,
        duration: SECONDS,
        connections: CONNECTIONS,
        requests: [
          {
            method: 'POST',
            path: '/v1/matches',
            headers,
            setupRequest: (r) => ({ ...r, body: JSON.stringify(matchBody()) }),
          },
        ],
      });
      const acceptCpu = cpuDelta(cpu0, cpuSnapshot());
      const sent = seq;
      const config = parseConfig({ ...env, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
      const cpu1 = cpuSnapshot();
      const t1 = performance.now();
      const worker = await startWorker(config, QUEUES.matches, matchesProcessor, createLogger('silent', 'w'));
      for (;;) {
        const { rows } = await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM matches WHERE studio_id = $1 AND match_id LIKE $2`,
          [studio.id, `bench-${tag}-%`],
        );
        if (Number(rows[0]!.n) >= sent - accepted.errors * PER_CALL) break;
        if (performance.now() - t1 > 600_000)
          throw new Error('the matches worker did not drain in 10 minutes');
        await new Promise((r) => setTimeout(r, 200));
      }
      const drainS = (performance.now() - t1) / 1000;
      await worker.stop();
      const drainCpu = cpuDelta(cpu1, cpuSnapshot());
      const { rows: written } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM player_matches WHERE studio_id = $1 AND match_id LIKE $2`,
        [studio.id, `bench-${tag}-%`],
      );
      const rows = Number(written[0]!.n);

      // MD: the same rows written directly, one statement each for the matches and their players.
      const ids = (
        await pool.query<{ id: string }>('SELECT id FROM players WHERE service_id LIKE $1 LIMIT 100000', [
          `m${tag}-%`,
        ])
      ).rows.map((r) => r.id);
      let direct = 0;
      const until = performance.now() + SECONDS * 1000;
      const cpu2 = cpuSnapshot();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          const c = new pg.Client({ connectionString: db.url });
          await c.connect();
          try {
            while (performance.now() < until) {
              const matchIds = Array.from({ length: PER_CALL }, () => `direct-${tag}-${++seq}`);
              const end = new Date(Date.now() - 60_000);
              await c.query('BEGIN');
              await c.query(
                `INSERT INTO matches (studio_id, match_id, game_id, mode, started_at, ended_at, players, roster, recorded_at)
                 SELECT $1, m, $2, 'ranked', $3::timestamptz - interval '30 minutes', $3, 10, sha256(convert_to(m, 'UTF8')), now()
                   FROM unnest($4::text[]) m`,
                [studio.id, game.id, end, matchIds],
              );
              const players = matchIds.flatMap(() =>
                Array.from({ length: 2 * TEAM }, () => ids[Math.floor(Math.random() * ids.length)]!),
              );
              await c.query(
                `INSERT INTO player_matches (player_id, studio_id, match_id, ended_at, team, party, result, left_early)
                 SELECT p, $1, ($3::text[])[1 + (k - 1) / 10], $2, CASE WHEN (k - 1) % 10 < 5 THEN 'blue' ELSE 'red' END,
                        NULL, CASE WHEN (k - 1) % 10 < 5 THEN 'win' ELSE 'loss' END, false
                   FROM unnest($4::uuid[]) WITH ORDINALITY AS x(p, k)
                 ON CONFLICT DO NOTHING`,
                [studio.id, end, matchIds, players],
              );
              await c.query('COMMIT');
              direct += PER_CALL * 2 * TEAM;
            }
          } finally {
            await c.end();
          }
        }),
      );
      const directCpu = cpuDelta(cpu2, cpuSnapshot());

      // Bytes on disk: every month partition with its indexes, over its rows.
      const size = async (table: string) =>
        (
          await pool.query<{ bytes: string; n: string }>(
            `SELECT (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = $1::regclass) AS bytes,
                    (SELECT count(*) FROM ${table}) AS n`,
            [table],
          )
        ).rows[0]!;
      const pmSize = await size('player_matches');
      const mSize = await size('matches');

      // LP: the lobby check with parties, against 100 ids without.
      const lookup = (parties: boolean) =>
        run({
          url: apiUrl,
          duration: SECONDS,
          connections: 16,
          requests: [
            {
              method: 'POST',
              path: '/v1/players/lookup',
              headers,
              setupRequest: (r) => {
                const all = new Set<string>();
                while (all.size < 100) all.add(pick());
                const list = [...all];
                const body = parties
                  ? {
                      parties: Array.from({ length: 20 }, (_, k) => ({
                        party: `party-${k}`,
                        serviceIds: list.slice(k * 5, k * 5 + 5),
                      })),
                    }
                  : { serviceIds: list };
                return { ...r, body: JSON.stringify(body) };
              },
            },
          ],
        });
      const lp: Figures = await lookup(true);
      const lk: Figures = await lookup(false);

      const acceptRows = accepted.rps * PER_CALL * 2 * TEAM;
      say(
        `MI  accepted        ${acceptRows.toFixed(0).padStart(8)} rows/s  (${accepted.rps.toFixed(1)} calls/s of 1,000 rows, p50 ${accepted.p50.toFixed(0)} ms)  API ${us(acceptCpu.api, acceptRows * SECONDS).toFixed(1)} µs + postgres ${us(acceptCpu.postgres + acceptCpu.pgbg, acceptRows * SECONDS).toFixed(1)} µs CPU/row  errors ${accepted.errors}`,
      );
      say(
        `    written         ${(rows / drainS).toFixed(0).padStart(8)} rows/s  (${rows.toLocaleString('en')} rows in ${drainS.toFixed(1)} s)  worker ${us(drainCpu.loadgen + drainCpu.worker, rows).toFixed(1)} µs + postgres ${us(drainCpu.postgres, rows).toFixed(1)} µs (+ ${us(drainCpu.pgbg, rows).toFixed(1)} µs its background processes) + redis ${us(drainCpu.redis, rows).toFixed(1)} µs CPU/row`,
      );
      say(
        `MD  rows direct     ${(direct / SECONDS).toFixed(0).padStart(8)} rows/s  postgres ${us(directCpu.postgres + directCpu.pgbg, direct).toFixed(1)} µs CPU/row   written/direct ${(rows / drainS / (direct / SECONDS)).toFixed(2)}`,
      );
      say(
        `    on disk         ${(Number(pmSize.bytes) / Number(pmSize.n)).toFixed(0).padStart(8)} bytes/player-match row with its indexes (${Number(pmSize.n).toLocaleString('en')} rows), ${(Number(mSize.bytes) / Number(mSize.n)).toFixed(0)} bytes/match`,
      );
      say(
        `LP  lobby, parties  ${(lp.rps * 100).toFixed(0).padStart(8)} ids/s  p50 ${lp.p50.toFixed(1)} ms  errors ${lp.errors}   LK-shape ${(lk.rps * 100).toFixed(0)} ids/s  LP/LK ${(lp.rps / lk.rps).toFixed(2)}`,
      );
    }
    fs.writeFileSync(path.join(dir, 'figures.txt'), `${out.join('\n')}\n`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await pool.end();
    await redis.stop();
    await db.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
