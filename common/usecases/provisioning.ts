import Joi from 'joi';
import { LIMIT_NAMES, limitOverridesSchema, type LimitOverrides } from '../domain/limits.js';
import { check } from '../validation.js';
import type { Queryable } from '../data/db.js';
import {
  createGame,
  createPlayer,
  createStudio,
  findGameByClientId,
  findPlayer,
  findStudio,
  linkPlayerToGame,
  changeGameLimits,
  changeRedirectUris,
  rotateGameSecret,
  type Game,
} from '../data/repos/accounts.js';
import { isUuid } from '../domain/ids.js';
import { isUniqueViolation } from '../data/db.js';
import { playerFields, serviceId } from './players.js';
import { AppError, notFound, validationError } from '../errors.js';
import {
  generateClientId,
  generateClientSecret,
  hashClientSecret,
  hashPassword,
} from '../security/secrets.js';

/** Operator commands (admin tool, seeding, tests): validated here so every caller gets the same rules. */

const redirectUri = Joi.string()
  .uri({ scheme: ['https', 'http'] })
  .max(2048)
  .custom((value: string, helpers) => {
    const url = new URL(value);
    // RFC 9700: exact-match redirect URIs, no fragments; plain http only for loopback (native apps, dev).
    if (url.hash) return helpers.message({ custom: 'must not contain a fragment' });
    if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
      return helpers.message({ custom: 'must use https (http is allowed for loopback only)' });
    return value;
  });

export async function provisionStudio(db: Queryable, input: { name: string }) {
  const { name } = check<{ name: string }>(
    Joi.object({ name: Joi.string().trim().min(1).max(200).required() }),
    input,
  );
  const studio = await createStudio(db, name);
  return { id: studio.id, name: studio.name };
}

export interface IssuedGame {
  id: string;
  studioId: string;
  title: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

const issued = (game: Game, clientSecret: string): IssuedGame => ({
  id: game.id,
  studioId: game.studioId,
  title: game.title,
  clientId: game.clientId,
  clientSecret,
  redirectUris: game.redirectUris,
});

/**
 * Adds and removes a game's redirect URIs (exact match, as registered): adding one it has, or
 * removing one it lacks, changes nothing. 404 for an unknown client id; at most 20 in all.
 */
export async function updateRedirectUris(
  db: Queryable,
  input: { clientId: string; add: string[]; remove: string[] },
): Promise<{ clientId: string; redirectUris: string[] }> {
  const v = check<typeof input>(
    Joi.object({
      clientId: Joi.string().max(200).required(),
      add: Joi.array().items(redirectUri).max(20).default([]),
      remove: Joi.array().items(Joi.string().max(2048)).max(20).default([]),
    }),
    input,
  );
  const redirectUris = await changeRedirectUris(db, v.clientId, v.add, v.remove);
  if (!redirectUris) throw notFound(`Game with client id ${v.clientId}`);
  if (redirectUris.length > 20)
    throw validationError([{ field: 'redirectUris', message: 'must contain at most 20 items' }]);
  return { clientId: v.clientId, redirectUris };
}

export async function provisionGame(
  db: Queryable,
  pepper: string,
  input: { studioId: string; title: string; redirectUris: string[]; requirePkce?: boolean },
): Promise<IssuedGame> {
  const v = check<typeof input>(
    Joi.object({
      studioId: Joi.string().required(),
      title: Joi.string().trim().min(1).max(200).required(),
      // None for a game that never signs players in with OAuth (reports and reads need no redirect).
      redirectUris: Joi.array().items(redirectUri).max(20).unique().default([]),
      requirePkce: Joi.boolean(),
    }),
    input,
  );
  if (!isUuid(v.studioId) || !(await findStudio(db, v.studioId))) throw notFound(`Studio ${v.studioId}`);
  const secret = generateClientSecret();
  const game = await createGame(db, {
    studioId: v.studioId,
    title: v.title,
    clientId: generateClientId(),
    secretHash: hashClientSecret(secret, pepper),
    redirectUris: v.redirectUris,
    requirePkce: v.requirePkce ?? false,
  });
  return issued(game, secret);
}

export async function rotateSecret(
  db: Queryable,
  pepper: string,
  input: { clientId: string },
): Promise<IssuedGame> {
  const { clientId } = check<{ clientId: string }>(
    Joi.object({ clientId: Joi.string().max(128).required() }),
    input,
  );
  const secret = generateClientSecret();
  const game = await rotateGameSecret(db, clientId, hashClientSecret(secret, pepper));
  if (!game) throw notFound(`Game with client id ${clientId}`);
  return issued(game, secret);
}

/**
 * Admin tool: a game's overrides of the default limits (rate limits, reporter quota, studio budget).
 * The given ones are set, `null` removes an override; the game's client sees them within
 * CLIENT_AUTH_CACHE_SECONDS.
 */
export async function setGameLimits(
  db: Queryable,
  input: { clientId: string; limits: Record<string, number | null> },
): Promise<{ clientId: string; limits: LimitOverrides }> {
  const set = Object.fromEntries(Object.entries(input.limits).filter(([, v]) => v !== null));
  const cleared = Object.keys(input.limits).filter((k) => input.limits[k] === null);
  const valid = check<LimitOverrides>(limitOverridesSchema, set);
  for (const name of cleared)
    if (!(LIMIT_NAMES as readonly string[]).includes(name))
      throw validationError([{ field: name, message: 'is not a limit' }]);
  const limits = await changeGameLimits(db, input.clientId, valid, cleared);
  if (!limits) throw notFound(`Game with client id ${input.clientId}`);
  return { clientId: input.clientId, limits };
}

export async function provisionPlayer(
  db: Queryable,
  input: { serviceId?: string; fullName: string; gamerTag: string; password: string; kyc?: boolean },
) {
  const v = check<typeof input>(
    Joi.object({
      serviceId,
      ...playerFields,
      password: Joi.string().min(8).max(256).required(),
      kyc: Joi.boolean(),
    }),
    input,
  );
  try {
    const player = await createPlayer(db, {
      ...(v.serviceId ? { serviceId: v.serviceId } : {}),
      fullName: v.fullName,
      gamerTag: v.gamerTag,
      passwordHash: await hashPassword(v.password),
      isKycVerified: v.kyc ?? false,
    });
    return {
      serviceId: player.serviceId,
      fullName: player.fullName,
      gamerTag: player.gamerTag,
      isKycVerified: player.isKycVerified,
      trustScore: player.trustScore,
    };
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(409, 'already_exists', 'A player with this service id or gamer tag already exists.');
    throw err;
  }
}

export async function linkPlayer(db: Queryable, input: { serviceId: string; clientId: string }) {
  const player = await findPlayer(db, input.serviceId);
  if (!player) throw notFound(`Player ${input.serviceId}`);
  const game = await findGameByClientId(db, input.clientId);
  if (!game) throw notFound(`Game with client id ${input.clientId}`);
  const created = await linkPlayerToGame(db, player.id, game.id);
  return { serviceId: player.serviceId, gameId: game.id, gameTitle: game.title, linked: true, created };
}
