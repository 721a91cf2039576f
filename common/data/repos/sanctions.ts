import type { TdbCategory } from '../../domain/transparency-statement.js';
import { HONOR_LEVEL_SQL } from './honor.js';
import { SUSPECTED } from './signals.js';
import type { Queryable } from '../db.js';
import type { SanctionType } from '../../domain/sanctions.js';

export { SANCTION_TYPES, type SanctionType } from '../../domain/sanctions.js';

export interface SanctionRecord {
  id: string;
  serviceId: string;
  type: SanctionType;
  /** null: global; otherwise the studio whose games it applies to. */
  scopeStudioId: string | null;
  reason: string;
  caseId: string | null;
  issuedBy: { kind: 'moderator'; id: string } | { kind: 'studio'; id: string };
  startsAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedBy: { kind: 'moderator' | 'studio'; id: string } | null;
  revokeReason: string | null;
  createdAt: Date;
  /** The Transparency Database category chosen instead of the case kind's (null: the kind's). */
  dsaCategory: TdbCategory | null;
  /** The rule (and its version) that placed it on its own (docs/moderators.md "Rules"); null otherwise. */
  rule: { id: string; version: number } | null;
  /**
   * A restriction counted in matches (docs/moderators.md "Sanctions"): how many it lasts and how many
   * finished matches are left (0: ended); null: it lasts a time.
   */
  matches: { total: number; left: number } | null;
  /** Started, not expired and not revoked at the time of the read. */
  active: boolean;
  /** Internal: the full-precision sort key of the listing's cursor. */
  cursorTs: string;
}

export interface SanctionRow {
  id: string;
  service_id: string;
  type: SanctionType;
  scope_studio_id: string | null;
  reason: string;
  case_id: string | null;
  issued_by_moderator: string | null;
  issued_by_studio: string | null;
  starts_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_by_moderator: string | null;
  revoked_by_studio: string | null;
  revoke_reason: string | null;
  created_at: Date;
  dsa_category: TdbCategory | null;
  rule_id: string | null;
  rule_version: number | null;
  matches_total: number | null;
  matches_left: number | null;
  active: boolean;
  cursor_ts: string;
}

/** SQL: the sanction `s` is active at `now`: the one definition every read uses. */
export const ACTIVE = (now: string) =>
  `(s.revoked_at IS NULL AND s.starts_at <= ${now} AND (s.expires_at IS NULL OR s.expires_at > ${now}))`;

/**
 * SQL: the studio `viewer` may see the sanction `s` (a null viewer, a moderator, sees all): global
 * ones and its own studio's.
 */
export const VISIBLE_TO = (viewer: string) =>
  `(${viewer} IS NULL OR s.scope_studio_id IS NULL OR s.scope_studio_id = ${viewer})`;
export const COLUMNS = (now: string) => `s.id, p.service_id, s.type, s.scope_studio_id, s.reason, s.case_id,
  s.issued_by_moderator, s.issued_by_studio, s.starts_at, s.expires_at, s.revoked_at, s.revoked_by_moderator,
  s.revoked_by_studio, s.revoke_reason, s.created_at, s.dsa_category, s.rule_id, s.rule_version, s.matches_total, s.matches_left, ${ACTIVE(now)} AS active,
  to_json(s.created_at)#>>'{}' AS cursor_ts`;

/**
 * SQL: a sanction's columns with who placed it by name (a moderator's username or a studio's name)
 * and the studio it is limited to by name, and the FROM that joins them; a WHERE follows.
 */
const NAMED = (
  now: string,
) => `${COLUMNS(now)}, coalesce(m.username, st.name) AS issued_by_name, sc.name AS scope_name
   FROM sanctions s JOIN players p ON p.id = s.player_id
   LEFT JOIN moderators m ON m.id = s.issued_by_moderator
   LEFT JOIN studios st ON st.id = s.issued_by_studio
   LEFT JOIN studios sc ON sc.id = s.scope_studio_id`;

export const fromRow = (r: SanctionRow): SanctionRecord => ({
  id: r.id,
  serviceId: r.service_id,
  type: r.type,
  scopeStudioId: r.scope_studio_id,
  reason: r.reason,
  caseId: r.case_id,
  issuedBy: r.issued_by_moderator
    ? { kind: 'moderator', id: r.issued_by_moderator }
    : { kind: 'studio', id: r.issued_by_studio! },
  startsAt: r.starts_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  revokedBy: r.revoked_by_moderator
    ? { kind: 'moderator', id: r.revoked_by_moderator }
    : r.revoked_by_studio
      ? { kind: 'studio', id: r.revoked_by_studio }
      : null,
  revokeReason: r.revoke_reason,
  createdAt: r.created_at,
  dsaCategory: r.dsa_category,
  rule: r.rule_id ? { id: r.rule_id, version: r.rule_version! } : null,
  matches: r.matches_total === null ? null : { total: r.matches_total, left: r.matches_left! },
  active: r.active,
  cursorTs: r.cursor_ts,
});

