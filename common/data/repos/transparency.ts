import type { Queryable } from '../db.js';
import { NAMED_ORIGINS_SQL } from '../render.js';
import { isUuid } from '../../domain/ids.js';
import type { ReportOrigin, SanctionDecision, TdbCategory } from '../../domain/decision-record.js';
import type { SanctionType } from '../../domain/sanctions.js';
import type { OffenseType, Severity } from '../../domain/reports.js';

/** A platform's account at the Transparency Database (migration 033): `operator`, or a studio's id. */
export interface TransparencyAccount {
  platform: string;
  mode: 'submit' | 'dry-run';
  baseUrl: string | null;
  tokenSealed: Buffer | null;
  createdAt: Date;
  updatedAt: Date;
}

interface AccountRow {
  platform: string;
  mode: 'submit' | 'dry-run';
  base_url: string | null;
  token_sealed: Buffer | null;
  created_at: Date;
  updated_at: Date;
}

const account = (r: AccountRow): TransparencyAccount => ({
  platform: r.platform,
  mode: r.mode,
  baseUrl: r.base_url,
  tokenSealed: r.token_sealed,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function listAccounts(db: Queryable): Promise<TransparencyAccount[]> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM transparency_accounts ORDER BY platform');
  return rows.map(account);
}

export async function findAccount(db: Queryable, platform: string): Promise<TransparencyAccount | undefined> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM transparency_accounts WHERE platform = $1', [
    platform,
  ]);
  return rows[0] && account(rows[0]);
}

export async function saveAccount(
  db: Queryable,
  a: { platform: string; mode: 'submit' | 'dry-run'; baseUrl: string | null; tokenSealed: Buffer | null },
): Promise<{ account: TransparencyAccount; created: boolean }> {
  const { rows } = await db.query<AccountRow & { created: boolean }>(
    `INSERT INTO transparency_accounts (platform, mode, base_url, token_sealed) VALUES ($1, $2, $3, $4)
     ON CONFLICT (platform) DO UPDATE SET mode = excluded.mode, base_url = excluded.base_url,
            token_sealed = excluded.token_sealed, updated_at = now()
     RETURNING *, (xmax = 0) AS created`,
    [a.platform, a.mode, a.baseUrl, a.tokenSealed],
  );
  return { account: account(rows[0]!), created: rows[0]!.created };
}

export async function deleteAccount(db: Queryable, platform: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM transparency_accounts WHERE platform = $1', [platform]);
  return (rowCount ?? 0) > 0;
}

/**
 * The decision record of a sanction just placed, from its rows in the placing transaction
 * (common/lifecycles/decision-record.ts stores it): the sanction, the scope's studio name, the rule by
 * name and version, the wave (its size, approved or not), and its case's kind, severity, first
 * report, where its reports came from and the categories its notices named. Who decided is the
 * placer's word (`decidedBy`), never read back from what anyone wrote. Nothing anyone wrote is read.
 */
