import { SEVERITY_ORDER_SQL } from '../render.js';
import type { Queryable } from '../db.js';
import type { ModeratorRole } from './moderation.js';

/** The queue every case lands in when no routing rule matches it; it cannot be archived or restricted. */
export const DEFAULT_QUEUE = 'general';

/** Who sees a queue's cases and works them: every moderator, or admins only (the least role that does). */
export type QueueVisibility = ModeratorRole;

/** The visibilities of the queues a role sees and works: the one rule, in TypeScript and in SQL (ANY). */
export const visibilitiesSeenBy = (role: ModeratorRole): QueueVisibility[] =>
  role === 'admin' ? ['moderator', 'admin'] : ['moderator'];

/** Whether a role sees and works the cases of a queue of this visibility. */
export const seesQueue = (role: ModeratorRole, visibleTo: QueueVisibility) =>
  visibilitiesSeenBy(role).includes(visibleTo);

/**
 * SQL for the queue a case belongs in by the routing rules (migration 028): the first rule, by
 * position, whose every criterion matches the case's kind (`type`), its highest severity (`sevRank`,
 * 1 for low .. 4 for critical), the game of its first report (`game`, and that game's studio), where
 * its reports came from (`sources`: game, notice, trusted_flagger; any one of the rule's) and the
 * categories its notices name (`categories`; any one of the rule's); the default queue when none does. One index scan of a table of at most RULES_MAX rows.
 */
export const routeSql = (type: string, sevRank: string, game: string, sources: string, categories: string) =>
  `coalesce((SELECT r.queue_key FROM queue_rules r
     WHERE (r.types IS NULL OR ${type} = ANY (r.types))
       AND (r.sources IS NULL OR r.sources && ${sources})
       AND (r.categories IS NULL OR r.categories && ${categories})
       AND (r.min_severity IS NULL OR array_position(${SEVERITY_ORDER_SQL}, r.min_severity) <= ${sevRank})
       AND (r.game_ids IS NULL OR ${game} = ANY (r.game_ids))
       AND (r.studio_ids IS NULL OR EXISTS (
             SELECT 1 FROM games g WHERE g.id = ${game} AND g.studio_id = ANY (r.studio_ids)))
     ORDER BY r.position LIMIT 1), '${DEFAULT_QUEUE}')`;

export interface QueueRecord {
  key: string;
  name: string;
  description: string;
  visibleTo: QueueVisibility;
  createdAt: Date;
}

/** One queue in use (archived ones are not found). */
export async function findQueue(db: Queryable, key: string): Promise<QueueRecord | undefined> {
  const { rows } = await db.query<{
    key: string;
    name: string;
    description: string;
    visible_to: QueueVisibility;
    created_at: Date;
  }>(
    `SELECT key, name, description, visible_to, created_at FROM review_queues
      WHERE key = $1 AND archived_at IS NULL`,
    [key],
  );
  const r = rows[0];
  return (
    r && {
      key: r.key,
      name: r.name,
      description: r.description,
      visibleTo: r.visible_to,
      createdAt: r.created_at,
    }
  );
}
