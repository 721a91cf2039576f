import type { Queryable } from '../data/db.js';
import {
  honorQuarters,
  nextHonor,
  recoveryCredit,
  weighCommendations,
  type CommendationToWeigh,
} from '../domain/honor.js';
import {
  COMMEND_PAIR_DAYS,
  COMMEND_WEIGHT,
  HONOR_MAX,
  HONOR_SANCTION_LEVELS,
  HONOR_START,
} from '../domain/matches.js';
import { STRONG_LINK } from '../domain/signals.js';

/**
 * Commendations and honor (issue 54, part 4; docs/studios.md "Commendations and honor"), the only
 * writer of `commendations` and `player_honor` (a test holds it to that), and of the recovery credit a match moves `players.recovery_from` by. A match's conduct is recorded
 * in the transaction that records the match (common/lifecycles/matches.ts), so it counts once
 * however often the match is sent; a sanction's honor is taken in the transaction that places it
 * and given back in the one that revokes it:
 *
 *   player_honor: (none: level HONOR_START) --matches, commendations--> level 0..5, progress 0..99
 *                 --a sanction placed (not a warning)--> level - 2 (at most what there is), progress 0
 *                 --that sanction revoked--> level + what it took
 *   commendations: (unknown) --match recorded--> weighed (4, 1 or 0, with why)
 *                  --its month past MATCH_RETENTION_DAYS--> dropped with its partition; --erasure--> deleted
 */

export interface ConductOfMatch {
  matchId: string;
  startedAt: Date;
  endedAt: Date;
  players: {
    playerRowId: string;
    party: string | null;
    leftEarly: boolean;
    /** The row ids of the players of the match this one commended. */
    commended: readonly string[];
  }[];
}

export interface RecordedConduct {
  /** Commendations written, by why. */
  commendations: Record<string, number>;
  /** Players whose recovery clock the credit moved back, and by how many seconds in all. */
  credited: number;
  creditedSeconds: number;
  /** Commendations counted (a weight above 0), by the recipient's row id. */
  received: Record<string, number>;
}

/**
 * Records what a batch of newly recorded matches says of each player's conduct (the caller's
 * transaction, after the matches are written): weighs and writes the commendations, adds each
 * player's finished matches (those not reported in as the match is recorded), matches left early
 * and commendation quarters to their honor, and moves the recovery clock of each player below 100
 * back by the credit, capped (`recoveryPeriodS`: TRUST_RECOVERY_DAYS_PER_POINT in seconds; 0, no
 * recovery, no credit). The players' rows are locked in id order first, as a report locks them, so a
 * report and a match never deadlock. An erased player (erased while the job waited) gets nothing.
 */
