import { isUuid } from '../../domain/ids.js';
import crypto from 'node:crypto';
import type { Queryable } from '../db.js';
import type { LimitOverrides } from '../../domain/limits.js';

export interface Studio {
  id: string;
  name: string;
  createdAt: Date;
}

export interface Game {
  id: string;
  studioId: string;
  title: string;
  clientId: string;
  redirectUris: string[];
  requirePkce: boolean;
  createdAt: Date;
}

export interface GameCredentials extends Game {
  clientSecretHash: Buffer;
  /** The game's overrides of the default limits. */
  limits: LimitOverrides;
}

export interface Player {
  id: string;
  serviceId: string;
  fullName: string;
  gamerTag: string;
  trustScore: number;
  isKycVerified: boolean;
  createdAt: Date;
}

const GAME_COLUMNS = `id, studio_id AS "studioId", title, client_id AS "clientId", redirect_uris AS "redirectUris",
  require_pkce AS "requirePkce", created_at AS "createdAt"`;
const PLAYER_COLUMNS = `id, service_id AS "serviceId", full_name AS "fullName", gamer_tag AS "gamerTag",
  trust_score AS "trustScore", is_kyc_verified AS "isKycVerified", created_at AS "createdAt"`;

export async function createStudio(db: Queryable, name: string): Promise<Studio> {
  const { rows } = await db.query<Studio>(
    'INSERT INTO studios (name) VALUES ($1) RETURNING id, name, created_at AS "createdAt"',
    [name],
  );
  return rows[0]!;
}

export async function findStudio(db: Queryable, id: string): Promise<Studio | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await db.query<Studio>(
    'SELECT id, name, created_at AS "createdAt" FROM studios WHERE id = $1',
    [id],
  );
  return rows[0];
}

/**
 * Locks a studio's row (what is counted per studio is then counted one writer after another); false
 * when there is no such studio.
 */
export async function lockStudio(db: Queryable, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rowCount } = await db.query('SELECT 1 FROM studios WHERE id = $1 FOR UPDATE', [id]);
  return Boolean(rowCount);
}

/** A player's account by gamer tag (any case), with the password hash a sign-in checks. */
export async function playerCredentials(
  db: Queryable,
  gamerTag: string,
): Promise<{ id: string; serviceId: string; passwordHash: string | null } | undefined> {
  const { rows } = await db.query<{ id: string; service_id: string; password_hash: string | null }>(
    'SELECT id, service_id, password_hash FROM players WHERE lower(gamer_tag) = lower($1)',
    [gamerTag],
  );
  const p = rows[0];
  return p && { id: p.id, serviceId: p.service_id, passwordHash: p.password_hash };
}

export async function listStudios(db: Queryable): Promise<Studio[]> {
  const { rows } = await db.query<Studio>(
    'SELECT id, name, created_at AS "createdAt" FROM studios ORDER BY created_at',
  );
  return rows;
}

export async function createGame(
  db: Queryable,
  game: {
    studioId: string;
    title: string;
    clientId: string;
    secretHash: Buffer;
    redirectUris: string[];
    requirePkce?: boolean;
  },
): Promise<Game> {
  const { rows } = await db.query<Game>(
    `INSERT INTO games (studio_id, title, client_id, client_secret_hash, redirect_uris, require_pkce)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${GAME_COLUMNS}`,
    [game.studioId, game.title, game.clientId, game.secretHash, game.redirectUris, game.requirePkce ?? false],
  );
  return rows[0]!;
}

export async function rotateGameSecret(
  db: Queryable,
  clientId: string,
  secretHash: Buffer,
): Promise<Game | undefined> {
  const { rows } = await db.query<Game>(
    `UPDATE games SET client_secret_hash = $2, secret_rotated_at = now() WHERE client_id = $1 RETURNING ${GAME_COLUMNS}`,
    [clientId, secretHash],
  );
  return rows[0];
}

