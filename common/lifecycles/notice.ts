import type { TdbCategory } from '../domain/transparency-statement.js';
import type { Queryable } from '../data/db.js';
import { NOTICE_QUOTA_WINDOW_HOURS, type NoticeStanding, type Urgency } from '../domain/notices.js';
import type { NoticeSource } from '../domain/reports.js';
import { type StandingFacts } from '../data/shapes/notice.js';

/**
 * A notice's life (DSA Art. 16; issue 37; docs/moderators.md "Notices"), the only code that writes `notices` and
 * `notice_quota` (a test holds it to that). A notice is filed as an offense whose points are held
 * (pt_file_reports, status_reason `notice`) in the same transaction as its row here, and from then
 * on it has no state of its own: where it stands is read from that offense and its case, so it can
 * never disagree with the decision.
 *
 *   received (its case open, unclaimed) --> in_review (claimed) --> action_taken (upheld)
 *                                                                --> no_action   (dismissed)
 *   action_taken --(the player's appeal granted)--> no_action (reversed)
 *   no_action (dismissed) --(its notifier's complaint granted)--> received (its case reopened)
 *
 * The complaint (DSA Art. 20) is an appeal of the notice (lifecycles/appeal.ts); canContest below
 * says when one may be filed.
 */

export interface NoticeRecord {
  id: string;
  secretHash: Buffer;
  /** The secret sealed with the server secret, for the mails' links: only with an e-mail (notifier-mail.ts). */
  secretSealed: Buffer | null;
  offenseId: string;
  gameId: string;
  category: TdbCategory;
  source: NoticeSource;
  trustedFlaggerId: string | null;
  notifierName: string | null;
  notifierEmail: string | null;
  /** Who sent it, as the misuse rules count senders (lifecycles/misuse.ts noticeSenderKey). */
  senderKey: string;
  /** Why it is urgent (domain/notices.ts urgencyOf), or null. */
  urgency: Urgency | null;
}

