import type { Pool, Queryable } from '../data/db.js';
import type { OutboxRow } from '../queues/outbox.js';
import { withTransaction } from '../data/db.js';
import { monthPartition, type MatchResult } from '../domain/matches.js';
import { countConduct, NO_CONDUCT_SUMMARIES, type ConductPolicy, type MatchConduct } from './conduct.js';
import type { ConductSummary } from '../domain/conduct.js';
import { recordConduct, type RecordedConduct } from './honor.js';
import { countDownMatches, type CountedDown } from './sanction.js';

/**
 * Matches (issue 54; docs/studios.md "Matches"), the only writer of `matches`, `player_matches` and
 * their month partitions (a test holds it to that). A match is recorded once by its id: the first
 * roster written stands; the same roster again is a repeat (nothing written), another roster a
 * conflict (nothing written). Recording a match counts down, in the same transaction, the
 * restrictions counted in matches of each player who finished it, so a match counts once however
 * often it is sent and whenever a worker dies.
 *
 *   (unknown) --record--> recorded --(its month past MATCH_RETENTION_DAYS)--> dropped with its partition
 *   a player's rows --erasure--> deleted
 */

export interface MatchToRecord {
  matchId: string;
  gameId: string;
  mode: string;
  startedAt: Date;
  endedAt: Date;
  /** rosterDigest (common/domain/matches.ts): who played and how. */
  roster: Buffer;
  players: {
    playerRowId: string;
    team: string;
    party: string | null;
    result: MatchResult;
    leftEarly: boolean;
    /** The row ids of the players of the match this one commended. */
    commended: string[];
  }[];
}

export interface RecordedMatches {
  /** The match ids written now. */
  recorded: string[];
  /** Already recorded with the same roster: nothing written, nothing counted. */
  repeats: string[];
  /** Already recorded with another roster: refused, nothing written. */
  conflicts: string[];
  /** The restrictions counted in matches these matches counted down (ended ones with endedAt). */
  countedDown: CountedDown[];
  /** What the new matches said of their players' conduct (common/lifecycles/honor.ts). */
  conduct: RecordedConduct;
  /** The conduct summaries the matches brought due (common/lifecycles/conduct.ts), and their events. */
  summaries: ConductSummary[];
  outbox: OutboxRow[];
}

/** The partitioned tables, a month a partition (the commendations are kept as long as their matches). */
const TABLES = ['matches', 'player_matches', 'commendations'] as const;

/**
 * The partitions each database (by its pool) is known to hold: a month is created once, then never
 * looked up again. By pool, so a process with two databases (a test suite of its own) asks each.
 */
const knownOf = new WeakMap<Pool, Set<string>>();
const knownIn = (pool: Pool) => {
  let set = knownOf.get(pool);
  if (!set) knownOf.set(pool, (set = new Set()));
  return set;
};

/** Forgets what this process knew of a database's partitions (an insert found a month missing). */
export const forgetMatchPartitions = (pool: Pool) => knownOf.delete(pool);

/**
 * Creates the month partitions of both tables that `ends` fall in, when missing: in a transaction of
 * its own (a partition's creation locks its parent table, so never inside the write), serialised by
 * an advisory lock, so two workers creating the same month do not collide.
 */
export async function ensureMatchPartitions(pool: Pool, ends: readonly Date[]): Promise<void> {
  const known = knownIn(pool);
  const wanted = new Map<string, ReturnType<typeof monthPartition>>();
  for (const at of ends)
    for (const t of TABLES) {
      const p = monthPartition(t, at);
      if (!known.has(p.name)) wanted.set(p.name, p);
    }
  if (!wanted.size) return;
  await withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('match-partitions', 54))`);
    const { rows } = await client.query<{ relname: string }>(
      'SELECT relname FROM pg_class WHERE relname = ANY($1::text[])',
      [[...wanted.keys()]],
    );
    const exists = new Set(rows.map((r) => r.relname));
    for (const [name, p] of wanted) {
      if (exists.has(name)) continue;
      const table = TABLES.find((t) => name.startsWith(`${t}_p`))!;
      await client.query(
        `CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${p.from.toISOString()}') TO ('${p.to.toISOString()}')`,
      );
    }
  });
  for (const name of wanted.keys()) known.add(name);
}

/**
 * Records a batch of a studio's matches in the caller's transaction (the partitions exist:
 * ensureMatchPartitions): locks each match id (in one order, so concurrent batches never deadlock),
 * sorts them into new, repeats and conflicts against what is recorded and what comes earlier in the
 * batch, writes the new ones and their players, records their conduct (commendations, honor, the
 * recovery credit: `recoveryPeriodS`, one recovery period in seconds) and counts down the finishers'
 * restrictions, then counts the matches into each player's conduct and makes the summaries that
 * brings due (`policy`: CONDUCT_SUMMARY_EVERY_MATCHES and the strike ladder).
 */
