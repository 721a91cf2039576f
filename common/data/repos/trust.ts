import type { Queryable } from '../db.js';

/** Why a player's trust score changed: one row of trust_history each time it does. */
export type TrustChangeReason = 'offense' | 'held_released' | 'dismissal' | 'recovery' | 'appeal';

/** A player's row id from their service id; undefined when there is no such player. */
export async function playerRowId(db: Queryable, serviceId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
    serviceId,
  ]);
  return rows[0]?.id;
}

/**
 * The player's row lock, in the caller's transaction: what a decision that may move the score, place
 * a sanction or count a strike takes first, so two of them on one player go one after the other.
 * FOR NO KEY UPDATE: a filing that merely references the player (a foreign key's KEY SHARE) passes.
 */
export async function lockPlayerRow(db: Queryable, playerRowId: string): Promise<void> {
  await db.query('SELECT 1 FROM players WHERE id = $1 FOR NO KEY UPDATE', [playerRowId]);
}

/**
 * A rule holds the player's points until `until` (never shortening a longer hold), or, with null,
 * ends the hold: pt_file_reports files their reports as held (statusReason rule_hold) meanwhile.
 */
export async function setPointsHold(db: Queryable, playerRowId: string, until: Date | null): Promise<void> {
  await db.query(
    `UPDATE players SET points_held_until = CASE WHEN $2::timestamptz IS NULL THEN NULL
                                                  ELSE GREATEST(points_held_until, $2::timestamptz) END
      WHERE id = $1`,
    [playerRowId, until],
  );
}

export interface TrustChange {
  id: string;
  points: number;
  scoreBefore: number;
  scoreAfter: number;
  reason: TrustChangeReason;
  offenseId: string | null;
  caseId: string | null;
  /** The studios whose reports it was about: the offense's filer, or every filer of the case's. */
  studioIds: string[];
  createdAt: Date;
}

/**
 * Moves a locked player's score by `points` (clamped to 0..100) and records the change in the
 * caller's transaction; no row when the clamp leaves the score where it was. The caller holds the
 * player's row lock. Returns the score before and after.
 */
export async function changeScore(
  db: Queryable,
  input: {
    playerRowId: string;
    points: number;
    reason: TrustChangeReason;
    caseId?: string | null;
    offenseId?: string | null;
    studioId?: string | null;
  },
): Promise<{ before: number; after: number }> {
  const { rows } = await db.query<{ before: number; after: number }>(
    `WITH old AS (SELECT id, trust_score FROM players WHERE id = $1),
     upd AS (
       UPDATE players p SET trust_score = LEAST(100, GREATEST(0, p.trust_score + $2::int)), updated_at = now()
         FROM old WHERE p.id = old.id AND LEAST(100, GREATEST(0, p.trust_score + $2::int)) <> old.trust_score
       RETURNING p.id, old.trust_score AS before, p.trust_score AS after),
     h AS (
       INSERT INTO trust_history (player_id, points, score_before, score_after, reason, case_id, offense_id, studio_id)
       SELECT id, after - before, before, after, $3, $4, $5, $6 FROM upd)
     SELECT old.trust_score AS before, coalesce(upd.after, old.trust_score) AS after
       FROM old LEFT JOIN upd ON upd.id = old.id`,
    [
      input.playerRowId,
      input.points,
      input.reason,
      input.caseId ?? null,
      input.offenseId ?? null,
      input.studioId ?? null,
    ],
  );
  return rows[0]!;
}

/** A player's score changes, newest first, keyset-paginated on the row id; undefined for no player. */
export async function listTrustHistory(
  db: Queryable,
  serviceId: string,
  limit: number,
  beforeId?: string,
): Promise<{ items: TrustChange[]; next: string | null } | undefined> {
  const { rows } = await db.query<{
    id: string | null;
    points: number;
    score_before: number;
    score_after: number;
    reason: TrustChangeReason;
    offense_id: string | null;
    case_id: string | null;
    studio_ids: string[];
    created_at: Date;
  }>(
    // A decision's row (dismissal, appeal, held points released) names its case or offense, not a
    // studio: the filers are read from those, at most one page of rows.
    `SELECT h.id::text, h.points, h.score_before, h.score_after, h.reason, h.offense_id, h.case_id,
            CASE WHEN h.studio_id IS NOT NULL THEN ARRAY[h.studio_id::text]
                 WHEN h.case_id IS NOT NULL THEN ARRAY(
                   SELECT DISTINCT o.studio_id::text FROM case_offenses co JOIN offenses o ON o.id = co.offense_id
                    WHERE co.case_id = h.case_id)
                 WHEN h.offense_id IS NOT NULL THEN ARRAY(
                   SELECT o.studio_id::text FROM offenses o WHERE o.id = h.offense_id)
                 ELSE '{}'::text[] END AS studio_ids,
            h.created_at
       FROM players p LEFT JOIN LATERAL (
         SELECT * FROM trust_history h WHERE h.player_id = p.id AND ($3::bigint IS NULL OR h.id < $3)
          ORDER BY h.id DESC LIMIT $2) h ON true
      WHERE p.service_id = $1
      ORDER BY h.id DESC`,
    [serviceId, limit + 1, beforeId ?? null],
  );
  if (rows.length === 0) return undefined;
  const items = rows
    .filter((r) => r.id !== null)
    .slice(0, limit)
    .map((r) => ({
      id: r.id!,
      points: r.points,
      scoreBefore: r.score_before,
      scoreAfter: r.score_after,
      reason: r.reason,
      offenseId: r.offense_id,
      caseId: r.case_id,
      studioIds: r.studio_ids ?? [],
      createdAt: r.created_at,
    }));
  return { items, next: rows.length > limit ? items[items.length - 1]!.id : null };
}