export async function recordConduct(
  db: Queryable,
  studioId: string,
  matches: readonly ConductOfMatch[],
  now: Date,
  recoveryPeriodS: number,
): Promise<RecordedConduct> {
  const out: RecordedConduct = { commendations: {}, credited: 0, creditedSeconds: 0, received: {} };
  const rows = matches.flatMap((m) => m.players.map((p) => ({ m, p })));
  if (!rows.length) return out;
  const { rows: standing } = await db.query<{
    id: string;
    trust_score: number;
    recovery_from: Date;
    erased: boolean;
    clean: number;
    left_early: number;
    level: number | null;
    progress: number | null;
    recovery_credit_s: number | null;
    credited_from: Date | null;
  }>({
    name: 'honor-conduct-standing',
    // A finished match is clean when no report of the studio names the player in it (reports of a
    // match come after its start: the player's newest offenses, by the index, are all it reads).
    text: `WITH x AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::bool[]) AS x(p, m, s, l)),
          f AS (SELECT x.p,
                       count(*) FILTER (WHERE NOT x.l AND NOT EXISTS (
                         SELECT 1 FROM offenses o WHERE o.player_id = x.p AND o.created_at >= x.s
                            AND o.match_id = x.m AND o.studio_id = $5))::int AS clean,
                       count(*) FILTER (WHERE x.l)::int AS left_early
                  FROM x GROUP BY x.p),
          pl AS (SELECT p.id, p.trust_score, p.recovery_from, p.erased_at IS NOT NULL AS erased
                   FROM players p WHERE p.id IN (SELECT f.p FROM f) ORDER BY p.id FOR NO KEY UPDATE)
     SELECT pl.*, f.clean, f.left_early, h.level, h.progress, h.recovery_credit_s, h.credited_from
       FROM pl JOIN f ON f.p = pl.id LEFT JOIN player_honor h ON h.player_id = pl.id
      ORDER BY pl.id`,
    values: [
      rows.map((r) => r.p.playerRowId),
      rows.map((r) => r.m.matchId),
      rows.map((r) => r.m.startedAt),
      rows.map((r) => r.p.leftEarly),
      studioId,
    ],
  });
  const live = new Set(standing.filter((s) => !s.erased).map((s) => s.id));

  // Commendations: weighed against the record (one read) and the batch, then written.
  const quartersOf = new Map<string, number>();
  const counted = new Map<string, number>();
  const partyOf = new Map<string, string | null>();
  const toWeigh: CommendationToWeigh[] = [];
  for (const m of matches) {
    for (const p of m.players) partyOf.set(`${m.matchId}|${p.playerRowId}`, p.party);
    for (const p of m.players)
      for (const r of p.commended) {
        if (!live.has(p.playerRowId) || !live.has(r) || r === p.playerRowId) continue;
        const party = partyOf.get(`${m.matchId}|${r}`);
        toWeigh.push({
          matchId: m.matchId,
          endedAt: m.endedAt,
          commender: p.playerRowId,
          recipient: r,
          ownParty: p.party !== null && party === p.party,
          linked: false,
          repeatOnRecord: false,
          returnedOnRecord: false,
        });
      }
  }
  if (toWeigh.length) {
    const { rows: facts } = await db.query<{
      i: string;
      linked: boolean;
      repeat: boolean;
      returned: boolean;
    }>({
      name: 'honor-commendation-facts',
      text: `SELECT x.i,
                    EXISTS (SELECT 1 FROM account_links a WHERE a.studio_id = $4 AND a.strength >= $5
                               AND ((a.player_id = x.c AND a.other_id = x.r) OR (a.player_id = x.r AND a.other_id = x.c))) AS linked,
                    EXISTS (SELECT 1 FROM commendations k WHERE k.recipient_id = x.r AND k.commender_id = x.c
                               AND k.studio_id = $4 AND k.ended_at > x.e - make_interval(days => $6) AND k.ended_at <= x.e) AS repeat,
                    EXISTS (SELECT 1 FROM commendations k WHERE k.recipient_id = x.c AND k.commender_id = x.r
                               AND k.studio_id = $4 AND k.weight > 0
                               AND k.ended_at > x.e - make_interval(days => $6) AND k.ended_at <= x.e) AS returned
               FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) WITH ORDINALITY AS x(c, r, e, i)`,
      values: [
        toWeigh.map((c) => c.commender),
        toWeigh.map((c) => c.recipient),
        toWeigh.map((c) => c.endedAt),
        studioId,
        STRONG_LINK,
        COMMEND_PAIR_DAYS,
      ],
    });
    for (const f of facts) {
      const c = toWeigh[Number(f.i) - 1]!;
      c.linked = f.linked;
      c.repeatOnRecord = f.repeat;
      c.returnedOnRecord = f.returned;
    }
    const why = weighCommendations(toWeigh);
    await db.query({
      name: 'honor-commendations-insert',
      text: `INSERT INTO commendations (recipient_id, ended_at, studio_id, match_id, commender_id, weight, why)
             SELECT r, e, $1, m, c, w, y
               FROM unnest($2::uuid[], $3::timestamptz[], $4::text[], $5::uuid[], $6::int2[], $7::text[]) AS x(r, e, m, c, w, y)
             ON CONFLICT DO NOTHING`,
      values: [
        studioId,
        toWeigh.map((c) => c.recipient),
        toWeigh.map((c) => c.endedAt),
        toWeigh.map((c) => c.matchId),
        toWeigh.map((c) => c.commender),
        why.map((w) => COMMEND_WEIGHT[w]),
        why,
      ],
    });
    toWeigh.forEach((c, i) => {
      const w = why[i]!;
      out.commendations[w] = (out.commendations[w] ?? 0) + 1;
      const q = COMMEND_WEIGHT[w];
      if (q > 0) {
        quartersOf.set(c.recipient, (quartersOf.get(c.recipient) ?? 0) + q);
        counted.set(c.recipient, (counted.get(c.recipient) ?? 0) + 1);
        out.received[c.recipient] = (out.received[c.recipient] ?? 0) + 1;
      }
    });
  }

  // Honor and the recovery credit, a row each, in one statement.
  const ids: string[] = [];
  const levels: number[] = [];
  const progress: number[] = [];
  const finished: number[] = [];
  const leftEarly: number[] = [];
  const commended: number[] = [];
  const creditS: number[] = [];
  const creditTotal: number[] = [];
  for (const s of standing) {
    if (s.erased) continue;
    const commendQuarters = quartersOf.get(s.id) ?? 0;
    const next = nextHonor(
      s.level ?? HONOR_START,
      s.progress ?? 0,
      honorQuarters({ finishedClean: s.clean, leftEarly: s.left_early, commendQuarters }),
    );
    // The credit since the clock last started: another start (a report, a point earned back) resets it.
    const already =
      s.credited_from && s.credited_from.getTime() === s.recovery_from.getTime()
        ? (s.recovery_credit_s ?? 0)
        : 0;
    const credit =
      s.trust_score < 100 && Number.isFinite(s.recovery_from.getTime())
        ? recoveryCredit(s.clean + commendQuarters, recoveryPeriodS, already)
        : 0;
    ids.push(s.id);
    levels.push(next.level);
    progress.push(next.progress);
    finished.push(s.clean);
    leftEarly.push(s.left_early);
    commended.push(counted.get(s.id) ?? 0);
    creditS.push(credit);
    creditTotal.push(already + credit);
    if (credit > 0) {
      out.credited += 1;
      out.creditedSeconds += credit;
    }
  }
  if (!ids.length) return out;
  await db.query({
    name: 'honor-upsert',
    text: `WITH x AS (SELECT * FROM unnest($1::uuid[], $2::int2[], $3::int2[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[])
                        AS x(p, lv, pr, fin, lft, com, cr, crt)),
          moved AS (UPDATE players pl SET recovery_from = pl.recovery_from - make_interval(secs => x.cr), updated_at = $9
                      FROM x WHERE pl.id = x.p AND x.cr > 0
                    RETURNING pl.id, pl.recovery_from)
     INSERT INTO player_honor AS h (player_id, level, progress, matches_finished, matches_left_early, commendations,
                                    recovery_credit_s, credited_from, updated_at)
     SELECT x.p, x.lv, x.pr, x.fin, x.lft, x.com, CASE WHEN x.cr > 0 THEN x.crt ELSE 0 END, moved.recovery_from, $9
       FROM x LEFT JOIN moved ON moved.id = x.p
     ON CONFLICT (player_id) DO UPDATE SET
       level = EXCLUDED.level, progress = EXCLUDED.progress,
       matches_finished = h.matches_finished + EXCLUDED.matches_finished,
       matches_left_early = h.matches_left_early + EXCLUDED.matches_left_early,
       commendations = h.commendations + EXCLUDED.commendations,
       recovery_credit_s = CASE WHEN EXCLUDED.credited_from IS NULL THEN h.recovery_credit_s ELSE EXCLUDED.recovery_credit_s END,
       credited_from = coalesce(EXCLUDED.credited_from, h.credited_from),
       updated_at = EXCLUDED.updated_at`,
    values: [ids, levels, progress, finished, leftEarly, commended, creditS, creditTotal, now],
  });
  return out;
}