export interface NewSanction {
  playerRowId: string;
  type: SanctionType;
  scopeStudioId: string | null;
  reason: string;
  caseId: string | null;
  issuedBy: { kind: 'moderator' | 'studio'; id: string };
  startsAt: Date;
  expiresAt: Date | null;
  /** The Transparency Database category chosen instead of the case kind's. */
  dsaCategory?: string | null;
  /** The ban wave that placed it (common/lifecycles/wave.ts). */
  waveId?: string | null;
  /** The rule and version that placed it (common/usecases/rules.ts). */
  rule?: { id: string; version: number } | null;
  /** The sanction on a strongly linked account this one extends (docs/linked-accounts.md). */
  extendedFrom?: string | null;
  /** Lasts this many finished matches instead of a time (expiresAt null until they are played). */
  matches?: number | null;
}

/** The sanctions in force that rules placed with a case, locked for the caller's transaction. */
export async function ruleSanctionsOfCase(
  db: Queryable,
  caseId: string,
  now: Date,
): Promise<SanctionRecord[]> {
  const { rows } = await db.query<SanctionRow>(
    `SELECT ${COLUMNS('$2::timestamptz')} FROM sanctions s JOIN players p ON p.id = s.player_id
      WHERE s.case_id = $1 AND s.rule_id IS NOT NULL AND s.revoked_at IS NULL
        AND (s.expires_at IS NULL OR s.expires_at > $2)
      ORDER BY s.created_at FOR UPDATE OF s`,
    [caseId, now],
  );
  return rows.map(fromRow);
}

/**
 * Whether this rule already sanctioned this case (not revoked): a rule sanctions a case once. Read by
 * the rule and the case, never by the clock: a weighing that waited for the rule's lock began before
 * the other placed its sanction, so that sanction's start is after its `now()`, and "active" would
 * miss it (two were placed under load).
 */
export async function ruleSanctionedCase(db: Queryable, ruleId: string, caseId: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM sanctions WHERE case_id = $1 AND rule_id = $2 AND revoked_at IS NULL LIMIT 1',
    [caseId, ruleId],
  );
  return rows.length > 0;
}

/** A sanction by id (of this player, or null: whosever it is), locked for the caller's transaction. */
export async function findSanctionForUpdate(
  db: Queryable,
  serviceId: string | null,
  id: string,
  now: Date,
): Promise<(SanctionRecord & { playerRowId: string }) | undefined> {
  const { rows } = await db.query<SanctionRow & { player_id: string }>(
    `SELECT ${COLUMNS('$3::timestamptz')}, s.player_id FROM sanctions s JOIN players p ON p.id = s.player_id
      WHERE ($1::text IS NULL OR p.service_id = $1) AND s.id = $2 FOR UPDATE OF s`,
    [serviceId, id, now],
  );
  return rows[0] && { ...fromRow(rows[0]), playerRowId: rows[0].player_id };
}

/**
 * The sanctions one decision placed that still hold (not revoked, not ended at `now`): a case's (the
 * moderator's sanction with the uphold and the strike ladder's on its strike), and `sanctionId` itself
 * when given and not revoked (ended or not: it is what an appeal names). What a granted appeal of that decision undoes; `lock` takes their rows for the caller's
 * transaction. Read through the player's unrevoked-sanctions index: a player has few.
 */
export async function sanctionsOfDecision(
  db: Queryable,
  decision: { playerRowId: string; caseId: string | null; sanctionId?: string },
  now: Date,
  lock = false,
): Promise<(SanctionRecord & { issuedByName: string; scopeName: string | null })[]> {
  const { rows } = await db.query<SanctionRow & { issued_by_name: string; scope_name: string | null }>(
    `SELECT ${NAMED('$4::timestamptz')}
      WHERE s.player_id = $1 AND s.revoked_at IS NULL
        AND (s.id = $3 OR (s.case_id = $2 AND (s.expires_at IS NULL OR s.expires_at > $4)))
      ORDER BY s.created_at, s.id${lock ? ' FOR UPDATE OF s' : ''}`,
    [decision.playerRowId, decision.caseId, decision.sanctionId ?? null, now],
  );
  return rows.map((r) => ({ ...fromRow(r), issuedByName: r.issued_by_name, scopeName: r.scope_name }));
}

/**
 * The sanctions placed on a player in a window (a stolen account's: docs/moderators.md "Appeals"), still in force
 * or yet to start at `now`, locked; with who placed them by name, as sanctionsOfDecision answers.
 */
