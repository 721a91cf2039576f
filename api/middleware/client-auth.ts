import crypto from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Queryable } from '../../common/data/db.js';
import { findGameCredentials, type GameCredentials } from '../../common/data/repos/accounts.js';
import { unauthorizedClient } from '../../common/errors.js';
import { secretMatches } from '../../common/security/secrets.js';
import type { LimitOverrides } from '../../common/domain/limits.js';

export interface AuthenticatedClient {
  gameId: string;
  studioId: string;
  clientId: string;
  title: string;
  /** The game's overrides of the default limits. */
  limits: LimitOverrides;
}

interface CacheEntry {
  game: GameCredentials | null;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Checks a client_id / client_secret pair. Lookups (hits and misses alike) are cached for `ttlMs`;
 * a secret that does not match the cached row re-reads it (at most once a second per client), so a
 * rotated secret works at once, and the old one stops in this process at the first request with the
 * new one, or within `ttlMs` at the latest. An unknown client_id costs the same as a known one: the
 * same cache, and an HMAC compared against a dummy hash when there is no game.
 */
export class ClientAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly dummyHash = crypto.randomBytes(32);
  private readonly refreshed = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly pepper: string,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async authenticate(
    clientId: string | undefined,
    clientSecret: string | undefined,
  ): Promise<AuthenticatedClient> {
    if (!clientId || !clientSecret || clientId.length > 128 || clientSecret.length > 256) {
      // Still spend the HMAC so a missing header answers no faster than a wrong one.
      secretMatches(clientSecret ?? '', this.dummyHash, this.pepper);
      throw unauthorizedClient();
    }
    let game = await this.lookup(clientId);
    let ok = secretMatches(clientSecret, game?.clientSecretHash ?? this.dummyHash, this.pepper);
    if (!ok && game && this.mayRefresh(clientId)) {
      // The secret may have been rotated since the lookup was cached: a new secret works at once.
      game = await this.lookup(clientId, true);
      ok = secretMatches(clientSecret, game?.clientSecretHash ?? this.dummyHash, this.pepper);
    }
    if (!game || !ok) throw unauthorizedClient();
    return {
      gameId: game.id,
      studioId: game.studioId,
      clientId: game.clientId,
      title: game.title,
      limits: game.limits,
    };
  }

  /** At most one re-read a second per client id, so wrong secrets cannot turn into a query each. */
  private mayRefresh(clientId: string): boolean {
    const now = this.clock();
    const last = this.refreshed.get(clientId) ?? -Infinity;
    if (now - last < 1000) return false;
    if (this.refreshed.size >= MAX_ENTRIES) this.refreshed.clear();
    this.refreshed.set(clientId, now);
    return true;
  }

  private async lookup(clientId: string, fresh = false): Promise<GameCredentials | null> {
    const now = this.clock();
    const hit = this.cache.get(clientId);
    if (!fresh && hit && hit.expiresAt > now) return hit.game;
    const game = (await findGameCredentials(this.db, clientId)) ?? null;
    if (this.ttlMs > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(clientId, { game, expiresAt: now + this.ttlMs });
    }
    return game;
  }

  /** Koa middleware: the spec's client_id and client_secret headers; sets ctx.state.client. */
  middleware() {
    return async (ctx: Context, next: Next) => {
      ctx.state.client = await this.authenticate(
        ctx.get('client_id') || undefined,
        ctx.get('client_secret') || undefined,
      );
      await next();
    };
  }
}
