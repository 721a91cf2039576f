import type { Queryable } from '../db.js';
import { STRONG_LINK, type SignalKind } from '../../domain/signals.js';
import type { SanctionType } from '../../domain/sanctions.js';
import type { OffenseType } from '../../domain/reports.js';
import { ACTIVE } from './sanctions.js';

/**
 * Reads of signals, links and evasion suspicions (common/lifecycles/signals.ts writes them).
 */

/** The studio's players among these service ids (linked to one of its games, not erased): id by service id. */
export async function studioPlayers(
  db: Queryable,
  studioId: string,
  serviceIds: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; service_id: string }>({
    name: 'signal-studio-players',
    text: `SELECT p.id, p.service_id FROM players p
      WHERE p.service_id = ANY($1::text[]) AND p.erased_at IS NULL
        AND EXISTS (SELECT 1 FROM player_games pg JOIN games g ON g.id = pg.game_id
                     WHERE pg.player_id = p.id AND g.studio_id = $2)`,
    values: [[...new Set(serviceIds)], studioId],
  });
  return new Map(rows.map((r) => [r.service_id, r.id]));
}

/** What the sign-in check files an evasion case with: the suspect's game of the studio and the ban. */
export interface EvasionFilingFacts {
  /** The suspect's game of this studio it was linked to last. */
  gameId: string;
  banType: SanctionType;
  banStartsAt: Date;
  /** The kind of the case the ban was decided on; null for a ban decided without one. */
  caseType: OffenseType | null;
}

/** The filing facts of each suspect and ban, by `${playerId}/${sanctionId}`. */
export async function evasionFilingFacts(
  db: Queryable,
  studioId: string,
  pairs: readonly { playerId: string; sanctionId: string }[],
): Promise<Map<string, EvasionFilingFacts>> {
  if (pairs.length === 0) return new Map();
  const { rows } = await db.query<{
    player_id: string;
    sanction_id: string;
    game_id: string;
    type: SanctionType;
    starts_at: Date;
    case_type: OffenseType | null;
  }>(
    `SELECT k.player_id, k.sanction_id, g.game_id, s.type, s.starts_at, c.type AS case_type
       FROM unnest($1::uuid[], $2::uuid[]) AS k(player_id, sanction_id)
       JOIN sanctions s ON s.id = k.sanction_id
       LEFT JOIN review_cases c ON c.id = s.case_id
       CROSS JOIN LATERAL (SELECT pg.game_id FROM player_games pg JOIN games gm ON gm.id = pg.game_id
                            WHERE pg.player_id = k.player_id AND gm.studio_id = $3
                            ORDER BY pg.linked_at DESC, pg.game_id LIMIT 1) g`,
    [pairs.map((p) => p.playerId), pairs.map((p) => p.sanctionId), studioId],
  );
  return new Map(
    rows.map((r) => [
      `${r.player_id}/${r.sanction_id}`,
      { gameId: r.game_id, banType: r.type, banStartsAt: r.starts_at, caseType: r.case_type },
    ]),
  );
}

export interface LinkedAccount {
  serviceId: string;
  gamerTag: string;
  studioId: string;
  kinds: SignalKind[];
  strength: number;
  since: string;
  trustScore: number;
  activeSanctions: { id: string; type: SanctionType; scope: string; expiresAt: string | null }[];
  evasionSuspected: boolean;
}

/** A link between two accounts of a player's list (the links among them, each pair once). */
export interface LinkAmong {
  serviceIds: [string, string];
  studioId: string;
  kinds: SignalKind[];
  strength: number;
}

/**
 * The accounts linked to a player, strongest first, each with its standing (trust score, the bans
 * and restrictions in force the viewer may see, whether it is suspected of evasion): a studio's
 * (`viewerStudioId`) only through its own signals, a moderator's (null) through every studio's.
 * Undefined when there is no such player (or, for a studio, not one of its players).
 */
