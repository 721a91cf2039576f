import { SEVERITY_ORDER_SQL } from '../render.js';
import type { Queryable } from '../db.js';
import type { CaseSource, OffenseType, Severity } from '../../domain/reports.js';
import type { TdbCategory } from '../../domain/transparency-statement.js';
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

/** A routing rule: where the cases it matches go. */
export interface RoutingRule {
  queue: string;
  types?: OffenseType[];
  minSeverity?: Severity;
  studios?: string[];
  games?: string[];
  sources?: CaseSource[];
  categories?: TdbCategory[];
}

/**
 * The queues in use (or only the one keyed `only`), the default first, then by name, with their open,
 * overdue and unclaimed cases now.
 */
export async function queueRows(db: Queryable, only: string | null) {
  const { rows } = await db.query<{
    key: string;
    name: string;
    description: string;
    visible_to: QueueVisibility;
    created_at: Date;
    pending: number;
    overdue: number;
    unclaimed: number;
  }>(
    `SELECT q.key, q.name, q.description, q.visible_to, q.created_at,
            count(c.id)::int AS pending, count(c.id) FILTER (WHERE c.due_at < now())::int AS overdue,
            count(c.id) FILTER (WHERE c.claimed_by IS NULL OR c.claim_expires_at <= now())::int AS unclaimed
       FROM review_queues q LEFT JOIN review_cases c ON c.queue_key = q.key AND c.status = 'open'
      WHERE q.archived_at IS NULL AND ($1::text IS NULL OR q.key = $1)
      GROUP BY q.key ORDER BY q.key <> '${DEFAULT_QUEUE}', lower(q.name)`,
    [only],
  );
  return rows;
}

export async function insertQueue(
  db: Queryable,
  q: { key: string; name: string; description: string; visibleTo: QueueVisibility },
): Promise<void> {
  await db.query('INSERT INTO review_queues (key, name, description, visible_to) VALUES ($1, $2, $3, $4)', [
    q.key,
    q.name,
    q.description,
    q.visibleTo,
  ]);
}

/** Changes what is given of a queue's name, description and visibility. */
export async function updateQueue(
  db: Queryable,
  key: string,
  v: { name?: string; description?: string; visibleTo?: QueueVisibility },
): Promise<void> {
  await db.query(
    `UPDATE review_queues SET name = coalesce($2, name), description = coalesce($3, description),
            visible_to = coalesce($4, visible_to) WHERE key = $1`,
    [key, v.name ?? null, v.description ?? null, v.visibleTo ?? null],
  );
}

/** Locks a queue and counts what uses it: the routing rules sending cases to it, its open cases. */
export async function lockQueueUse(db: Queryable, key: string): Promise<{ rules: number; open: number }> {
  await db.query('SELECT 1 FROM review_queues WHERE key = $1 FOR UPDATE', [key]);
  const { rows } = await db.query<{ rules: number; open: number }>(
    `SELECT (SELECT count(*)::int FROM queue_rules WHERE queue_key = $1) AS rules,
            (SELECT count(*)::int FROM review_cases WHERE queue_key = $1 AND status = 'open') AS open`,
    [key],
  );
  return rows[0]!;
}

export async function archiveQueueRow(db: Queryable, key: string): Promise<void> {
  await db.query('UPDATE review_queues SET archived_at = now() WHERE key = $1', [key]);
}

/** The routing rules in order. */
export async function routingRules(db: Queryable): Promise<RoutingRule[]> {
  const { rows } = await db.query<{
    queue_key: string;
    types: OffenseType[] | null;
    min_severity: Severity | null;
    studio_ids: string[] | null;
    game_ids: string[] | null;
    sources: RoutingRule['sources'] | null;
    categories: TdbCategory[] | null;
  }>(
    'SELECT queue_key, types, min_severity, studio_ids, game_ids, sources, categories FROM queue_rules ORDER BY position',
  );
  return rows.map((r) => ({
    queue: r.queue_key,
    ...(r.types && { types: r.types }),
    ...(r.min_severity && { minSeverity: r.min_severity }),
    ...(r.studio_ids && { studios: r.studio_ids }),
    ...(r.game_ids && { games: r.game_ids }),
    ...(r.sources && { sources: r.sources }),
    ...(r.categories && { categories: r.categories }),
  }));
}

/** One admin's save of the routing rules at a time: the second waits, then replaces the first's. */
export async function lockRoutingRules(db: Queryable): Promise<void> {
  await db.query('LOCK TABLE queue_rules IN EXCLUSIVE MODE');
}

/** Of these queues, studios and games, the ones that exist (queues: in use). */
export async function routingTargets(
  db: Queryable,
  queues: string[],
  studios: string[],
  games: string[],
): Promise<{ queues: string[]; studios: string[]; games: string[] }> {
  const { rows } = await db.query<{ queues: string[]; studios: string[]; games: string[] }>(
    `SELECT ARRAY(SELECT key FROM review_queues WHERE key = ANY ($1::text[]) AND archived_at IS NULL) AS queues,
            ARRAY(SELECT id::text FROM studios WHERE id = ANY ($2::uuid[])) AS studios,
            ARRAY(SELECT id::text FROM games WHERE id = ANY ($3::uuid[])) AS games`,
    [queues, studios, games],
  );
  return rows[0]!;
}