export async function composeSanctionDecision(
  db: Queryable,
  sanctionId: string,
  decidedBy: SanctionDecision['decidedBy'],
): Promise<SanctionDecision> {
  const { rows } = await db.query<{
    id: string;
    type: SanctionType;
    scope_studio_id: string | null;
    scope_name: string | null;
    starts_at: Date;
    expires_at: Date | null;
    matches_total: number | null;
    matches_left: number | null;
    created_at: Date;
    rule_id: string | null;
    rule_name: string | null;
    rule_version: number | null;
    wave_id: string | null;
    wave_size: number | null;
    wave_approved: boolean | null;
    case_type: OffenseType | null;
    case_severity: Severity | null;
    first_report_at: Date | null;
    origins: ReportOrigin[] | null;
    categories: string[] | null;
    dsa_category: string | null;
  }>(
    `SELECT s.id, s.type, s.scope_studio_id, st.name AS scope_name, s.starts_at, s.expires_at, s.created_at,
            s.matches_total, s.matches_left, s.dsa_category, s.rule_id, r.name AS rule_name, s.rule_version,
            s.wave_id, w.size AS wave_size, w.approved_by_moderator IS NOT NULL AS wave_approved,
            c.type AS case_type, c.highest_severity AS case_severity, c.categories, o.first_report_at, o.origins
       FROM sanctions s
       LEFT JOIN studios st ON st.id = s.scope_studio_id
       LEFT JOIN rules r ON r.id = s.rule_id
       LEFT JOIN waves w ON w.id = s.wave_id
       LEFT JOIN review_cases c ON c.id = s.case_id
       LEFT JOIN LATERAL (
         SELECT min(x.created_at) AS first_report_at,
                array_agg(DISTINCT CASE
                  WHEN x.context->>'source' IN (${NAMED_ORIGINS_SQL})
                    THEN x.context->>'source'
                  WHEN x.reporter_id IS NOT NULL THEN 'player'
                  ELSE 'game' END) AS origins
           FROM case_offenses co JOIN offenses x ON x.id = co.offense_id
          WHERE co.case_id = s.case_id) o ON s.case_id IS NOT NULL
      WHERE s.id = $1`,
    [sanctionId],
  );
  const r = rows[0];
  if (!r) throw new Error(`sanction ${sanctionId} is not there to record its decision`);
  return {
    sanctionId: r.id,
    type: r.type,
    scope: r.scope_studio_id ? 'studio' : 'global',
    scopeName: r.scope_name,
    startsAt: r.starts_at,
    expiresAt: r.expires_at,
    matches: r.matches_total === null ? null : { total: r.matches_total, left: r.matches_left! },
    createdAt: r.created_at,
    category: (r.dsa_category as TdbCategory | null) ?? null,
    decidedBy,
    rule:
      r.rule_version !== null
        ? { id: r.rule_id ?? undefined, name: r.rule_name ?? 'a rule', version: r.rule_version }
        : null,
    wave:
      r.wave_size !== null
        ? { id: r.wave_id ?? undefined, size: r.wave_size, approved: r.wave_approved ?? false }
        : null,
    extendedFrom: null,
    case:
      r.case_type && r.case_severity
        ? {
            type: r.case_type,
            severity: r.case_severity,
            firstReportAt: r.first_report_at ?? r.created_at,
            origins: r.origins ?? [],
            categories: (r.categories ?? []) as TdbCategory[],
          }
        : null,
  };
}

/** A record as stored (JSON): its times are strings. */
type StoredSanctionDecision = Omit<SanctionDecision, 'startsAt' | 'expiresAt' | 'createdAt' | 'case'> & {
  startsAt: string;
  expiresAt: string | null;
  createdAt: string;
  case: (Omit<NonNullable<SanctionDecision['case']>, 'firstReportAt'> & { firstReportAt: string }) | null;
};

/**
 * The stored decision records of sanctions (migration 059), by sanction id: one read, by the records'
 * unique key. What became of a sanction since its decision is read beside it from the sanction, never
 * written into the record: the end a restriction counted in matches reached with its last match, and
 * the matches left (a revocation is the caller's to read, as its reason is).
 */
export async function sanctionDecisions(
  db: Queryable,
  sanctionIds: readonly string[],
): Promise<Map<string, SanctionDecision>> {
  const out = new Map<string, SanctionDecision>();
  if (sanctionIds.length === 0) return out;
  const { rows } = await db.query<{
    record: StoredSanctionDecision;
    expires_at: Date | null;
    matches_left: number | null;
  }>(
    `SELECT d.record, s.expires_at, s.matches_left
       FROM unnest($1::uuid[]) AS k(id)
       JOIN decision_records d ON d.kind = 'sanction' AND d.subject_id = k.id
       JOIN sanctions s ON s.id = k.id`,
    [sanctionIds],
  );
  for (const { record: r, expires_at, matches_left } of rows) {
    out.set(r.sanctionId, {
      ...r,
      startsAt: new Date(r.startsAt),
      createdAt: new Date(r.createdAt),
      expiresAt: r.matches ? expires_at : r.expiresAt === null ? null : new Date(r.expiresAt),
      matches: r.matches ? { total: r.matches.total, left: matches_left ?? 0 } : null,
      case: r.case ? { ...r.case, firstReportAt: new Date(r.case.firstReportAt) } : null,
    });
  }
  return out;
}

/** A statement's row (migration 033), as the admin screens read it. */
export interface StatementRow {
  id: string;
  sanction_id: string;
  platform: string;
  puid: string;
  state: 'pending' | 'sent' | 'refused';
  tdb_uuid: string | null;
  permalink: string | null;
  dry_run: boolean;
  refusal: unknown;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
  sent_at: Date | null;
  refused_at: Date | null;
  body: unknown;
}

