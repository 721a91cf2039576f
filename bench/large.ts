import type { Pool } from '../common/data/db.js';
import { listCases } from '../common/data/repos/moderation.js';
import { renderProfiles } from '../common/data/repos/offenses.js';
import { lookupPlayers } from '../common/data/repos/sanctions.js';

/**
 * The large data set of `npm run bench`: players, their offenses and review cases added to the
 * bench database by generate_series in chunks, each chunk one statement, until the targets or the
 * time bound is reached. What was reached is reported; the scenarios then run again on it.
 */
export interface LargeTargets {
  players: number;
  offensesPerPlayer: number;
  /** Every n-th player has an open case (the rest a resolved one). */
  openCaseEvery: number;
  deadline: number;
}

export interface LargeSet {
  prefix: string;
  players: number;
  offenses: number;
  openCases: number;
  cases: number;
  seconds: number;
  serviceIdOf: (i: number) => string;
}

const CHUNK = 50_000;

export async function seedLarge(
  pool: Pool,
  ctx: { gameId: string; studioId: string; runId: string },
  t: LargeTargets,
  progress: (line: string) => void,
): Promise<LargeSet> {
  const started = Date.now();
  const prefix = `L${ctx.runId}-`;
  let players = 0;
  let offenses = 0;
  let cases = 0;
  let openCases = 0;
  while (players < t.players && Date.now() < t.deadline) {
    const from = players + 1;
    const to = Math.min(players + CHUNK, t.players);
    // Players, their offenses (spread over the last 90 days, newest first per player by time) and
    // one case each, in one statement per chunk.
    const { rows } = await pool.query<{ players: number; offenses: number; cases: number; open: number }>(
      `WITH p AS (
         INSERT INTO players (service_id, full_name, gamer_tag, trust_score, offense_count)
         SELECT $1 || i, 'Large ' || i, $1 || 'tag-' || i, 100 - (i % 40), $5 FROM generate_series($2::int, $3::int) AS i
         RETURNING id, service_id),
       o AS (
         INSERT INTO offenses (player_id, game_id, studio_id, type, severity, detected, penalty_points, description,
                               created_at, updated_at)
         SELECT p.id, $6, $7, (ARRAY['cheating','toxicity','afk','griefing'])[1 + (k % 4)],
                (ARRAY['low','medium','high','critical'])[1 + (k % 4)], true, 1 + (k % 5), 'seeded',
                now() - make_interval(days => 90) + make_interval(secs => (random() * 90 * 86400)::int),
                now()
           FROM p CROSS JOIN generate_series(1, $5::int) AS k
         RETURNING 1),
       c AS (
         INSERT INTO review_cases (player_id, type, status, reports_count, highest_severity, total_penalty,
                                   distinct_games, distinct_reporters, priority, opened_at, updated_at,
                                   outcome, resolved_at, due_at)
         SELECT p.id, 'toxicity', CASE WHEN n % $4 = 0 THEN 'open' ELSE 'resolved' END, 3, 'medium', 9, 1, 2,
                (random() * 100)::numeric(8, 2), now() - make_interval(secs => (random() * 30 * 86400)::int), now(),
                CASE WHEN n % $4 = 0 THEN NULL ELSE 'upheld' END,
                CASE WHEN n % $4 = 0 THEN NULL ELSE now() - make_interval(secs => (random() * 30 * 86400)::int) END,
                now() + interval '1 day'
           FROM (SELECT id, row_number() OVER () AS n FROM p) p
         RETURNING status)
       SELECT (SELECT count(*)::int FROM p) AS players, (SELECT count(*)::int FROM o) AS offenses,
              (SELECT count(*)::int FROM c) AS cases, (SELECT count(*)::int FROM c WHERE status = 'open') AS open`,
      [prefix, from, to, t.openCaseEvery, t.offensesPerPlayer, ctx.gameId, ctx.studioId],
    );
    players += rows[0]!.players;
    offenses += rows[0]!.offenses;
    cases += rows[0]!.cases;
    openCases += rows[0]!.open;
    if (players % (CHUNK * 4) === 0 || players === t.players)
      progress(
        `  large set: ${players.toLocaleString('en')} players, ${offenses.toLocaleString('en')} offenses, ${cases.toLocaleString('en')} cases (${Math.round((Date.now() - started) / 1000)} s)`,
      );
  }
  await pool.query('ANALYZE');
  // A server in steady state holds its hot tables in the buffer pool (pg_prewarm's autoprewarm keeps
  // them there across restarts); the small set is there because the run has been reading it. So the
  // players table and its indexes, what every scenario looks up, are loaded before measuring, and
  // the comparison is of the statements' cost, not of a cold cache. (The ten million offenses are
  // not: P reads them from the OS cache or the disk.) Skipped where the extension is not allowed.
  const warmed = await pool
    .query('CREATE EXTENSION IF NOT EXISTS pg_prewarm')
    .then(() =>
      pool.query<{ blocks: string }>(
        `SELECT sum(pg_prewarm(c.oid))::text AS blocks FROM pg_class c
          WHERE c.oid IN ('players'::regclass, 'players_pkey'::regclass, 'players_service_id_key'::regclass)`,
      ),
    )
    .then((r) => Number(r.rows[0]!.blocks))
    .catch((err: Error) => {
      progress(
        `  pg_prewarm unavailable (${err.message}); the large set is measured from a cold buffer pool`,
      );
      return 0;
    });
  if (warmed)
    progress(`  prewarmed the players table and its indexes: ${Math.round((warmed * 8) / 1024)} MB`);
  return {
    prefix,
    players,
    offenses,
    openCases,
    cases,
    seconds: (Date.now() - started) / 1000,
    serviceIdOf: (i) => `${prefix}${i}`,
  };
}