/**
 * One batch of recovery at `now`: each player below 100 whose last offense (or last point earned
 * back) is at least `secondsPerPoint` ago earns one point per whole period since, never above 100,
 * recorded as `recovery`; the period's start moves forward by the periods paid, so running it again
 * at the same time pays nothing. Rows a report holds are skipped (the next run takes them); the lock
 * is FOR NO KEY UPDATE, so a filing that merely references the player (a foreign key's KEY SHARE)
 * does not make it skip.
 * Returns how many players it looked at; fewer than `batch` means it is done for now.
 */
export async function recoverBatch(
  db: Queryable,
  now: Date,
  secondsPerPoint: number,
  batch: number,
): Promise<{
  players: number;
  points: number;
  changed: { serviceId: string; before: number; after: number; studios: string[] }[];
}> {
  const { rows } = await db.query<{
    players: number;
    points: number;
    changed: { serviceId: string; before: number; after: number; studios: string[] }[] | null;
  }>(
    `WITH due AS (
       SELECT id, trust_score,
              floor(extract(epoch FROM ($1::timestamptz - recovery_from)) / $2)::int AS periods
         FROM players
        WHERE trust_score < 100 AND recovery_from <= $1::timestamptz - make_interval(secs => $2)
        ORDER BY recovery_from LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED),
     upd AS (
       UPDATE players p SET trust_score = LEAST(100, p.trust_score + d.periods),
              recovery_from = p.recovery_from + d.periods * make_interval(secs => $2), updated_at = now()
         FROM due d WHERE p.id = d.id
       RETURNING p.id, d.trust_score AS before, p.trust_score AS after),
     h AS (
       INSERT INTO trust_history (player_id, points, score_before, score_after, reason)
       SELECT id, after - before, before, after, 'recovery' FROM upd WHERE after > before)
     SELECT count(*)::int AS players, coalesce(sum(after - before), 0)::int AS points,
            -- who to tell: each player's games' studios, for trust.changed
            json_agg(json_build_object(
              'serviceId', (SELECT service_id FROM players WHERE id = upd.id), 'before', before, 'after', after,
              'studios', (SELECT coalesce(json_agg(DISTINCT g.studio_id), '[]') FROM player_games pg
                            JOIN games g ON g.id = pg.game_id WHERE pg.player_id = upd.id)))
              FILTER (WHERE after > before) AS changed
       FROM upd`,
    [now, secondsPerPoint, batch],
  );
  const r = rows[0]!;
  return { players: r.players, points: r.points, changed: r.changed ?? [] };
}

/** A player's gamer tag, trust score and strikes in force at `now`; undefined when no such player. */
export async function playerStanding(
  db: Queryable,
  playerRowId: string,
  now: Date,
): Promise<{ gamerTag: string; trustScore: number; activeStrikes: number } | undefined> {
  const { rows } = await db.query<{ gamer_tag: string; trust_score: number; active_strikes: number }>(
    `SELECT p.gamer_tag, p.trust_score,
            (SELECT count(*)::int FROM strikes s
              WHERE s.player_id = p.id AND s.removed_at IS NULL AND s.expires_at > $2) AS active_strikes
       FROM players p WHERE p.id = $1`,
    [playerRowId, now],
  );
  const r = rows[0];
  return r && { gamerTag: r.gamer_tag, trustScore: r.trust_score, activeStrikes: r.active_strikes };
}

/** A player's trust score now (by row id). */
export async function trustScoreOf(db: Queryable, playerRowId: string): Promise<number> {
  const { rows } = await db.query<{ trust_score: number }>('SELECT trust_score FROM players WHERE id = $1', [
    playerRowId,
  ]);
  return rows[0]!.trust_score;
}

/** A player by row id, not erased: what their standing page shows of them. */
export async function signedInPlayer(db: Queryable, playerRowId: string) {
  const { rows } = await db.query<{
    id: string;
    service_id: string;
    gamer_tag: string;
    trust_score: number;
    sessions_revoked_at: Date | null;
  }>(
    'SELECT id, service_id, gamer_tag, trust_score, sessions_revoked_at FROM players WHERE id = $1 AND erased_at IS NULL',
    [playerRowId],
  );
  return rows[0];
}