/**
 * Statements in the given states: the refused newest first, the pending oldest first, the sent newest
 * first, each list at most `limit` (the partial indexes of migration 033 serve the first two).
 */
export async function findStatements(
  db: Queryable,
  q: { states: readonly string[]; platform: string | null; limit: number; dryRun?: boolean | null },
): Promise<StatementRow[]> {
  const { rows } = await db.query<StatementRow>(
    `(SELECT * FROM transparency_statements WHERE state = 'refused' AND 'refused' = ANY($1)
        AND ($2::text IS NULL OR platform = $2) ORDER BY refused_at DESC LIMIT $3)
     UNION ALL
     (SELECT * FROM transparency_statements WHERE state = 'pending' AND 'pending' = ANY($1)
        AND ($2::text IS NULL OR platform = $2) ORDER BY created_at LIMIT $3)
     UNION ALL
     (SELECT * FROM transparency_statements WHERE state = 'sent' AND 'sent' = ANY($1)
        AND ($2::text IS NULL OR platform = $2) AND ($4::boolean IS NULL OR dry_run = $4)
      ORDER BY sent_at DESC LIMIT $3)`,
    [q.states, q.platform, q.limit, q.dryRun ?? null],
  );
  return rows;
}

/** How many statements are pending and refused, and since when the oldest pending waits. */
export async function statementCounts(
  db: Queryable,
): Promise<{ pending: number; refused: number; oldestPending: Date | null }> {
  const { rows } = await db.query<{ pending: number; refused: number; oldest: Date | null }>(
    `SELECT (SELECT count(*)::int FROM transparency_statements WHERE state = 'pending') AS pending,
            (SELECT count(*)::int FROM transparency_statements WHERE state = 'refused') AS refused,
            (SELECT min(created_at) FROM transparency_statements WHERE state = 'pending') AS oldest`,
  );
  const c = rows[0]!;
  return { pending: c.pending, refused: c.refused, oldestPending: c.oldest };
}

/** The player (service id) each sanction is about, by sanction id. */
export async function playersOfSanctions(
  db: Queryable,
  sanctionIds: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; service_id: string }>(
    'SELECT s.id, p.service_id FROM sanctions s JOIN players p ON p.id = s.player_id WHERE s.id = ANY($1::uuid[])',
    [sanctionIds],
  );
  return new Map(rows.map((r) => [r.id, r.service_id]));
}

/** The statements of these sanctions (at most one each). */
export async function findStatementsOfSanctions(
  db: Queryable,
  sanctionIds: readonly string[],
): Promise<StatementRow[]> {
  const { rows } = await db.query<StatementRow>(
    'SELECT * FROM transparency_statements WHERE sanction_id = ANY($1::uuid[])',
    [sanctionIds],
  );
  return rows;
}

/** A statement's state, or undefined when there is no such statement. */
export async function stateOfStatement(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ state: string }>(
    'SELECT state FROM transparency_statements WHERE id = $1',
    [id],
  );
  return rows[0]?.state;
}

/**
 * Restrictions that owe no statement because their platform had no account when they were placed
 * (the operator's for global ones, the studio's for one scoped to its games), by platform: how many,
 * and the first and last placed. Read when an admin opens the accounts (not on every poll): a scan of
 * the restrictions, answered by the statements' unique sanction index.
 */
export async function restrictionsOwedNowhere(
  db: Queryable,
): Promise<{ platform: string; restrictions: number; first: Date; last: Date }[]> {
  const { rows } = await db.query<{ platform: string; restrictions: number; first: Date; last: Date }>(
    `SELECT coalesce(s.scope_studio_id::text, 'operator') AS platform, count(*)::int AS restrictions,
            min(s.created_at) AS first, max(s.created_at) AS last
       FROM sanctions s
      WHERE s.type <> 'warning'
        AND NOT EXISTS (SELECT 1 FROM transparency_statements t WHERE t.sanction_id = s.id)
      GROUP BY 1 ORDER BY 1`,
  );
  return rows;
}

/** The names of the studios among these platforms (`operator` is no studio). */
export async function studioNames(db: Queryable, platforms: readonly string[]): Promise<Map<string, string>> {
  const ids = platforms.filter(isUuid);
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; name: string }>(
    'SELECT id::text, name FROM studios WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}