export async function sanctionsPlacedBetween(
  db: Queryable,
  playerRowId: string,
  window: { from: Date; to: Date },
  now: Date,
): Promise<(SanctionRecord & { issuedByName: string; scopeName: string | null })[]> {
  const { rows } = await db.query<SanctionRow & { issued_by_name: string; scope_name: string | null }>(
    `SELECT ${NAMED('$4::timestamptz')}
      WHERE s.player_id = $1 AND s.revoked_at IS NULL AND s.created_at >= $2 AND s.created_at <= $3
        AND (s.expires_at IS NULL OR s.expires_at > $4)
      ORDER BY s.created_at, s.id FOR UPDATE OF s`,
    [playerRowId, window.from, window.to, now],
  );
  return rows.map((r) => ({ ...fromRow(r), issuedByName: r.issued_by_name, scopeName: r.scope_name }));
}

/** Whether the strike of a case (its uphold's) still counts at `now`: not removed, not expired. */
export async function hasActiveStrike(db: Queryable, caseId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM strikes WHERE case_id = $1 AND removed_at IS NULL AND expires_at > $2',
    [caseId, now],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * A player's sanctions a viewer may see (`viewerStudioId` null: a moderator sees all; a studio sees
 * global ones and its own studio's), newest first, keyset-paginated; undefined when no such player.
 */
export async function listSanctions(
  db: Queryable,
  input: {
    serviceId: string;
    viewerStudioId: string | null;
    activeOnly: boolean;
    limit: number;
    after?: { ts: string; id: string } | undefined;
    now: Date;
  },
): Promise<{ items: SanctionRecord[]; next: { ts: string; id: string } | null } | undefined> {
  const { rows } = await db.query<SanctionRow & { player_exists: boolean }>(
    `SELECT ${COLUMNS('$6::timestamptz')}
       FROM players p JOIN sanctions s ON s.player_id = p.id
      WHERE p.service_id = $1
        AND ${VISIBLE_TO('$2::uuid')}
        AND (NOT $3 OR ${ACTIVE('$6::timestamptz')})
        AND ($4::timestamptz IS NULL OR (s.created_at, s.id) < ($4::timestamptz, $5::uuid))
      ORDER BY s.created_at DESC, s.id DESC LIMIT $7`,
    [
      input.serviceId,
      input.viewerStudioId,
      input.activeOnly,
      input.after?.ts ?? null,
      input.after?.id ?? null,
      input.now,
      input.limit + 1,
    ],
  );
  if (rows.length === 0) {
    const exists = await db.query('SELECT 1 FROM players WHERE service_id = $1', [input.serviceId]);
    if (!exists.rowCount) return undefined;
  }
  const items = rows.slice(0, input.limit).map(fromRow);
  const last = items[items.length - 1];
  return {
    items,
    next: rows.length > input.limit && last ? { ts: last.cursorTs, id: last.id } : null,
  };
}

export interface LookupEntry {
  serviceId: string;
  trustScore: number;
  activeSanctions: {
    id: string;
    type: SanctionType;
    scopeStudioId: string | null;
    expiresAt: Date | null;
    /** Counted in matches: the finished matches left (null: it lasts a time). */
    matchesLeft: number | null;
  }[];
  /** The caller's signals link the player strongly to an account under a ban in force (docs/studios.md "Linked accounts"). */
  evasionSuspected: boolean;
  /** The player's honor level, 0 to 5 (docs/studios.md "Commendations and honor"). */
  honorLevel: number;
}

/**
 * The lobby check: for each known id its score and the sanctions active now that the viewer may see,
 * in one statement however many ids (up to the caller's bound).
 */
export async function lookupPlayers(
  db: Queryable,
  serviceIds: readonly string[],
  viewerStudioId: string,
  now: Date,
): Promise<LookupEntry[]> {
  const { rows } = await db.query<{
    service_id: string;
    trust_score: number;
    sanctions: {
      id: string;
      type: SanctionType;
      scope: string | null;
      expiresAt: string | null;
      matchesLeft: number | null;
    }[];
    suspected: boolean;
    honor: number;
  }>({
    name: 'lookup-players',
    text: `SELECT p.service_id, p.trust_score,
              coalesce((SELECT json_agg(json_build_object('id', s.id, 'type', s.type, 'scope', s.scope_studio_id,
                                                          'expiresAt', s.expires_at, 'matchesLeft', s.matches_left)
                                        ORDER BY s.expires_at NULLS FIRST, s.id)
                          FROM sanctions s
                         WHERE s.player_id = p.id AND ${ACTIVE('$3')}
                           AND (s.scope_studio_id IS NULL OR s.scope_studio_id = $2)), '[]') AS sanctions,
              ${SUSPECTED('p.id', '$2', '$3')} AS suspected, ${HONOR_LEVEL_SQL('p.id')} AS honor
         FROM players p WHERE p.service_id = ANY($1::text[])`,
    values: [[...new Set(serviceIds)], viewerStudioId, now],
  });
  return rows.map((r) => ({
    serviceId: r.service_id,
    trustScore: r.trust_score,
    evasionSuspected: r.suspected,
    honorLevel: r.honor,
    activeSanctions: r.sanctions.map((s) => ({
      id: s.id,
      type: s.type,
      scopeStudioId: s.scope,
      expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt),
      matchesLeft: s.matchesLeft,
    })),
  }));
}

