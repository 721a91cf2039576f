import type { Queryable } from '../data/db.js';
import {
  COLUMNS,
  fromRow,
  type NewSanction,
  type SanctionRecord,
  type SanctionRow,
} from '../data/repos/sanctions.js';
import { ERASED_WORDS_SQL } from '../domain/players.js';
import { giveBackHonor, takeHonor } from './honor.js';

/**
 * A sanction's life and its strikes (issue 33), the only code that writes them (a test holds it to
 * that). A sanction is placed (with a start, and an end unless permanent), then **active** from its
 * start until it ends or is revoked, all read from the clock (ACTIVE in data/repos/sanctions.ts), so
 * an ended one stops counting with no job run; revoking is once (a revoked one is not revoked again)
 * and the expiry is announced once (sanction.expired), never for a revoked one:
 *
 *   placed --(start)--> active --(end)--> ended    (announced once)
 *                       active --(the last of its matches finished)--> ended
 *   placed | active --revoke--> revoked
 *
 * A strike is added when a case is upheld (once a case) and counts until it expires
 * (STRIKE_TTL_DAYS) or is removed (a granted appeal of that case's decision).
 */

export async function recordPlacement(db: Queryable, s: NewSanction, now: Date): Promise<SanctionRecord> {
  // What it takes of the player's honor, kept on it for its revocation (docs/studios.md "Commendations and honor").
  const honor = await takeHonor(db, s.playerRowId, s.type, now);
  const { rows } = await db.query<SanctionRow>(
    `WITH s AS (
       INSERT INTO sanctions (player_id, type, scope_studio_id, reason, case_id, issued_by_moderator,
                              issued_by_studio, starts_at, expires_at, dsa_category, wave_id, rule_id,
                              rule_version, extended_from, matches_total, matches_left, honor_taken)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $12, $13, $14, $15, $16, $16, $17) RETURNING *)
     SELECT ${COLUMNS('$10::timestamptz')} FROM s JOIN players p ON p.id = s.player_id`,
    [
      s.playerRowId,
      s.type,
      s.scopeStudioId,
      s.reason,
      s.caseId,
      s.issuedBy.kind === 'moderator' ? s.issuedBy.id : null,
      s.issuedBy.kind === 'studio' ? s.issuedBy.id : null,
      s.startsAt,
      s.expiresAt,
      now,
      s.dsaCategory ?? null,
      s.waveId ?? null,
      s.rule?.id ?? null,
      s.rule?.version ?? null,
      s.extendedFrom ?? null,
      s.matches ?? null,
      honor,
    ],
  );
  return fromRow(rows[0]!);
}

export async function recordRevocation(
  db: Queryable,
  id: string,
  by: { kind: 'moderator' | 'studio'; id: string },
  reason: string,
  now: Date,
): Promise<SanctionRecord> {
  const { rows } = await db.query<SanctionRow & { player_id: string; honor_taken: number }>(
    `WITH s AS (
       UPDATE sanctions SET revoked_at = $4, revoke_reason = $3,
              revoked_by_moderator = $2::uuid, revoked_by_studio = $5::uuid
        WHERE id = $1 RETURNING *)
     SELECT ${COLUMNS('$4::timestamptz')}, s.player_id, s.honor_taken FROM s JOIN players p ON p.id = s.player_id`,
    [id, by.kind === 'moderator' ? by.id : null, reason, now, by.kind === 'studio' ? by.id : null],
  );
  const row = rows[0]!;
  const revoked = fromRow(row);
  // What its placement took of the player's honor comes back (a sanction is revoked once).
  await giveBackHonor(db, row.player_id, row.honor_taken, now);
  return revoked;
}

/** A restriction counted in matches that a batch of finished matches brought to its end. */
export interface CountedDown {
  sanctionId: string;
  playerRowId: string;
  matchesLeft: number;
  /** Set when the count reached zero: the restriction ended then. */
  endedAt: Date | null;
}

/**
 * Counts down the restrictions counted in matches (docs/moderators.md "Sanctions"): each match a
 * player finished (`finished`: the player and when the match ended; never one they left) counts once
 * for each of their restrictions in force that it falls in: ended after the restriction began, in
 * its scope (a global one counts every studio's matches, a studio's its own). The count that reaches
 * zero sets the end, so the restriction ends as any other does. The caller writes the matches in the
 * same transaction, once each (common/lifecycles/matches.ts), so a match never counts twice; the
 * rows are locked in id order, so concurrent batches count one after another.
 */
