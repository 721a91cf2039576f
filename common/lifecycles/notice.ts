import type { Queryable } from '../data/db.js';
import type { NoticeStanding } from '../domain/notices.js';
import type { NoticeSource } from '../domain/reports.js';
import type { OffenseStatus } from './offense.js';

/**
 * A notice's life (DSA Art. 16; issue 37; README "Notices"), the only code that writes `notices` and
 * `notice_quota` (a test holds it to that). A notice is filed as an offense whose points are held
 * (pt_file_reports, status_reason `notice`) in the same transaction as its row here, and from then
 * on it has no state of its own: where it stands is read from that offense and its case, so it can
 * never disagree with the decision.
 *
 *   received (its case open, unclaimed) --> in_review (claimed) --> action_taken (upheld)
 *                                                                --> no_action   (dismissed)
 *   action_taken --(the player's appeal granted)--> no_action (reversed)
 */

export interface NoticeRecord {
  id: string;
  secretHash: Buffer;
  offenseId: string;
  gameId: string;
  category: string;
  source: NoticeSource;
  trustedFlaggerId: string | null;
  notifierName: string | null;
  notifierEmail: string | null;
}

/** In the filing's transaction: the notice's row, beside the offense it was filed as. */
export async function recordNotice(db: Queryable, n: NoticeRecord): Promise<void> {
  await db.query(
    `INSERT INTO notices (id, secret_hash, offense_id, player_id, game_id, category, source, trusted_flagger_id,
                          notifier_name, notifier_email)
     VALUES ($1, $2, $3, (SELECT player_id FROM offenses WHERE id = $3), $4, $5, $6, $7, $8, $9)`,
    [
      n.id,
      n.secretHash,
      n.offenseId,
      n.gameId,
      n.category,
      n.source,
      n.trustedFlaggerId,
      n.notifierName,
      n.notifierEmail,
    ],
  );
}

/**
 * Takes one notice from each quota key (an address's, an e-mail's) for 24 h from its first use, in
 * the caller's transaction; the keys are locked in order so concurrent notices take turns. Returns
 * the seconds until the fullest one frees up when any is spent (nothing is taken then), else null.
 */
export async function takeQuota(
  db: Queryable,
  keys: { key: string; limit: number }[],
  now: Date,
): Promise<number | null> {
  const sorted = [...keys].sort((a, b) => a.key.localeCompare(b.key));
  const { rows } = await db.query<{ key: string; window_start: Date; used: number }>(
    `INSERT INTO notice_quota AS q (key, window_start, used)
     SELECT k, $2, 0 FROM unnest($1::text[]) AS k ORDER BY k
     ON CONFLICT (key) DO UPDATE SET
       window_start = CASE WHEN q.window_start <= $2::timestamptz - interval '24 hours' THEN $2 ELSE q.window_start END,
       used = CASE WHEN q.window_start <= $2::timestamptz - interval '24 hours' THEN 0 ELSE q.used END
     RETURNING key, window_start, used`,
    [sorted.map((k) => k.key), now],
  );
  const limitOf = new Map(sorted.map((k) => [k.key, k.limit]));
  const spent = rows.filter((r) => r.used >= limitOf.get(r.key)!);
  if (spent.length)
    return Math.max(
      ...spent.map((r) =>
        Math.max(1, Math.ceil((r.window_start.getTime() + 86_400_000 - now.getTime()) / 1000)),
      ),
    );
  await db.query('UPDATE notice_quota SET used = used + 1 WHERE key = ANY ($1::text[])', [
    sorted.map((k) => k.key),
  ]);
  return null;
}

/** What decides where a notice (or a game's report) stands: its offense and its case. */
export interface StandingFacts {
  offenseStatus: OffenseStatus;
  restoredBy: 'dismissal' | 'appeal' | null;
  caseStatus: 'open' | 'resolved' | null;
  caseOutcome: string | null;
  claimed: boolean;
}

/** Where it stands, for the person who flagged it. */
export function standingOf(f: StandingFacts): NoticeStanding {
  if (f.offenseStatus === 'restored' || f.offenseStatus === 'dropped' || f.offenseStatus === 'recorded')
    return 'no_action';
  if (f.caseStatus === 'resolved') return f.caseOutcome === 'upheld' ? 'action_taken' : 'no_action';
  if (f.offenseStatus === 'released') return 'action_taken';
  return f.claimed ? 'in_review' : 'received';
}

/**
 * Retention (common/data/retention.ts): at most $1 notices filed before $2 lose their notifier's name
 * and e-mail (the notice, its category and its outcome stay); `n` how many.
 */
export const DROP_NOTIFIER_CONTACTS = `WITH d AS (UPDATE notices SET notifier_name = NULL, notifier_email = NULL
   WHERE ctid = ANY (ARRAY(SELECT ctid FROM notices WHERE (notifier_name IS NOT NULL OR notifier_email IS NOT NULL)
                             AND created_at < $2 ORDER BY created_at LIMIT $1)) RETURNING 1)
  SELECT count(*)::int AS n FROM d`;