/**
 * Takes a sanction's honor as it is placed (the caller's transaction, common/lifecycles/sanction.ts,
 * which keeps what was taken on the sanction, so revoking it gives exactly that back): a warning
 * takes none; any other type HONOR_SANCTION_LEVELS levels (at most what the player has) and the
 * progress toward the next. The levels taken.
 */
export async function takeHonor(
  db: Queryable,
  playerRowId: string,
  type: string,
  now: Date,
): Promise<number> {
  if (type === 'warning') return 0;
  const { rows } = await db.query<{ taken: number }>({
    name: 'honor-take',
    text: `WITH b AS (SELECT coalesce((SELECT level FROM player_honor WHERE player_id = $1 FOR UPDATE), $3::int) AS level),
                u AS (INSERT INTO player_honor AS h (player_id, level, progress, updated_at)
                      SELECT $1, greatest(b.level - $2, 0), 0, $4 FROM b
                      ON CONFLICT (player_id) DO UPDATE SET level = EXCLUDED.level, progress = 0, updated_at = $4)
           SELECT least(b.level, $2)::int AS taken FROM b`,
    values: [playerRowId, HONOR_SANCTION_LEVELS, HONOR_START, now],
  });
  return rows[0]?.taken ?? 0;
}

/**
 * Gives a revoked sanction's honor back (the caller's transaction, as it revokes; a sanction is
 * revoked once): the levels it took, never above the top.
 */
export async function giveBackHonor(
  db: Queryable,
  playerRowId: string,
  levels: number,
  now: Date,
): Promise<void> {
  if (levels <= 0) return;
  await db.query({
    name: 'honor-give-back',
    text: `UPDATE player_honor SET level = least(level + $2, $3), updated_at = $4 WHERE player_id = $1`,
    values: [playerRowId, levels, HONOR_MAX, now],
  });
}

/** Erasure (common/lifecycles/erasure.ts): the commendations a player gave or got (`$1`, internal id). */
export const ERASE_COMMENDATIONS = 'DELETE FROM commendations WHERE recipient_id = $1 OR commender_id = $1';
/** Erasure: the player's honor (levels, counts, credit). */
export const ERASE_HONOR = 'DELETE FROM player_honor WHERE player_id = $1';