/** Replaces the routing rules with these, in order. */
export async function replaceRoutingRules(db: Queryable, rules: RoutingRule[]): Promise<void> {
  await db.query('DELETE FROM queue_rules');
  if (rules.length)
    await db.query(
      `INSERT INTO queue_rules (position, queue_key, types, min_severity, studio_ids, game_ids, sources, categories)
         SELECT n, r->>'queue',
                CASE WHEN r ? 'types' THEN ARRAY(SELECT jsonb_array_elements_text(r->'types')) END,
                r->>'minSeverity',
                CASE WHEN r ? 'studios' THEN ARRAY(SELECT jsonb_array_elements_text(r->'studios'))::uuid[] END,
                CASE WHEN r ? 'games' THEN ARRAY(SELECT jsonb_array_elements_text(r->'games'))::uuid[] END,
                CASE WHEN r ? 'sources' THEN ARRAY(SELECT jsonb_array_elements_text(r->'sources')) END,
                CASE WHEN r ? 'categories' THEN ARRAY(SELECT jsonb_array_elements_text(r->'categories')) END
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(r, n)`,
      [JSON.stringify(rules)],
    );
}

/** The studios and their games, by name. */
export async function studiosWithGames(db: Queryable) {
  const { rows } = await db.query<{ id: string; name: string; games: { id: string; title: string }[] }>(
    `SELECT s.id, s.name,
            coalesce(json_agg(json_build_object('id', g.id, 'title', g.title) ORDER BY lower(g.title))
                     FILTER (WHERE g.id IS NOT NULL), '[]') AS games
       FROM studios s LEFT JOIN games g ON g.studio_id = s.id
      GROUP BY s.id ORDER BY lower(s.name), s.id`,
  );
  return rows;
}

export interface ModeratorFigures {
  username: string;
  resolved: number;
  medianHandlingSeconds: number | null;
}

export interface QueueFigures {
  key: string;
  name: string;
  visibleTo: QueueVisibility;
  /** Open now: all, past due. */
  pending: number;
  overdue: number;
  /** In the window: cases opened that are in this queue now, cases resolved in it and how long they took. */
  inbound: number;
  resolved: number;
  medianHandlingSeconds: number | null;
  moderators: ModeratorFigures[];
}

/**
 * Each queue's figures (of the queues `visibleTo` may see) over the last `days` days, and the
 * appeals', in one statement.
 */
export async function queueFigureRows(db: Queryable, days: number, visibleTo: QueueVisibility[]) {
  const { rows } = await db.query<{
    queues: (Omit<QueueFigures, 'medianHandlingSeconds' | 'moderators'> & {
      median: number | null;
      moderators: { username: string; resolved: number; median: number | null }[] | null;
    })[];
    appeals: {
      pending: number;
      inbound: number;
      decided: number;
      median: number | null;
      moderators: { username: string; resolved: number; median: number | null }[] | null;
    };
  }>(
    `WITH since AS (SELECT now() - make_interval(days => $1) AS t),
     resolved AS (
       SELECT c.queue_key, m.username, extract(epoch FROM c.resolved_at - c.opened_at) AS seconds
         FROM review_cases c JOIN moderators m ON m.id = c.resolved_by
        WHERE c.status = 'resolved' AND c.resolved_at >= (SELECT t FROM since)),
     per_mod AS (
       SELECT queue_key, json_agg(json_build_object('username', username, 'resolved', n, 'median', median)
                                  ORDER BY n DESC, username) AS moderators
         FROM (SELECT queue_key, username, count(*)::int AS n,
                      percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median
                 FROM resolved GROUP BY queue_key, username) x GROUP BY queue_key),
     decided AS (
       SELECT m.username, extract(epoch FROM a.decided_at - a.created_at) AS seconds
         FROM appeals a JOIN moderators m ON m.id = a.decided_by
        WHERE a.status <> 'open' AND a.decided_at >= (SELECT t FROM since))
     SELECT
       (SELECT coalesce(json_agg(json_build_object(
                 'key', q.key, 'name', q.name, 'visibleTo', q.visible_to,
                 'pending', (SELECT count(*) FROM review_cases c WHERE c.queue_key = q.key AND c.status = 'open'),
                 'overdue', (SELECT count(*) FROM review_cases c
                              WHERE c.queue_key = q.key AND c.status = 'open' AND c.due_at < now()),
                 'inbound', (SELECT count(*) FROM review_cases c
                              WHERE c.queue_key = q.key AND c.opened_at >= (SELECT t FROM since)),
                 'resolved', (SELECT count(*) FROM resolved r WHERE r.queue_key = q.key),
                 'median', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM resolved r
                             WHERE r.queue_key = q.key),
                 'moderators', pm.moderators)
               ORDER BY q.key <> '${DEFAULT_QUEUE}', lower(q.name)), '[]')
          FROM review_queues q LEFT JOIN per_mod pm ON pm.queue_key = q.key
         WHERE q.archived_at IS NULL AND q.visible_to = ANY ($2::text[])) AS queues,
       json_build_object(
         'pending', (SELECT count(*) FROM appeals WHERE status = 'open'),
         'inbound', (SELECT count(*) FROM appeals WHERE created_at >= (SELECT t FROM since)),
         'decided', (SELECT count(*) FROM decided),
         'median', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM decided),
         'moderators', (SELECT json_agg(json_build_object('username', username, 'resolved', n, 'median', median)
                                        ORDER BY n DESC, username)
                          FROM (SELECT username, count(*)::int AS n,
                                       percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median
                                  FROM decided GROUP BY username) x)) AS appeals`,
    [days, visibleTo],
  );
  return rows[0]!;
}