export async function countDownMatches(
  db: Queryable,
  studioId: string,
  finished: readonly { playerRowId: string; endedAt: Date }[],
  now: Date,
): Promise<CountedDown[]> {
  if (!finished.length) return [];
  const { rows } = await db.query<{
    id: string;
    player_id: string;
    matches_left: number;
    expires_at: Date | null;
  }>({
    name: 'sanction-count-down-matches',
    text: `WITH f AS (SELECT * FROM unnest($1::uuid[], $2::timestamptz[]) AS f(player_id, ended_at)),
          hit AS (SELECT s.id, count(*)::int AS n FROM f JOIN sanctions s ON s.player_id = f.player_id
                   WHERE s.matches_left > 0 AND s.revoked_at IS NULL AND f.ended_at >= s.starts_at
                     AND (s.scope_studio_id IS NULL OR s.scope_studio_id = $3)
                   GROUP BY s.id),
          locked AS (SELECT s.id, hit.n FROM sanctions s JOIN hit ON hit.id = s.id
                      WHERE s.matches_left > 0 AND s.revoked_at IS NULL ORDER BY s.id FOR UPDATE OF s)
     UPDATE sanctions s SET matches_left = greatest(s.matches_left - l.n, 0),
            expires_at = CASE WHEN s.matches_left <= l.n
                              THEN greatest($4::timestamptz, s.starts_at + interval '1 millisecond') END
       FROM locked l WHERE s.id = l.id
     RETURNING s.id, s.player_id, s.matches_left, s.expires_at`,
    values: [finished.map((f) => f.playerRowId), finished.map((f) => f.endedAt), studioId, now],
  });
  return rows.map((r) => ({
    sanctionId: r.id,
    playerRowId: r.player_id,
    matchesLeft: r.matches_left,
    endedAt: r.expires_at,
  }));
}

/** Announces a sanction's expiry once: marks it so a repeated job sends nothing again. */
export async function markExpiryAnnounced(db: Queryable, sanctionId: string, now: Date): Promise<void> {
  await db.query('UPDATE sanctions SET expiry_announced_at = $2 WHERE id = $1', [sanctionId, now]);
}

/**
 * Adds the strike of an upheld case (once a case: a second uphold adds none) counting for `ttlDays`;
 * the player's active strikes before it, and whether it was added. The caller holds the player's row
 * lock, so concurrent upholds count one after another.
 */
export async function addStrikeOfCase(
  db: Queryable,
  input: { playerRowId: string; caseId: string; now: Date; ttlDays: number },
): Promise<{ before: number; added: boolean }> {
  // The count runs on the snapshot from before the insert: the strikes active before this one.
  const { rows } = await db.query<{ before: number; added: number }>(
    `WITH ins AS (
       INSERT INTO strikes (player_id, case_id, created_at, expires_at)
       VALUES ($1, $2, $3, $3::timestamptz + make_interval(days => $4))
       ON CONFLICT (case_id) DO NOTHING RETURNING id)
     SELECT (SELECT count(*)::int FROM strikes
              WHERE player_id = $1 AND removed_at IS NULL AND expires_at > $3) AS before,
            (SELECT count(*)::int FROM ins) AS added`,
    [input.playerRowId, input.caseId, input.now, input.ttlDays],
  );
  return { before: rows[0]!.before, added: rows[0]!.added > 0 };
}

/** Removes the strike of a case (its decision was reversed on appeal); nothing when none is active. */
export async function removeStrikeOfCase(db: Queryable, caseId: string, now: Date): Promise<void> {
  await db.query('UPDATE strikes SET removed_at = $2 WHERE case_id = $1 AND removed_at IS NULL', [
    caseId,
    now,
  ]);
}

export type { SanctionRecord };

/**
 * Erasure (common/lifecycles/erasure.ts): the reasons written for a player's (`$1`, internal id)
 * sanctions, replaced; the sanction itself (type, scope, dates, revocation) stays, so a ban still holds.
 */
export const ERASE_SANCTION_REASONS = `UPDATE sanctions SET reason = ${ERASED_WORDS_SQL},
       revoke_reason = CASE WHEN revoke_reason IS NOT NULL THEN ${ERASED_WORDS_SQL} END
  WHERE player_id = $1 AND reason <> ${ERASED_WORDS_SQL}`;