export async function recordMatches(
  db: Queryable,
  studioId: string,
  matches: readonly MatchToRecord[],
  now: Date,
  recoveryPeriodS: number,
  policy: ConductPolicy = NO_CONDUCT_SUMMARIES,
): Promise<RecordedMatches> {
  const out: RecordedMatches = {
    recorded: [],
    repeats: [],
    conflicts: [],
    countedDown: [],
    conduct: { commendations: {}, credited: 0, creditedSeconds: 0, received: {} },
    summaries: [],
    outbox: [],
  };
  if (!matches.length) return out;
  const ids = [...new Set(matches.map((m) => m.matchId))];
  await db.query({
    name: 'match-lock-ids',
    text: `SELECT pg_advisory_xact_lock(k) FROM (
             SELECT DISTINCT hashtextextended($1::text || '/' || m, 54) AS k FROM unnest($2::text[]) m ORDER BY 1) x`,
    values: [studioId, ids],
  });
  const { rows } = await db.query<{ match_id: string; roster: Buffer }>({
    name: 'match-recorded-rosters',
    text: 'SELECT match_id, roster FROM matches WHERE studio_id = $1 AND match_id = ANY($2::text[])',
    values: [studioId, ids],
  });
  const rosterOf = new Map(rows.map((r) => [r.match_id, r.roster]));
  const fresh: MatchToRecord[] = [];
  for (const m of matches) {
    const before = rosterOf.get(m.matchId);
    if (before) (before.equals(m.roster) ? out.repeats : out.conflicts).push(m.matchId);
    else {
      rosterOf.set(m.matchId, m.roster);
      fresh.push(m);
    }
  }
  if (!fresh.length) return out;
  await db.query({
    name: 'match-insert',
    text: `INSERT INTO matches (studio_id, match_id, game_id, mode, started_at, ended_at, players, roster, recorded_at)
           SELECT $1, m, g, mo, s, e, n, r, $9
             FROM unnest($2::text[], $3::uuid[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::int2[], $8::bytea[])
                  AS x(m, g, mo, s, e, n, r)`,
    values: [
      studioId,
      fresh.map((m) => m.matchId),
      fresh.map((m) => m.gameId),
      fresh.map((m) => m.mode),
      fresh.map((m) => m.startedAt),
      fresh.map((m) => m.endedAt),
      fresh.map((m) => m.players.length),
      fresh.map((m) => m.roster),
      now,
    ],
  });
  const rowsOf = fresh.flatMap((m) => m.players.map((p) => ({ m, p })));
  await db.query({
    name: 'match-insert-players',
    text: `INSERT INTO player_matches (player_id, studio_id, match_id, ended_at, team, party, result, left_early)
           SELECT p, $1, m, e, t, pa, r, l
             FROM unnest($2::uuid[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::bool[])
                  AS x(p, m, e, t, pa, r, l)`,
    values: [
      studioId,
      rowsOf.map((x) => x.p.playerRowId),
      rowsOf.map((x) => x.m.matchId),
      rowsOf.map((x) => x.m.endedAt),
      rowsOf.map((x) => x.p.team),
      rowsOf.map((x) => x.p.party),
      rowsOf.map((x) => x.p.result),
      rowsOf.map((x) => x.p.leftEarly),
    ],
  });
  out.recorded = fresh.map((m) => m.matchId);
  // The players' rows are locked here (as a report locks them) before the restrictions are.
  out.conduct = await recordConduct(
    db,
    studioId,
    fresh.map((m) => ({
      matchId: m.matchId,
      startedAt: m.startedAt,
      endedAt: m.endedAt,
      players: m.players.map((p) => ({
        playerRowId: p.playerRowId,
        party: p.party,
        leftEarly: p.leftEarly,
        commended: p.commended,
      })),
    })),
    now,
    recoveryPeriodS,
  );
  out.countedDown = await countDownMatches(
    db,
    studioId,
    rowsOf.filter((x) => !x.p.leftEarly).map((x) => ({ playerRowId: x.p.playerRowId, endedAt: x.m.endedAt })),
    now,
  );
  // Lock order: players, sanctions (the count-down), then the conduct counts.
  const perPlayer = new Map<string, MatchConduct>();
  for (const { p } of rowsOf) {
    let c = perPlayer.get(p.playerRowId);
    if (!c)
      perPlayer.set(
        p.playerRowId,
        (c = {
          playerRowId: p.playerRowId,
          matches: 0,
          finished: 0,
          leftEarly: 0,
          commendations: out.conduct.received[p.playerRowId] ?? 0,
        }),
      );
    c.matches += 1;
    if (p.leftEarly) c.leftEarly += 1;
    else c.finished += 1;
  }
  const made = await countConduct(db, studioId, [...perPlayer.values()], now, policy);
  out.summaries = made.summaries;
  out.outbox = made.outbox;
  return out;
}

/**
 * Retention (docs/compliance.md "Personal data"): drops, whole, every month partition whose month
 * ended more than `retentionDays` ago (a month is kept at least the window and at most a month
 * longer), and creates this month's and next month's ahead of the matches. The dropped names.
 */
export async function maintainMatchPartitions(
  pool: Pool,
  now: Date,
  retentionDays: number,
): Promise<string[]> {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  await ensureMatchPartitions(pool, [now, next]);
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  return withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('match-partitions', 54))`);
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class t ON t.oid = i.inhparent
        WHERE t.relname = ANY($1::text[])`,
      [TABLES],
    );
    const dropped: string[] = [];
    for (const r of rows) {
      const month = /_p(\d{4})(\d{2})$/.exec(r.name);
      if (!month) continue;
      // The partition holds its month: it may go once the month's end is past the cutoff.
      const end = new Date(Date.UTC(Number(month[1]), Number(month[2]), 1));
      if (end.getTime() > cutoff.getTime()) continue;
      await client.query(`DROP TABLE ${r.name}`);
      knownIn(pool).delete(r.name);
      dropped.push(r.name);
    }
    return dropped.sort();
  });
}

/** Erasure (common/lifecycles/erasure.ts): a player's part in every match (`$1`, internal id). */
export const ERASE_PLAYER_MATCHES = 'DELETE FROM player_matches WHERE player_id = $1';
