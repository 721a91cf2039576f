import type { Queryable } from '../data/db.js';
import { type MeasureRow } from '../data/shapes/misuse.js';
import { reporterFromRow, type ReporterRecord, type ReporterRow } from '../data/repos/reporters.js';

/**
 * Measures against misuse (DSA Art. 23; issue 37; docs/moderators.md "Notices"), and the only code that writes
 * `misuse_marks` and `misuse_measures` (a test holds it to that). A moderator marks a notice, a
 * notifier's complaint or a game's report (one with a reporterId) manifestly unfounded; the marks are
 * counted against its sender, and at the documented counts within the window the sender is first
 * warned, then suspended for a period:
 *
 *   marks since the last suspension, within the window:
 *     >= warnAfter    and no warning since the last suspension  --> warning
 *     >= suspendAfter and warned since the last suspension       --> suspension until now + period
 *   suspension --lift (an admin, with a note)--> lifted
 *
 * A suspension refuses the sender's notices and complaints (403 notifier_suspended) or, for a game's
 * reporter, mutes it until the end (its reports are stored and weigh nothing: pt_file_reports).
 * Counting starts again after each suspension, so the next one again needs a warning first.
 */

export interface MisusePolicy {
  warnAfter: number;
  suspendAfter: number;
  windowDays: number;
  suspensionDays: number;
}

/** Who sent a notice, complaint or report, as the rules count them. */
export type Sender =
  | { kind: 'notifier' | 'trusted_flagger'; key: string }
  | { kind: 'reporter'; key: string; studioId: string; reporterId: string };

/** A notice's sender: `notice:` and the reporterId its filing used (an HMAC, or `tf-<flagger id>`). */
export const noticeSenderKey = (reporterId: string) => `notice:${reporterId}`;
/** A game's in-game reporter, within its studio. */
export const reporterSenderKey = (studioId: string, reporterId: string) =>
  `reporter:${studioId}:${reporterId}`;

export function senderOfKey(key: string): Sender {
  if (key.startsWith('reporter:')) {
    const rest = key.slice('reporter:'.length);
    const at = rest.indexOf(':');
    return { kind: 'reporter', key, studioId: rest.slice(0, at), reporterId: rest.slice(at + 1) };
  }
  return { kind: key.startsWith('notice:tf-') ? 'trusted_flagger' : 'notifier', key };
}

const MEASURE_COLUMNS = 'id, sender_key, kind, marks, created_at, ends_at, lifted_at';

/**
 * Records one mark against a sender in the caller's transaction, and the measure it leads to, if any.
 * Marks of one sender take turns (a transaction-scoped advisory lock on the key), so two marks at
 * once cannot both warn or both suspend. A subject is marked once: a second mark of it is a unique
 * violation the caller answers with 409 already_marked.
 */