export async function linksOf(
  db: Queryable,
  serviceId: string,
  viewerStudioId: string | null,
  now: Date,
  limit = 100,
): Promise<{ serviceId: string; links: LinkedAccount[]; among: LinkAmong[] } | undefined> {
  const { rows: found } = await db.query<{ id: string }>(
    `SELECT p.id FROM players p WHERE p.service_id = $1 AND p.erased_at IS NULL
        AND ($2::uuid IS NULL OR EXISTS (SELECT 1 FROM player_games pg JOIN games g ON g.id = pg.game_id
                                          WHERE pg.player_id = p.id AND g.studio_id = $2))`,
    [serviceId, viewerStudioId],
  );
  const player = found[0];
  if (!player) return undefined;
  const { rows } = await db.query<{
    other_id: string;
    service_id: string;
    gamer_tag: string;
    studio_id: string;
    kinds: SignalKind[];
    strength: string;
    since: Date;
    trust_score: number;
    sanctions: LinkedAccount['activeSanctions'];
    suspected: boolean;
  }>(
    `SELECT l.other_id, o.service_id, o.gamer_tag, l.studio_id, l.kinds, l.strength, l.linked_since AS since, o.trust_score,
            coalesce((SELECT json_agg(json_build_object('id', s.id, 'type', s.type,
                                                        'scope', coalesce(s.scope_studio_id::text, 'global'),
                                                        'expiresAt', s.expires_at) ORDER BY s.created_at DESC)
                        FROM sanctions s WHERE s.player_id = o.id AND ${ACTIVE('$3')}
                         AND ($2::uuid IS NULL OR s.scope_studio_id IS NULL OR s.scope_studio_id = $2)), '[]') AS sanctions,
            ${SUSPECTED('o.id', '$2', '$3')} AS suspected
       FROM account_links l JOIN players o ON o.id = l.other_id
      WHERE l.player_id = $1 AND ($2::uuid IS NULL OR l.studio_id = $2)
      ORDER BY l.strength DESC, l.linked_since, o.service_id
      LIMIT $4`,
    [player.id, viewerStudioId, now, limit],
  );
  // The links among the listed accounts, each pair once, through the same studios' signals.
  const listed = [...new Set(rows.map((r) => r.other_id))];
  const { rows: among } = await db.query<{
    a: string;
    b: string;
    studio_id: string;
    kinds: SignalKind[];
    strength: string;
  }>(
    `SELECT pa.service_id AS a, pb.service_id AS b, l.studio_id, l.kinds, l.strength
       FROM account_links l JOIN players pa ON pa.id = l.player_id JOIN players pb ON pb.id = l.other_id
      WHERE l.player_id = ANY($1::uuid[]) AND l.other_id = ANY($1::uuid[]) AND l.player_id < l.other_id
        AND ($2::uuid IS NULL OR l.studio_id = $2)
      ORDER BY l.strength DESC, pa.service_id, pb.service_id`,
    [listed.length > 1 ? listed : [], viewerStudioId],
  );
  return {
    serviceId,
    among: among.map((r) => ({
      serviceIds: [r.a, r.b] as [string, string],
      studioId: r.studio_id,
      kinds: r.kinds,
      strength: Number(r.strength),
    })),
    links: rows.map((r) => ({
      serviceId: r.service_id,
      gamerTag: r.gamer_tag,
      studioId: r.studio_id,
      kinds: r.kinds,
      strength: Number(r.strength),
      since: r.since.toISOString(),
      trustScore: r.trust_score,
      activeSanctions: r.sanctions.map((s) => ({
        ...s,
        expiresAt: s.expiresAt && new Date(s.expiresAt).toISOString(),
      })),
      evasionSuspected: r.suspected,
    })),
  };
}

/**
 * SQL: the player `player` is suspected of evading a ban `viewer` may see (a studio: suspicions its
 * own signals raised; null: any), still in force at `now` and not cleared by a moderator.
 */
export const SUSPECTED = (player: string, viewer: string, now: string) =>
  `EXISTS (SELECT 1 FROM evasion_suspicions e JOIN sanctions s ON s.id = e.sanction_id
            WHERE e.player_id = ${player} AND e.cleared_at IS NULL AND ${ACTIVE(now)}
              AND (${viewer}::uuid IS NULL OR e.studio_id = ${viewer}::uuid))`;

export interface SuspicionView {
  id: string;
  serviceId: string;
  bannedServiceId: string;
  sanctionId: string;
  sanctionType: SanctionType;
  scope: string;
  studioId: string;
  kinds: SignalKind[];
  strength: number;
  detectedAt: string;
  inForce: boolean;
  clearedAt: string | null;
  clearReason: string | null;
}

