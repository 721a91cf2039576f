import type { Queryable } from '../db.js';
import type { DecisionSource, RestrictionFacts, TdbCategory } from '../../domain/transparency-statement.js';
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
 * The facts of restrictions (by sanction id) their statements are written from: the sanction, who
 * decided it, and its case's kind, severity, first report, and where its reports came from. Nothing
 * anyone wrote is read.
 */
export async function restrictionFacts(
  db: Queryable,
  sanctionIds: readonly string[],
  strikeLadderReason: string,
): Promise<Map<string, RestrictionFacts>> {
  const { rows } = await db.query<{
    id: string;
    type: SanctionType;
    scope_studio_id: string | null;
    starts_at: Date;
    expires_at: Date | null;
    created_at: Date;
    by_moderator: boolean;
    by_ladder: boolean;
    case_type: OffenseType | null;
    case_severity: Severity | null;
    first_report_at: Date | null;
    automated: boolean | null;
    player_reports: boolean | null;
    dsa_category: string | null;
  }>(
    `SELECT s.id, s.type, s.scope_studio_id, s.starts_at, s.expires_at, s.created_at, s.dsa_category,
            s.issued_by_moderator IS NOT NULL AS by_moderator,
            (s.issued_by_moderator IS NOT NULL AND s.case_id IS NOT NULL AND starts_with(s.reason, $2)) AS by_ladder,
            c.type AS case_type, c.highest_severity AS case_severity, o.first_report_at, o.automated,
            o.player_reports
       FROM unnest($1::uuid[]) AS k(id)
       JOIN sanctions s ON s.id = k.id
       LEFT JOIN review_cases c ON c.id = s.case_id
       LEFT JOIN LATERAL (
         SELECT min(x.created_at) AS first_report_at,
                bool_or(x.context->>'source' IN ('anticheat_system', 'game_server')) AS automated,
                bool_or(x.context->>'source' = 'player'
                        OR (x.context->>'source' IS NULL AND x.reporter_id IS NOT NULL)) AS player_reports
           FROM case_offenses co JOIN offenses x ON x.id = co.offense_id
          WHERE co.case_id = s.case_id) o ON s.case_id IS NOT NULL`,
    [sanctionIds, strikeLadderReason],
  );
  const out = new Map<string, RestrictionFacts>();
  for (const r of rows) {
    const automated = r.automated ?? false;
    const source: DecisionSource = automated
      ? 'own_initiative'
      : r.player_reports
        ? 'player_report'
        : 'own_initiative';
    out.set(r.id, {
      sanctionId: r.id,
      type: r.type,
      scope: r.scope_studio_id ? 'studio' : 'global',
      startsAt: r.starts_at,
      expiresAt: r.expires_at,
      createdAt: r.created_at,
      category: (r.dsa_category as TdbCategory | null) ?? null,
      decidedBy: r.by_ladder ? 'strike_ladder' : r.by_moderator ? 'moderator' : 'studio',
      case:
        r.case_type && r.case_severity
          ? {
              type: r.case_type,
              severity: r.case_severity,
              firstReportAt: r.first_report_at ?? r.created_at,
              source,
              automatedDetection: automated,
            }
          : null,
    });
  }
  return out;
}
