import DataLoader from 'dataloader';
import { batchedLoads } from './batching.js';
import type { Queryable } from './db.js';
import { renderProfiles, type ProfileAsk } from './repos/offenses.js';

/** Most profiles read in one statement; a larger burst is split into several. */
export const PROFILE_BATCH_MAX = 64;

/**
 * Reads player profiles as the API answers them (JSON text PostgreSQL rendered for the viewing
 * studio: renderProfiles), batching the reads that arrive together into one statement. Loads are
 * collected until the event loop has handled every request that was ready (setImmediate runs after
 * the poll phase), so under load one round trip serves many requests, and at rest a read waits for
 * nothing. Nothing is cached between batches: every read starts after its request arrived, so it
 * sees every report committed before that, exactly as a read of its own would.
 */
export class ProfileReader {
  private readonly loader: DataLoader<ProfileAsk, string | undefined, string>;

  constructor(db: Queryable, offensesLimit: number, clock: () => Date = () => new Date()) {
    this.loader = new DataLoader((asks) => renderProfiles(db, asks, offensesLimit, clock()), {
      ...batchedLoads(PROFILE_BATCH_MAX),
      cacheKeyFn: (a) => `${a.viewerStudioId}/${a.serviceId}`,
    });
  }

  /**
   * The profile of the player with this service id as `viewerStudioId` may see it (null: in full),
   * as JSON text; undefined when there is no such player.
   */
  read(serviceId: string, viewerStudioId: string | null): Promise<string | undefined> {
    return this.loader.load({ serviceId, viewerStudioId });
  }
}