export async function recordMark(
  db: Queryable,
  mark: {
    sender: Sender;
    subject: { offenseId: string } | { appealId: string };
    moderatorId: string;
    note: string;
  },
  policy: MisusePolicy,
  now: Date,
): Promise<{ marks: number; measure: MeasureRow | null }> {
  const key = mark.sender.key;
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 37))', [key]);
  await db.query(
    `INSERT INTO misuse_marks (sender_key, offense_id, appeal_id, moderator_id, note, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      key,
      'offenseId' in mark.subject ? mark.subject.offenseId : null,
      'appealId' in mark.subject ? mark.subject.appealId : null,
      mark.moderatorId,
      mark.note,
      now,
    ],
  );
  const { rows } = await db.query<{ marks: number; warned: boolean; suspended: boolean }>(
    `WITH last AS (SELECT max(created_at) AS at FROM misuse_measures WHERE sender_key = $1 AND kind = 'suspension')
     SELECT (SELECT count(*)::int FROM misuse_marks m
              WHERE m.sender_key = $1 AND m.created_at > $2::timestamptz - make_interval(days => $3)
                AND m.created_at > coalesce((SELECT at FROM last), '-infinity')) AS marks,
            EXISTS (SELECT 1 FROM misuse_measures w WHERE w.sender_key = $1 AND w.kind = 'warning'
                       AND w.created_at > coalesce((SELECT at FROM last), '-infinity')) AS warned,
            EXISTS (SELECT 1 FROM misuse_measures s WHERE s.sender_key = $1 AND s.kind = 'suspension'
                       AND s.lifted_at IS NULL AND s.ends_at > $2) AS suspended`,
    [key, now, policy.windowDays],
  );
  const { marks, warned, suspended } = rows[0]!;
  const kind =
    suspended || marks < policy.warnAfter
      ? null
      : !warned
        ? 'warning'
        : marks >= policy.suspendAfter
          ? 'suspension'
          : null;
  if (!kind) return { marks, measure: null };
  const endsAt = kind === 'suspension' ? new Date(now.getTime() + policy.suspensionDays * 86_400_000) : null;
  const { rows: placed } = await db.query<MeasureRow>(
    `INSERT INTO misuse_measures (sender_key, kind, marks, created_at, ends_at) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${MEASURE_COLUMNS}`,
    [key, kind, marks, now, endsAt],
  );
  const sender = mark.sender;
  if (kind === 'suspension' && sender.kind === 'reporter')
    // A game's reporter is suspended by a mute that ends by itself (pt_file_reports reads muted_until).
    await db.query(
      `INSERT INTO reporters (studio_id, reporter_id, muted_at, muted_by, mute_note, muted_until, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (studio_id, reporter_id) DO UPDATE
         SET muted_at = EXCLUDED.muted_at, muted_by = EXCLUDED.muted_by, mute_note = EXCLUDED.mute_note,
             muted_until = EXCLUDED.muted_until, updated_at = now()`,
      [
        sender.studioId,
        sender.reporterId,
        now,
        mark.moderatorId,
        `Suspended under DSA Art. 23 after ${marks} manifestly unfounded reports, until ${endsAt!.toISOString()}.`,
        endsAt,
      ],
    );
  return { marks, measure: placed[0]! };
}

/**
 * A notifier's complaint granted: the dismissal it reversed no longer stands, so a mark of that
 * notice as manifestly unfounded is withdrawn (the measures already taken stay, for an admin to
 * lift). Whether one was.
 */
export async function withdrawMark(db: Queryable, offenseId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM misuse_marks WHERE offense_id = $1', [offenseId]);
  return (rowCount ?? 0) > 0;
}

/**
 * Where senders stand under Art. 23, in one statement: the suspension in force for any of `keys`
 * (the latest-ending), and the warning the first of them has had since its last suspension within the
 * window. Null for either when there is none.
 */
export async function senderStanding(
  db: Queryable,
  keys: readonly string[],
  windowDays: number,
  now: Date,
): Promise<{ suspension: MeasureRow | null; warning: MeasureRow | null }> {
  const { rows } = await db.query<MeasureRow & { what: 'suspension' | 'warning' }>(
    `(SELECT 'suspension' AS what, ${MEASURE_COLUMNS} FROM misuse_measures
       WHERE sender_key = ANY ($1::text[]) AND kind = 'suspension' AND lifted_at IS NULL AND ends_at > $2
       ORDER BY ends_at DESC LIMIT 1)
     UNION ALL
     (SELECT 'warning', ${MEASURE_COLUMNS} FROM misuse_measures w
       WHERE w.sender_key = $1[1] AND w.kind = 'warning' AND w.created_at > $2::timestamptz - make_interval(days => $3)
         AND NOT EXISTS (SELECT 1 FROM misuse_measures s WHERE s.sender_key = $1[1] AND s.kind = 'suspension'
                           AND s.created_at > w.created_at)
       ORDER BY w.created_at DESC LIMIT 1)`,
    [keys, now, windowDays],
  );
  return {
    suspension: rows.find((r) => r.what === 'suspension') ?? null,
    warning: rows.find((r) => r.what === 'warning') ?? null,
  };
}

/**
 * Lifts a suspension in force (an admin, with a note): the measure row, locked; a game reporter's
 * mute that this suspension placed ends with it. Undefined when there is no such suspension in force.
 */
export async function recordLift(
  db: Queryable,
  id: string,
  lift: { by: string; note: string; at: Date },
): Promise<MeasureRow | undefined> {
  const { rows } = await db.query<MeasureRow>(
    `UPDATE misuse_measures SET lifted_at = $2, lifted_by = $3, lift_note = $4
      WHERE id = $1 AND kind = 'suspension' AND lifted_at IS NULL AND ends_at > $2
      RETURNING ${MEASURE_COLUMNS}`,
    [id, lift.at, lift.by, lift.note],
  );
  const m = rows[0];
  if (!m) return undefined;
  const sender = senderOfKey(m.sender_key);
  if (sender.kind === 'reporter')
    await db.query(
      `UPDATE reporters SET muted_at = NULL, muted_by = NULL, mute_note = NULL, muted_until = NULL, updated_at = now()
        WHERE studio_id = $1 AND reporter_id = $2 AND muted_until = $3`,
      [sender.studioId, sender.reporterId, m.ends_at],
    );
  return m;
}

/**
 * Retention (common/lifecycles/retention.ts, with the audit log's window): at most $1 marks made, and $1
 * measures over (a warning's time, a suspension's end), before $2 are deleted; `n` how many.
 */
export const DROP_OLD_MISUSE_RECORDS = `WITH m AS (DELETE FROM misuse_marks WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM misuse_marks WHERE created_at < $2 ORDER BY created_at LIMIT $1)) RETURNING 1),
   x AS (DELETE FROM misuse_measures WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM misuse_measures WHERE coalesce(ends_at, created_at) < $2 ORDER BY created_at LIMIT $1)) RETURNING 1)
  SELECT ((SELECT count(*) FROM m) + (SELECT count(*) FROM x))::int AS n`;

export { type MeasureRow } from '../data/shapes/misuse.js';

/**
 * A moderator mutes or unmutes a studio's reporter by hand (creating its row); undefined when the studio
 * does not exist. A mute by hand has no end and replaces an Art. 23 suspension's; unmuting ends both.
 */
export async function setReporterMuted(
  db: Queryable,
  input: { studioId: string; reporterId: string; muted: boolean; moderatorId: string; note: string | null },
): Promise<ReporterRecord | undefined> {
  const { rows } = await db.query<ReporterRow>(
    `INSERT INTO reporters (studio_id, reporter_id, muted_at, muted_by, mute_note)
     SELECT s.id, $2, CASE WHEN $3 THEN now() END, CASE WHEN $3 THEN $4::uuid END, CASE WHEN $3 THEN $5 END
       FROM studios s WHERE s.id = $1
     ON CONFLICT (studio_id, reporter_id) DO UPDATE SET
       muted_at = CASE WHEN $3 THEN coalesce(reporters.muted_at, now()) END,
       muted_by = CASE WHEN $3 THEN $4::uuid END, mute_note = CASE WHEN $3 THEN $5 END, updated_at = now(),
       -- A mute by hand has no end: it replaces an Art. 23 suspension's (and unmuting ends that too).
       muted_until = NULL
     RETURNING studio_id, reporter_id, upheld, dismissed, muted_at, mute_note, muted_until`,
    [input.studioId, input.reporterId, input.muted, input.moderatorId, input.note],
  );
  return rows[0] && reporterFromRow(rows[0]);
}