/**
 * Why a sanction is not extended to this account: it already has one extended from it (whatever
 * became of it: an alt's granted appeal is not undone by extending again), or it is already under a
 * sanction of the same type and scope in force.
 */
export async function extensionBlocked(
  db: Queryable,
  playerRowId: string,
  original: { id: string; type: string; scopeStudioId: string | null },
  now: Date,
): Promise<'already_extended' | 'already_sanctioned' | undefined> {
  const { rows } = await db.query<{ extended: boolean; sanctioned: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM sanctions s WHERE s.player_id = $1 AND s.extended_from = $2) AS extended,
            EXISTS (SELECT 1 FROM sanctions s WHERE s.player_id = $1 AND s.type = $3
                       AND s.scope_studio_id IS NOT DISTINCT FROM $4::uuid AND ${ACTIVE('$5')}) AS sanctioned`,
    [playerRowId, original.id, original.type, original.scopeStudioId, now],
  );
  return rows[0]!.extended ? 'already_extended' : rows[0]!.sanctioned ? 'already_sanctioned' : undefined;
}

/** One sanction by its id, with who placed it by name (a moderator's username or a studio's name). */
export async function findSanctionForModerator(
  db: Queryable,
  sanctionId: string,
  now: Date,
): Promise<{ sanction: SanctionRecord; issuedByName: string; scopeName: string | null } | undefined> {
  const { rows } = await db.query<SanctionRow & { issued_by_name: string; scope_name: string | null }>(
    `SELECT ${NAMED('$2::timestamptz')} WHERE s.id = $1`,
    [sanctionId, now],
  );
  const r = rows[0];
  return r && { sanction: fromRow(r), issuedByName: r.issued_by_name, scopeName: r.scope_name };
}

/** What announcing a sanction's expiry needs, under the sanction's row lock; undefined when none. */
export async function lockSanctionExpiry(
  db: Queryable,
  sanctionId: string,
): Promise<{ serviceId: string; expiresAt: Date | null; revoked: boolean; done: boolean } | undefined> {
  const { rows } = await db.query<{
    service_id: string;
    expires_at: Date | null;
    revoked: boolean;
    done: boolean;
  }>(
    `SELECT p.service_id, s.expires_at, s.revoked_at IS NOT NULL AS revoked, s.expiry_announced_at IS NOT NULL AS done
       FROM sanctions s JOIN players p ON p.id = s.player_id WHERE s.id = $1 FOR UPDATE OF s`,
    [sanctionId],
  );
  const r = rows[0];
  return r && { serviceId: r.service_id, expiresAt: r.expires_at, revoked: r.revoked, done: r.done };
}

/**
 * A player by service id, its row locked (FOR NO KEY UPDATE); with `studioId`, only a player of that
 * studio's games. Undefined when there is none.
 */
export async function lockPlayerOfStudio(
  db: Queryable,
  serviceId: string,
  studioId: string | null,
): Promise<{ rowId: string; serviceId: string } | undefined> {
  const { rows } = await db.query<{ id: string; service_id: string }>(
    `SELECT p.id, p.service_id FROM players p
      WHERE p.service_id = $1
        AND ($2::uuid IS NULL OR EXISTS (
              SELECT 1 FROM player_games pg JOIN games g ON g.id = pg.game_id
               WHERE pg.player_id = p.id AND g.studio_id = $2))
      FOR NO KEY UPDATE`,
    [serviceId, studioId],
  );
  return rows[0] && { rowId: rows[0].id, serviceId: rows[0].service_id };
}

/** When each of a player's strikes in force at `now` ends, soonest first. */
export async function strikesInForce(db: Queryable, playerRowId: string, now: Date): Promise<Date[]> {
  const { rows } = await db.query<{ expires_at: Date }>(
    `SELECT expires_at FROM strikes WHERE player_id = $1 AND removed_at IS NULL AND expires_at > $2
      ORDER BY expires_at`,
    [playerRowId, now],
  );
  return rows.map((r) => r.expires_at);
}
