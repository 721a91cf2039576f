import type { Queryable } from '../db.js';
import type { LimitOverrides } from '../../domain/limits.js';
import type { NoticeSource } from '../../domain/reports.js';
import type { TdbCategory } from '../../domain/transparency-statement.js';
import { STANDING_COLUMNS, STANDING_JOINS, type StandingFacts } from '../shapes/notice.js';
import type { FlaggerRow } from '../shapes/trusted-flagger.js';
import type { AppealStatus } from '../shapes/appeal.js';

/** The title of the game a notice names (for its notifier's mails). */
export async function gameTitleOfNotice(db: Queryable, noticeId: string): Promise<string> {
  const { rows } = await db.query<{ title: string }>(
    'SELECT g.title FROM notices n JOIN games g ON g.id = n.game_id WHERE n.id = $1',
    [noticeId],
  );
  return rows[0]?.title ?? '';
}

/** The offense a notice was filed as; undefined when there is no such notice. */
export async function offenseOfNotice(db: Queryable, noticeId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ offense_id: string }>('SELECT offense_id FROM notices WHERE id = $1', [
    noticeId,
  ]);
  return rows[0]?.offense_id;
}

/** A notice where it stands: its own columns, its game, its complaint and its offense's standing. */
export interface StandingRow extends StandingFacts {
  id: string;
  secret_hash: Buffer;
  category: TdbCategory;
  source: NoticeSource;
  created_at: Date;
  game_title: string;
  player_id: string;
  sender_key: string;
  complaint_id: string | null;
  complaint_status: AppealStatus | null;
  complaint_at: Date | null;
  complaint_decided_at: Date | null;
}

/** A notice `n` where it stands (StandingRow): its columns, and the tables they come from. */
const NOTICE_COLUMNS = `n.id, n.secret_hash, n.category, n.source, n.created_at, n.player_id, n.sender_key,
       g.title AS game_title, a.id AS complaint_id, a.status AS complaint_status, a.created_at AS complaint_at,
       a.decided_at AS complaint_decided_at, ${STANDING_COLUMNS}`;
const NOTICE_FROM = `notices n JOIN offenses o ON o.id = n.offense_id JOIN games g ON g.id = n.game_id ${STANDING_JOINS}
  LEFT JOIN appeals a ON a.notice_id = n.id`;
const STANDING_SELECT = `SELECT ${NOTICE_COLUMNS} FROM ${NOTICE_FROM}`;

/** A game a notice names: its studio and its limits; undefined when there is none. */
export async function gameForNotice(db: Queryable, gameId: string) {
  const { rows } = await db.query<{ studio_id: string; title: string; limits: LimitOverrides }>(
    'SELECT studio_id, title, limits FROM games WHERE id = $1',
    [gameId],
  );
  return rows[0];
}

/**
 * The player a notice names in a game (by service id, or by gamer tag in any case), not erased;
 * undefined when there is none.
 */
export async function playerOfGame(db: Queryable, gameId: string, player: string) {
  const { rows } = await db.query<{ service_id: string }>(
    `SELECT p.service_id FROM players p JOIN player_games pg ON pg.player_id = p.id
      WHERE pg.game_id = $1 AND p.erased_at IS NULL AND (p.service_id = $2 OR lower(p.gamer_tag) = lower($2))
      ORDER BY p.service_id = $2 DESC LIMIT 1`,
    [gameId, player],
  );
  return rows[0];
}

/** A notice where it stands (`lock`: its row locked); undefined when there is none. */
export async function noticeStandingRow(
  db: Queryable,
  id: string,
  lock = false,
): Promise<StandingRow | undefined> {
  const { rows } = await db.query<StandingRow>(
    `${STANDING_SELECT} WHERE n.id = $1${lock ? ' FOR UPDATE OF n' : ''}`,
    [id],
  );
  return rows[0];
}

/**
 * The notices filed as these offenses whose notifier gave an e-mail, where each stands, with the
 * facts of the last decision its notifier was written about (null: none yet): what tells a decision
 * owed a mail (common/lifecycles/notifier-mail.ts).
 */
