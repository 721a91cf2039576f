import DataLoader from 'dataloader';
import { batchedLoads } from './batching.js';
import type { Queryable } from './db.js';
import { findProfiles, type PlayerProfile } from './repos/offenses.js';

/** Most profiles read in one statement; a larger burst is split into several. */
export const PROFILE_BATCH_MAX = 64;

/**
 * Reads player profiles, batching the reads that arrive together into one statement. Loads are
 * collected until the event loop has handled every request that was ready (setImmediate runs after
 * the poll phase), so under load one round trip serves many requests, and at rest a read waits for
 * nothing. Nothing is cached between batches: every read starts after its request arrived, so it
 * sees every report committed before that, exactly as a read of its own would.
 */
export class ProfileReader {
  private readonly loader: DataLoader<string, PlayerProfile | undefined>;

  constructor(db: Queryable, offensesLimit: number, clock: () => Date = () => new Date()) {
    this.loader = new DataLoader(async (ids) => {
      const found = await findProfiles(db, ids, offensesLimit, clock());
      return ids.map((id) => found.get(id));
    }, batchedLoads(PROFILE_BATCH_MAX));
  }

  /** The profile of the player with this service id, or undefined when there is none. */
  read(serviceId: string): Promise<PlayerProfile | undefined> {
    return this.loader.load(serviceId);
  }
}