/** Suspicions, newest first: open ones (not cleared; `inForce` says whether the ban still is), or one player's every one. */
export async function listSuspicions(
  db: Queryable,
  q: { serviceId?: string; openOnly: boolean; limit: number; now: Date },
): Promise<SuspicionView[]> {
  const { rows } = await db.query<{
    id: string;
    service_id: string;
    banned_service_id: string;
    sanction_id: string;
    type: SanctionType;
    scope: string;
    studio_id: string;
    kinds: SignalKind[];
    strength: string;
    detected_at: Date;
    in_force: boolean;
    cleared_at: Date | null;
    clear_reason: string | null;
  }>(
    `SELECT e.id, p.service_id, b.service_id AS banned_service_id, e.sanction_id, s.type,
            coalesce(s.scope_studio_id::text, 'global') AS scope, e.studio_id, e.kinds, e.strength, e.detected_at,
            ${ACTIVE('$4')} AS in_force, e.cleared_at, e.clear_reason
       FROM evasion_suspicions e
       JOIN players p ON p.id = e.player_id JOIN players b ON b.id = e.banned_player_id
       JOIN sanctions s ON s.id = e.sanction_id
      WHERE ($1::text IS NULL OR p.service_id = $1) AND (NOT $2 OR e.cleared_at IS NULL)
      ORDER BY e.detected_at DESC, e.id DESC LIMIT $3`,
    [q.serviceId ?? null, q.openOnly, q.limit, q.now],
  );
  return rows.map((r) => ({
    id: r.id,
    serviceId: r.service_id,
    bannedServiceId: r.banned_service_id,
    sanctionId: r.sanction_id,
    sanctionType: r.type,
    scope: r.scope,
    studioId: r.studio_id,
    kinds: r.kinds,
    strength: Number(r.strength),
    detectedAt: r.detected_at.toISOString(),
    inForce: r.in_force,
    clearedAt: r.cleared_at?.toISOString() ?? null,
    clearReason: r.clear_reason,
  }));
}

/** A player's values as their export shows them: the kind and the dates, never a value or its hash. */
export async function signalDates(
  db: Queryable,
  playerId: string,
  studioId: string | null,
): Promise<{ kind: SignalKind; firstSeenAt: string; lastSeenAt: string }[]> {
  const { rows } = await db.query<{ kind: SignalKind; first_seen_at: Date; last_seen_at: Date }>(
    `SELECT kind, first_seen_at, last_seen_at FROM signals
      WHERE player_id = $1 AND ($2::uuid IS NULL OR studio_id = $2)
      ORDER BY first_seen_at, kind`,
    [playerId, studioId],
  );
  return rows.map((r) => ({
    kind: r.kind,
    firstSeenAt: r.first_seen_at.toISOString(),
    lastSeenAt: r.last_seen_at.toISOString(),
  }));
}

/**
 * The accounts strongly linked to a player (`STRONG_LINK` or more), through one studio's signals or
 * (null) every studio's, each once with the kinds shared (every studio's together), not erased;
 * locked for the caller's transaction in id order.
 */
export async function strongLinksOf(
  db: Queryable,
  playerRowId: string,
  studioId: string | null,
): Promise<{ playerRowId: string; serviceId: string; kinds: SignalKind[] }[]> {
  const { rows } = await db.query<{ id: string; service_id: string; kinds: SignalKind[] }>(
    `SELECT o.id, o.service_id,
            ARRAY(SELECT DISTINCT k FROM account_links x, unnest(x.kinds) k
                   WHERE x.player_id = $1 AND x.other_id = o.id AND ($2::uuid IS NULL OR x.studio_id = $2)
                   ORDER BY k) AS kinds
       FROM players o
      WHERE o.erased_at IS NULL AND o.id IN (SELECT l.other_id FROM account_links l
                                              WHERE l.player_id = $1 AND l.strength >= $3
                                                AND ($2::uuid IS NULL OR l.studio_id = $2))
      ORDER BY o.id FOR UPDATE OF o`,
    [playerRowId, studioId, STRONG_LINK],
  );
  return rows.map((r) => ({ playerRowId: r.id, serviceId: r.service_id, kinds: r.kinds }));
}
