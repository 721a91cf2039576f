import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createPool, type Pool } from '../common/data/db.js';
import { migrate } from '../common/data/migrate.js';
import { providePostgres, provideRedis } from '../common/services/index.js';
import { provisionGame, provisionStudio, setGameLimits } from '../common/usecases/provisioning.js';
import { normalizeSignal, signalDigest, signalKeysFrom, type SignalKind } from '../common/domain/signals.js';
import { cpuDelta, cpuSnapshot, serviceCpu } from './cpu.js';
import { BENCH_LIMITS, children, launch, PEPPER, run, type Figures } from './harness.js';

/**
 * npm run bench:signals (issue 53): the linked-accounts paths, side by side with their references,
 * on a small set and (BENCH_SIGNALS_LARGE=1) the large one, to show how each grows with the data:
 *
 * - SI, the sign-in check: one player's 3 known values a call (`POST /v1/player/{id}/signals`,
 *   recorded and checked), against a bare Koa route (BK's reference) and against the same three
 *   statements driven directly (the lock, the upsert, the check) on one connection each;
 * - SB, bulk ingestion: 1,000 new values a call (`POST /v1/signals`), in signals/s, against the same
 *   rows inserted directly (one INSERT ... SELECT FROM unnest a call);
 * - SF, a storm of first sightings (a launch day): a device and an install never sent before a call;
 * - SE, a storm of first sightings that each look like evasion: every call a player signs in with a
 *   device and an install seen only on one banned account before (one player in ten is banned for
 *   it, with two such pairs), so each call records two new values,
 *   derives a strong link, records a suspicion, sends its event and files its evasion case (the
 *   worst a sign-in costs), against SI in the same run.
 *
 * Each player of a set holds 10 values (so the small set, 10k players, has 100k; the large, 1M, has
 * 10M), every second player shares a console with the next one (a strong link), and one player in
 * a hundred is under a global ban: the check finds something to say.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const SETS = [
  { name: 'small', players: 10_000 },
  ...(process.env.BENCH_SIGNALS_LARGE ? [{ name: 'large', players: 1_000_000 }] : []),
];
const PER_PLAYER = 10;

/** The three values player `i`'s sign-ins send: a network 256 players share, an install and an e-mail. */
const signInValues = (i: number): [SignalKind, string][] => [
  ['ip_address', `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
  ['install_id', `inst-${i}`],
  ['email', `p${i}@bench.example`],
];
const BULK = 1000;

async function seed(pool: Pool, gameId: string, studioId: string, tag: string, count: number) {
  const t0 = performance.now();
  await pool.query(
    `INSERT INTO players (service_id, full_name, gamer_tag)
     SELECT 's${tag}-' || i, 'Signals ' || i, 's${tag}-' || i FROM generate_series(1, $1) i`,
    [count],
  );
  await pool.query(
    `INSERT INTO player_games (player_id, game_id) SELECT id, $2 FROM players WHERE service_id LIKE $1`,
    [`s${tag}-%`, gameId],
  );
  // Three values a player as a sign-in sends them (a network shared by 256 players, an install and an
  // e-mail of its own), hashed as the API hashes them, so the measured sign-ins are sign-ins of known
  // players (the steady state: nothing new, nothing to lock or derive).
  const keys = signalKeysFrom(undefined, [], PEPPER);
  const { rows: seeded } = await pool.query<{ id: string; n: number }>(
    `SELECT id, substring(service_id from '-(\\d+)$')::int AS n FROM players WHERE service_id LIKE $1`,
    [`s${tag}-%`],
  );
  for (let at = 0; at < seeded.length; at += 20_000) {
    const batch = seeded.slice(at, at + 20_000);
    const kinds: string[] = [];
    const digests: Buffer[] = [];
    const players: string[] = [];
    for (const p of batch)
      for (const [kind, value] of signInValues(p.n)) {
        kinds.push(kind);
        digests.push(signalDigest(keys.current.key, studioId, kind, normalizeSignal(kind, value)!));
        players.push(p.id);
      }
    await pool.query(
      `INSERT INTO signals (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
       SELECT $1, kind, digest, $5, p, now() - interval '1 day', now() - interval '1 day'
         FROM unnest($2::text[], $3::bytea[], $4::uuid[]) v(kind, digest, p)
       ON CONFLICT DO NOTHING`,
      [studioId, kinds, digests, players, keys.current.id],
    );
  }
  // And seven more a player: a console shared with the next player of its pair, and six of its own.
  await pool.query(
    `INSERT INTO signals (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
     SELECT $1, CASE WHEN k = 0 THEN 'hardware_id' ELSE (ARRAY['phone','payment_fingerprint','platform_account','install_id','email','phone'])[k] END,
            sha256(convert_to(CASE WHEN k = 0 THEN 'pair-' || ((n - 1) / 2) ELSE p.service_id || '-' || k END, 'UTF8')),
            'bench', p.id, now() - interval '1 day', now() - interval '1 day'
       FROM (SELECT id, service_id, substring(service_id from '-(\\d+)$')::int AS n FROM players WHERE service_id LIKE $2) p
       CROSS JOIN generate_series(0, $3 - 4) k
     ON CONFLICT DO NOTHING`,
    [studioId, `s${tag}-%`, PER_PLAYER],
  );
  await pool.query(
    `INSERT INTO account_links (player_id, studio_id, other_id, kinds, strength, linked_since)
     SELECT a.player_id, a.studio_id, b.player_id, ARRAY['hardware_id'], 0.9, now() - interval '1 day'
       FROM signals a JOIN signals b ON b.studio_id = a.studio_id AND b.kind = a.kind AND b.digest = a.digest
                                    AND b.player_id <> a.player_id
      WHERE a.studio_id = $1 AND a.kind = 'hardware_id'
     ON CONFLICT DO NOTHING`,
    [studioId],
  );
  // One player in a hundred under a global ban.
  await pool.query(
    `INSERT INTO sanctions (player_id, type, reason, issued_by_studio, starts_at, expires_at, scope_studio_id)
     SELECT id, 'temporary_ban', 'bench', $2, now() - interval '1 hour', now() + interval '30 days', NULL
       FROM players WHERE service_id LIKE $1 AND substring(service_id from '-(\\d+)$')::int % 100 = 0`,
    [`s${tag}-%`, studioId],
  );
  await pool.query('ANALYZE');
  return (performance.now() - t0) / 1000;
}

async function main() {
  const dir = path.resolve('.bench', `signals-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  const db = await providePostgres({
    dataDir: dir,
    databaseUrl: process.env.DATABASE_URL,
    settings: {
      shared_buffers: process.env.BENCH_PG_SHARED_BUFFERS ?? '1GB',
      // BENCH_PG_STATEMENTS=1: the statements that cost most are printed after each set.
      ...(process.env.BENCH_PG_STATEMENTS
        ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' }
        : {}),
    },
  });
  const redis = await provideRedis({ dataDir: dir, redisUrl: process.env.REDIS_URL });
  const pool = createPool(db.url, CONNECTIONS + 4);
  try {
    await migrate(db.url);
    if (process.env.BENCH_PG_STATEMENTS)
      await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const studio = await provisionStudio(pool, {
      name: `Signals bench ${crypto.randomBytes(3).toString('hex')}`,
    });
    const game = await provisionGame(pool, PEPPER, {
      studioId: studio.id,
      title: 'Signals bench',
      redirectUris: ['https://bench.example/cb'],
    });
    await setGameLimits(pool, { clientId: game.clientId, limits: BENCH_LIMITS });
    const { generateKeyPair, exportJWK } = await import('jose');
    const key = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const api = await launch(
      'dist/api/server.js',
      {
        DATABASE_URL: db.url,
        REDIS_URL: redis.url,
        PORT: '0',
        QUEUE_PREFIX: `sig${crypto.randomBytes(3).toString('hex')}`,
        CLIENT_SECRET_PEPPER: PEPPER,
        NODE_ENV: 'production',
        PUBLIC_URL: 'http://127.0.0.1',
        METRICS_TOKEN: crypto.randomBytes(16).toString('hex'),
        JWT_SIGNING_KEY: JSON.stringify(key),
        OUTBOX_RELAY_INTERVAL_MS: '60000',
      },
      dir,
      // BENCH_CPU_PROF=DIR: the API writes a V8 CPU profile there when it stops.
      process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
        : [],
    );
    const apiUrl = api.line.url as string;
    const bare = await launch('bench/bare-koa.ts', {}, dir);
    const bareUrl = `http://127.0.0.1:${bare.line.port as number}`;
    const headers = {
      client_id: game.clientId,
      client_secret: game.clientSecret,
      'content-type': 'application/json',
    };
    const keys = signalKeysFrom(undefined, [], PEPPER);
    const out: string[] = [];
    const say = (line: string) => {
      out.push(line);
      process.stdout.write(`${line}\n`);
    };

    /** BENCH_PG_STATEMENTS=1: the statements that cost most since the last call, then forgotten. */
    const topStatements = async () => {
      if (!process.env.BENCH_PG_STATEMENTS) return;
      const { rows: top } = await pool.query<{ calls: string; ms: string; q: string }>(
        `SELECT calls, round(total_exec_time::numeric + total_plan_time::numeric, 0) AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q
           FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 12`,
      );
      for (const t of top) say(`    pg ${t.ms.padStart(7)} ms ${t.calls.padStart(8)} calls  ${t.q}`);
      await pool.query('SELECT pg_stat_statements_reset()');
    };

    /** Measures `fn` over SECONDS after a warm-up; with the service's CPU per unit of work. */
    const measure = async (fn: (s: number) => Promise<Figures>, units: number) => {
      await fn(1);
      const before = cpuSnapshot();
      const f = await fn(SECONDS);
      const cpu = cpuDelta(before, cpuSnapshot());
      const done = f.rps * SECONDS * units;
      const per = (x: number) => (done ? (x / done) * 1e6 : 0);
      return {
        ...f,
        rate: f.rps * units,
        cpuUs: per(serviceCpu(cpu)),
        split: `api ${per(cpu.api).toFixed(0)} + postgres ${per(cpu.postgres + cpu.pgbg).toFixed(0)} + redis ${per(cpu.redis).toFixed(0)} µs`,
      };
    };

    for (const set of SETS) {
      const tag = `${set.name}${crypto.randomBytes(2).toString('hex')}`;
      const seconds = await seed(pool, game.id, studio.id, tag, set.players);
      const signalRows = Number(
        (await pool.query<{ n: string }>('SELECT count(*) AS n FROM signals')).rows[0]!.n,
      );
      say(
        `\n${set.name} set: ${set.players.toLocaleString('en')} players, ${signalRows.toLocaleString('en')} signals (seeded in ${seconds.toFixed(0)} s)`,
      );
      const pick = () => 1 + Math.floor(Math.random() * set.players);
      /** Sign-ins through the API, `connections` at once: `next` names each call's player and values. */
      const signIns = (
        connections: number,
        next: () => { i: number; signals: readonly (readonly [SignalKind, string])[] } = () => {
          const i = pick();
          return { i, signals: signInValues(i) };
        },
      ) =>
        measure(
          (s) =>
            run({
              url: apiUrl,
              duration: s,
              connections,
              requests: [
                {
                  method: 'POST',
                  headers,
                  setupRequest: (r) => {
                    const { i, signals } = next();
                    const body = JSON.stringify({
                      signals: signals.map(([kind, value]) => ({ kind, value })),
                    });
                    return { ...r, path: `/v1/player/s${tag}-${i}/signals`, body };
                  },
                },
              ],
            }),
          1,
        );
      // SI: the sign-in check through the API; SI1: one at a time, the latency a sign-in waits for.
      const si = await signIns(CONNECTIONS);
      const si1 = await signIns(1);
      const bk = await measure(
        (s) =>
          run({
            url: bareUrl,
            duration: s,
            connections: CONNECTIONS,
            requests: [{ method: 'GET', path: '/' }],
          }),
        1,
      );
      // The same statements driven directly: the player, the upsert of three known values, the check.
      const direct = await measure(async (s) => {
        const until = performance.now() + s * 1000;
        let n = 0;
        const times: number[] = [];
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async () => {
            const c = new pg.Client({ connectionString: db.url });
            await c.connect();
            try {
              while (performance.now() < until) {
                const t = performance.now();
                const i = pick();
                const { rows } = await c.query<{ id: string }>(
                  'SELECT id FROM players WHERE service_id = $1',
                  [`s${tag}-${i}`],
                );
                const digests = signInValues(i).map(([kind, value]) =>
                  signalDigest(keys.current.key, studio.id, kind, normalizeSignal(kind, value)!),
                );
                await c.query('BEGIN');
                await c.query(
                  `INSERT INTO signals AS s (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
                   SELECT $1, kind, digest, 'bench', $2, now(), now() FROM unnest($3::text[], $4::bytea[]) v(kind, digest)
                   ON CONFLICT (studio_id, kind, digest, player_id) DO UPDATE SET last_seen_at = excluded.last_seen_at
                    WHERE excluded.last_seen_at > s.last_seen_at + interval '1 hour'
                   RETURNING (xmax = 0) AS added`,
                  [studio.id, rows[0]!.id, ['ip_address', 'install_id', 'email'], digests],
                );
                await c.query(
                  `SELECT 1 FROM account_links l JOIN sanctions s ON s.player_id = l.other_id
                    WHERE l.player_id = $1 AND l.studio_id = $2 AND l.strength >= 0.8 AND s.revoked_at IS NULL
                      AND s.type IN ('temporary_ban', 'permanent_ban') AND (s.expires_at IS NULL OR s.expires_at > now())`,
                  [rows[0]!.id, studio.id],
                );
                await c.query('COMMIT');
                times.push(performance.now() - t);
                n++;
              }
            } finally {
              await c.end();
            }
          }),
        );
        times.sort((a, b) => a - b);
        return {
          rps: n / s,
          p50: times[Math.floor(times.length / 2)] ?? 0,
          p99: times[Math.floor(times.length * 0.99)] ?? 0,
          errors: 0,
        };
      }, 1);
      await topStatements();
      say(
        `SI  sign-in check   ${si.rate.toFixed(0).padStart(7)} calls/s  p50 ${si.p50.toFixed(1)} ms  p99 ${si.p99.toFixed(1)} ms  ${si.cpuUs.toFixed(0)} µs CPU/call (${si.split})  errors ${si.errors}`,
      );
      say(
        `SI1 one at a time   ${si1.rate.toFixed(0).padStart(7)} calls/s  p50 ${si1.p50.toFixed(1)} ms  p99 ${si1.p99.toFixed(1)} ms  ${si1.cpuUs.toFixed(0)} µs CPU/call`,
      );
      say(
        `    bare Koa        ${bk.rate.toFixed(0).padStart(7)} req/s    SI/BK ${(si.rate / bk.rate).toFixed(3)}`,
      );
      say(
        `    same SQL direct ${direct.rate.toFixed(0).padStart(7)} calls/s  p50 ${direct.p50.toFixed(1)} ms  SI/direct ${(si.rate / direct.rate).toFixed(2)}`,
      );
      // SB: bulk ingestion of new values, against the same rows inserted directly.
      let fresh = 0;
      const bulkBody = () =>
        JSON.stringify({
          signals: Array.from({ length: BULK }, () => ({
            serviceId: `s${tag}-${pick()}`,
            kind: 'install_id',
            value: `bulk-${tag}-${fresh++}`,
          })),
        });
      const sb = await measure(
        (s) =>
          run({
            url: apiUrl,
            duration: s,
            connections: 8,
            requests: [
              {
                method: 'POST',
                path: '/v1/signals',
                headers,
                setupRequest: (r) => ({ ...r, body: bulkBody() }),
              },
            ],
          }),
        BULK,
      );
      const ids = (
        await pool.query<{ id: string }>('SELECT id FROM players WHERE service_id LIKE $1 LIMIT 10000', [
          `s${tag}-%`,
        ])
      ).rows.map((r) => r.id);
      const sbDirect = await measure(async (s) => {
        const until = performance.now() + s * 1000;
        let n = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (performance.now() < until) {
              const players = Array.from(
                { length: BULK },
                () => ids[Math.floor(Math.random() * ids.length)]!,
              );
              const digests = players.map(() => crypto.randomBytes(32));
              await pool.query(
                `INSERT INTO signals (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
                 SELECT $1, 'install_id', d, 'bench', p, now(), now() FROM unnest($2::uuid[], $3::bytea[]) v(p, d)
                 ON CONFLICT DO NOTHING`,
                [studio.id, players, digests],
              );
              n++;
            }
          }),
        );
        return { rps: n / s, p50: 0, p99: 0, errors: 0 };
      }, BULK);
      say(
        `SB  bulk signals    ${sb.rate.toFixed(0).padStart(7)} signals/s  ${sb.cpuUs.toFixed(1)} µs CPU/signal  errors ${sb.errors}`,
      );
      say(
        `    rows direct     ${sbDirect.rate.toFixed(0).padStart(7)} signals/s  SB/direct ${(sb.rate / sbDirect.rate).toFixed(2)}`,
      );
      // SF: a storm of first sightings (a launch day): each call a random player signs in with a device
      // and an install no one has sent before: two new values, held by one account, linking nobody.
      let firsts = 0;
      const sf = await signIns(CONNECTIONS, () => {
        const n = firsts++;
        return {
          i: pick(),
          signals: [
            ['hardware_id', `first-${tag}-hw-${n}`],
            ['install_id', `first-${tag}-in-${n}`],
          ],
        };
      });
      say(
        `SF  first sightings ${sf.rate.toFixed(0).padStart(7)} calls/s  p50 ${sf.p50.toFixed(1)} ms  p99 ${sf.p99.toFixed(1)} ms  ${sf.cpuUs.toFixed(0)} µs CPU/call (${sf.split})  errors ${sf.errors}  SF/SI ${(sf.rate / si.rate).toFixed(2)}`,
      );
      // SE: first sightings that look like evasion. One player in ten (i % 10 = 5) is banned for it,
      // directly, and given two devices and installs no one else holds (so a banned account holds 14
      // values, as a cheater with a spare console might); each call a random other player signs in
      // with one pair never used before: two new values, a strong link, a suspicion and its case.
      const stormBanned = Array.from({ length: Math.floor(set.players / 10) }, (_, k) => 10 * k + 5);
      await pool.query(
        `INSERT INTO sanctions (player_id, type, reason, issued_by_studio, starts_at, expires_at, scope_studio_id)
         SELECT id, 'temporary_ban', 'bench', $2, now() - interval '1 hour', now() + interval '30 days', NULL
           FROM players WHERE service_id = ANY($1::text[])`,
        [stormBanned.map((b) => `s${tag}-${b}`), studio.id],
      );
      const { rows: bannedRows } = await pool.query<{ id: string }>(
        'SELECT id FROM players WHERE service_id = ANY($1::text[])',
        [stormBanned.map((b) => `s${tag}-${b}`)],
      );
      const pairs = bannedRows.length * 2;
      const stormValue = (kind: 'hardware_id' | 'install_id', k: number) => `storm-${tag}-${kind}-${k}`;
      for (let from = 0; from < pairs; from += 5000) {
        const ks = Array.from({ length: Math.min(5000, pairs - from) }, (_, j) => from + j);
        const holders = ks.flatMap((k) => [
          bannedRows[k % bannedRows.length]!.id,
          bannedRows[k % bannedRows.length]!.id,
        ]);
        const kinds = ks.flatMap(() => ['hardware_id', 'install_id'] as const);
        const digests = ks.flatMap((k) =>
          (['hardware_id', 'install_id'] as const).map((kind) =>
            signalDigest(keys.current.key, studio.id, kind, normalizeSignal(kind, stormValue(kind, k))!),
          ),
        );
        await pool.query(
          `INSERT INTO signals (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
           SELECT $1, kind, digest, $5, p, now() - interval '1 day', now() - interval '1 day'
             FROM unnest($2::uuid[], $3::text[], $4::bytea[]) v(p, kind, digest) ON CONFLICT DO NOTHING`,
          [studio.id, holders, kinds, digests, keys.current.id],
        );
      }
      await pool.query('ANALYZE signals');
      let storm = 0;
      const casesBefore = Number(
        (
          await pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM offenses WHERE status_reason = 'evasion_check'`,
          )
        ).rows[0]!.n,
      );
      const se = await signIns(CONNECTIONS, () => {
        const k = storm++ % pairs;
        let i = pick();
        if (i % 10 === 5 || i % 100 === 0) i = i === set.players ? 1 : i + 1;
        return {
          i,
          signals: [
            ['hardware_id', stormValue('hardware_id', k)],
            ['install_id', stormValue('install_id', k)],
          ],
        };
      });
      const casesFiled =
        Number(
          (
            await pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM offenses WHERE status_reason = 'evasion_check'`,
            )
          ).rows[0]!.n,
        ) - casesBefore;
      await topStatements();
      say(
        `SE  evasion storm   ${se.rate.toFixed(0).padStart(7)} calls/s  p50 ${se.p50.toFixed(1)} ms  p99 ${se.p99.toFixed(1)} ms  ${se.cpuUs.toFixed(0)} µs CPU/call (${se.split})  errors ${se.errors}  SE/SI ${(se.rate / si.rate).toFixed(2)}  (${casesFiled} evasion cases filed${storm > pairs ? ', pairs reused' : ''})`,
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