/** Records the SQL a repository function sends, instead of running it. */
function capture(): { db: Pool; statements: { text: string; values: unknown[] }[] } {
  const statements: { text: string; values: unknown[] }[] = [];
  const db = {
    query: async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
      if (typeof q === 'string') statements.push({ text: q, values: values ?? [] });
      else statements.push({ text: q.text, values: q.values ?? [] });
      return { rows: [], rowCount: 0 };
    },
  } as unknown as Pool;
  return { db, statements };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements behind P, LK and the moderator queue's first page,
 * run on the large set with the parameters the service would send.
 */
export async function explainLarge(
  pool: Pool,
  set: LargeSet,
  ctx: { studioId: string; moderatorId: string; smallSet?: readonly string[] },
): Promise<string> {
  const out: string[] = [];
  const pick = () => set.serviceIdOf(1 + Math.floor(Math.random() * set.players));
  const small = ctx.smallSet ?? [];
  const pickSmall = () => small[Math.floor(Math.random() * small.length)]!;
  const plans: [string, (db: Pool) => Promise<unknown>][] = [
    [
      'profile read (P: one player, 20 newest offenses, rendered for a studio)',
      (db) => renderProfiles(db, [{ serviceId: pick(), viewerStudioId: ctx.studioId }], 20),
    ],
    [
      'lobby check (LK: 100 players)',
      (db) =>
        lookupPlayers(
          db,
          Array.from({ length: 100 }, () => pick()),
          ctx.studioId,
          new Date(),
        ),
    ],
    ...(small.length
      ? ([
          [
            "lobby check of 100 of the small set's players, now in the same table (for comparison)",
            (db: Pool) =>
              lookupPlayers(
                db,
                Array.from({ length: 100 }, () => pickSmall()),
                ctx.studioId,
                new Date(),
              ),
          ],
        ] as [string, (db: Pool) => Promise<unknown>][])
      : []),
    [
      "moderator queue's first page (Q: open cases by priority)",
      (db) => listCases(db, { status: 'open', claimed: 'any', moderatorId: ctx.moderatorId }, 20),
    ],
  ];
  for (const [title, run] of plans) {
    const { db, statements } = capture();
    await run(db);
    for (const s of statements) {
      const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${s.text}`,
        s.values,
      );
      out.push(`-- ${title}`, ...rows.map((r) => r['QUERY PLAN']), '');
    }
  }
  return out.join('\n');
}