export async function mailedNoticesOfOffenses(db: Queryable, offenseIds: readonly string[]) {
  if (offenseIds.length === 0) return [];
  const { rows } = await db.query<StandingRow & { told: Record<string, unknown> | null }>(
    `SELECT ${NOTICE_COLUMNS}, t.told FROM ${NOTICE_FROM}
       LEFT JOIN LATERAL (SELECT m.facts AS told FROM notifier_mails m
                           WHERE m.notice_id = n.id AND m.kind = 'notice_decided'
                           ORDER BY m.created_at DESC, m.id DESC LIMIT 1) t ON true
      WHERE n.offense_id = ANY($1::uuid[]) AND n.notifier_email IS NOT NULL`,
    [offenseIds],
  );
  return rows;
}

/** Where a studio's report that names a reporter stands; undefined for another's, or one without. */
export async function reportStanding(db: Queryable, offenseId: string, studioId: string) {
  const { rows } = await db.query<StandingFacts & { reporter_id: string }>(
    `SELECT o.reporter_id, ${STANDING_COLUMNS} FROM offenses o ${STANDING_JOINS}
      WHERE o.id = $1 AND o.studio_id = $2 AND o.reporter_id IS NOT NULL`,
    [offenseId, studioId],
  );
  return rows[0];
}

/** Notices (of one source, or all), newest first, keyset-paged on (received, id). */
export async function noticeRows(
  db: Queryable,
  source: NoticeSource | null,
  after: { ts: string; id: string } | undefined,
  limit: number,
) {
  const { rows } = await db.query<
    StandingRow & {
      offense_id: string;
      case_id: string | null;
      game_id: string;
      service_id: string;
      gamer_tag: string;
      flagger_name: string | null;
      marked: boolean;
      cursor_ts: string;
    }
  >(
    `SELECT ${NOTICE_COLUMNS}, n.offense_id, co.case_id, n.game_id, p.service_id, p.gamer_tag,
            f.name AS flagger_name, to_json(n.created_at)#>>'{}' AS cursor_ts,
            EXISTS (SELECT 1 FROM misuse_marks mm WHERE mm.offense_id = n.offense_id) AS marked
       FROM ${NOTICE_FROM} JOIN players p ON p.id = n.player_id
       LEFT JOIN trusted_flaggers f ON f.id = n.trusted_flagger_id
      WHERE ($1::text IS NULL OR n.source = $1)
        AND ($2::timestamptz IS NULL OR (n.created_at, n.id) < ($2::timestamptz, $3::uuid))
      ORDER BY n.created_at DESC, n.id DESC LIMIT $4`,
    [source, after?.ts ?? null, after?.id ?? null, limit],
  );
  return rows;
}

/** Every game: id and title, by title. */
export async function gameTitles(db: Queryable) {
  const { rows } = await db.query<{ id: string; title: string }>(
    'SELECT id, title FROM games ORDER BY title, id',
  );
  return rows;
}

/** Whether a trusted flagger is suspended; undefined when there is no such flagger. */
export async function flaggerSuspended(db: Queryable, id: string): Promise<boolean | undefined> {
  const { rows } = await db.query<{ suspended: boolean }>(
    'SELECT suspended_at IS NOT NULL AS suspended FROM trusted_flaggers WHERE id = $1',
    [id],
  );
  return rows[0]?.suspended;
}

/** Every trusted flagger with its accuracy: notices sent, decided, upheld. */
export async function flaggersWithAccuracy(db: Queryable) {
  const { rows } = await db.query<FlaggerRow & { notices: number; decided: number; upheld: number }>(
    `SELECT f.id, f.name, f.areas, f.coordinator, f.created_at, f.suspended_at, f.suspend_reason,
            count(n.id)::int AS notices,
            count(*) FILTER (WHERE c.status = 'resolved')::int AS decided,
            count(*) FILTER (WHERE c.status = 'resolved' AND c.outcome = 'upheld')::int AS upheld
       FROM trusted_flaggers f
       LEFT JOIN notices n ON n.trusted_flagger_id = f.id
       LEFT JOIN case_offenses co ON co.offense_id = n.offense_id
       LEFT JOIN review_cases c ON c.id = co.case_id
      GROUP BY f.id ORDER BY f.created_at, f.id`,
  );
  return rows;
}

/** The trusted flagger whose API key hashes to this; undefined when none. */
export async function flaggerByKeyHash(db: Queryable, keyHash: Buffer): Promise<FlaggerRow | undefined> {
  const { rows } = await db.query<FlaggerRow>(
    'SELECT id, name, areas, coordinator, created_at, suspended_at, suspend_reason FROM trusted_flaggers WHERE key_hash = $1',
    [keyHash],
  );
  return rows[0];
}