export async function findGameCredentials(
  db: Queryable,
  clientId: string,
): Promise<GameCredentials | undefined> {
  const { rows } = await db.query<GameCredentials>(
    `SELECT ${GAME_COLUMNS}, client_secret_hash AS "clientSecretHash", limits FROM games WHERE client_id = $1`,
    [clientId],
  );
  return rows[0];
}

export async function findGameByClientId(db: Queryable, clientId: string): Promise<Game | undefined> {
  const { rows } = await db.query<Game>(`SELECT ${GAME_COLUMNS} FROM games WHERE client_id = $1`, [clientId]);
  return rows[0];
}

export async function listGames(db: Queryable): Promise<Game[]> {
  const { rows } = await db.query<Game>(`SELECT ${GAME_COLUMNS} FROM games ORDER BY created_at`);
  return rows;
}

export async function createPlayer(
  db: Queryable,
  p: {
    serviceId?: string;
    fullName: string;
    gamerTag: string;
    passwordHash: string | null;
    isKycVerified: boolean;
  },
): Promise<Player> {
  const { rows } = await db.query<Player>(
    `INSERT INTO players (service_id, full_name, gamer_tag, password_hash, is_kyc_verified)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${PLAYER_COLUMNS}`,
    [p.serviceId ?? generateServiceId(), p.fullName, p.gamerTag, p.passwordHash, p.isKycVerified],
  );
  return rows[0]!;
}

export async function findPlayer(db: Queryable, serviceId: string): Promise<Player | undefined> {
  const { rows } = await db.query<Player>(`SELECT ${PLAYER_COLUMNS} FROM players WHERE service_id = $1`, [
    serviceId,
  ]);
  return rows[0];
}

export async function listPlayers(db: Queryable, limit = 1000): Promise<Player[]> {
  const { rows } = await db.query<Player>(
    `SELECT ${PLAYER_COLUMNS} FROM players ORDER BY created_at LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Links a player to a game; true when the link is new. */
export async function linkPlayerToGame(db: Queryable, playerId: string, gameId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO player_games (player_id, game_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [playerId, gameId],
  );
  return rowCount === 1;
}

export function generateServiceId(): string {
  return `plr_${crypto.randomBytes(12).toString('base64url')}`;
}

/** The names of the given studios, by id (ids of no studio are left out): for screens people read. */
export async function studioNames(db: Queryable, ids: Iterable<string | null | undefined>) {
  const wanted = [...new Set([...ids].filter((id): id is string => typeof id === 'string' && isUuid(id)))];
  if (wanted.length === 0) return {};
  const { rows } = await db.query<{ id: string; name: string }>(
    'SELECT id, name FROM studios WHERE id = ANY($1::uuid[])',
    [wanted],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.name])) as Record<string, string>;
}

/** Adds and removes a game's redirect URIs (sorted, without repeats); undefined when no such game. */
export async function changeRedirectUris(
  db: Queryable,
  clientId: string,
  add: string[],
  remove: string[],
): Promise<string[] | undefined> {
  const { rows } = await db.query<{ redirect_uris: string[] }>(
    `UPDATE games SET redirect_uris = ARRAY(
        SELECT DISTINCT u FROM unnest(redirect_uris || $2::text[]) AS u WHERE u <> ALL ($3::text[]) ORDER BY u)
      WHERE client_id = $1 RETURNING redirect_uris`,
    [clientId, add, remove],
  );
  return rows[0]?.redirect_uris;
}

/** Sets some of a game's limit overrides and clears others; undefined when no such game. */
export async function changeGameLimits(
  db: Queryable,
  clientId: string,
  set: LimitOverrides,
  cleared: string[],
): Promise<LimitOverrides | undefined> {
  const { rows } = await db.query<{ limits: LimitOverrides }>(
    `UPDATE games SET limits = (limits - $3::text[]) || $2::jsonb WHERE client_id = $1 RETURNING limits`,
    [clientId, JSON.stringify(set), cleared],
  );
  return rows[0]?.limits;
}