/** In the filing's transaction: the notice's row, beside the offense it was filed as. */
export async function recordNotice(db: Queryable, n: NoticeRecord): Promise<void> {
  await db.query(
    `INSERT INTO notices (id, secret_hash, offense_id, player_id, game_id, category, source, trusted_flagger_id,
                          notifier_name, notifier_email, sender_key, secret_sealed, urgency)
     VALUES ($1, $2, $3, (SELECT player_id FROM offenses WHERE id = $3), $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
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
      n.senderKey,
      n.notifierEmail ? n.secretSealed : null,
      n.urgency,
    ],
  );
}

/**
 * The notice quota: takes one notice from the sender's address and, when given, its e-mail (each
 * bounded on its own, for NOTICE_QUOTA_WINDOW_HOURS from its first use), in the caller's
 * transaction; the keys are locked in order so concurrent notices take turns. Returns the seconds
 * until the fullest one frees up when any is spent (nothing is taken then), else null.
 */
export async function takeQuota(
  db: Queryable,
  from: { address: string; email: string | null },
  limits: { perAddress: number; perEmail: number },
  now: Date,
): Promise<number | null> {
  const keys = [{ key: `a:${from.address}`, limit: limits.perAddress }];
  if (from.email) keys.push({ key: `e:${from.email}`, limit: limits.perEmail });
  const windowMs = NOTICE_QUOTA_WINDOW_HOURS * 3_600_000;
  const sorted = [...keys].sort((a, b) => a.key.localeCompare(b.key));
  const { rows } = await db.query<{ key: string; window_start: Date; used: number }>(
    `INSERT INTO notice_quota AS q (key, window_start, used)
     SELECT k, $2, 0 FROM unnest($1::text[]) AS k ORDER BY k
     ON CONFLICT (key) DO UPDATE SET
       window_start = CASE WHEN q.window_start <= $2::timestamptz - make_interval(hours => $3) THEN $2 ELSE q.window_start END,
       used = CASE WHEN q.window_start <= $2::timestamptz - make_interval(hours => $3) THEN 0 ELSE q.used END
     RETURNING key, window_start, used`,
    [sorted.map((k) => k.key), now, NOTICE_QUOTA_WINDOW_HOURS],
  );
  const limitOf = new Map(sorted.map((k) => [k.key, k.limit]));
  const spent = rows.filter((r) => r.used >= limitOf.get(r.key)!);
  if (spent.length)
    return Math.max(
      ...spent.map((r) =>
        Math.max(1, Math.ceil((r.window_start.getTime() + windowMs - now.getTime()) / 1000)),
      ),
    );
  await db.query('UPDATE notice_quota SET used = used + 1 WHERE key = ANY ($1::text[])', [
    sorted.map((k) => k.key),
  ]);
  return null;
}

/**
 * Where it stands, for the person who flagged it; `reversed` when action was taken and then undone
 * by the player's granted appeal; `decidedAt` once decided (when its points were given back or
 * dropped, else when its case was resolved).
 */
export function standingOf(f: StandingFacts): {
  status: NoticeStanding;
  reversed: boolean;
  decidedAt: Date | null;
} {
  const status: NoticeStanding =
    f.offense_status === 'restored' || f.offense_status === 'dropped' || f.offense_status === 'recorded'
      ? 'no_action'
      : f.case_status === 'resolved'
        ? f.case_outcome === 'upheld'
          ? 'action_taken'
          : 'no_action'
        : f.offense_status === 'released'
          ? 'action_taken'
          : f.claimed
            ? 'in_review'
            : 'received';
  const decided = status === 'action_taken' || status === 'no_action';
  return {
    status,
    reversed: f.offense_status === 'restored' && f.restored_by === 'appeal',
    decidedAt: decided ? (f.restored_at ?? f.resolved_at) : null,
  };
}

/**
 * Retention (common/lifecycles/retention.ts): at most $1 notices filed before $2 lose their notifier's name
 * and e-mail, and the sealed secret the mails' links carried (the notice, its category, its outcome and
 * the record of the mails sent, which name nobody, stay); `n` how many. A mail still pending then ends
 * withdrawn.
 */
export const DROP_NOTIFIER_CONTACTS = `WITH d AS (UPDATE notices SET notifier_name = NULL, notifier_email = NULL, secret_sealed = NULL
   WHERE ctid = ANY (ARRAY(SELECT ctid FROM notices WHERE (notifier_name IS NOT NULL OR notifier_email IS NOT NULL)
                             AND created_at < $2 ORDER BY created_at LIMIT $1)) RETURNING 1)
  SELECT count(*)::int AS n FROM d`;

/**
 * Whether the notifier may still contest the decision on a notice (DSA Art. 20; docs/moderators.md "Notices"):
 * only a dismissal ("no action" by a moderator, not one reversed on the player's appeal), once, within
 * `days` of the decision. `why` says in words why not.
 */
export function canContest(
  f: StandingFacts,
  complaintFiled: boolean,
  decidedAt: Date | null,
  days: number,
  now: Date,
): { possible: boolean; until: Date | null; why: string | null } {
  const dismissed =
    f.offense_status === 'dropped' &&
    f.restored_by === 'dismissal' &&
    f.case_status === 'resolved' &&
    f.case_outcome === 'dismissed';
  const until = dismissed && decidedAt ? new Date(decidedAt.getTime() + days * 86_400_000) : null;
  const why = complaintFiled
    ? 'A complaint about this decision was already made; each decision can be contested once here.'
    : !decidedAt
      ? 'The notice has not been decided yet.'
      : !dismissed
        ? f.offense_status === 'restored' && f.restored_by === 'appeal'
          ? "This decision was taken on the player's appeal, already by a second moderator."
          : 'Action was taken on this notice: there is no "no action" decision to contest.'
        : now.getTime() > until!.getTime()
          ? `Complaints are taken within ${days} days of the decision.`
          : null;
  return { possible: why === null, until, why };
}

export { type StandingFacts, STANDING_COLUMNS, STANDING_JOINS } from '../data/shapes/notice.js';
