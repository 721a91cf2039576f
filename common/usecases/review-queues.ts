import { NOTICE_CATEGORIES } from '../domain/notices.js';
import type { TdbCategory } from '../domain/transparency-statement.js';
import Joi from 'joi';
import { rerouteOpenCases } from '../lifecycles/review-case.js';
import { isUniqueViolation, withTransaction, type Queryable } from '../data/db.js';
import type pg from 'pg';
import { insertAudit } from '../data/repos/moderation.js';
import {
  DEFAULT_QUEUE,
  findQueue,
  seesQueue,
  visibilitiesSeenBy,
  type QueueRecord,
  type QueueVisibility,
} from '../data/repos/review-queues.js';
import { REPORT_KINDS, SEVERITIES, type OffenseType, type Severity } from '../domain/reports.js';
import { AppError, notFound, validationError } from '../errors.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';

/** Most routing rules: the list an admin reads top to bottom. */
export const RULES_MAX = 50;
const KEY = /^[a-z0-9][a-z0-9-]{0,39}$/;
const VISIBILITY: readonly QueueVisibility[] = ['moderator', 'admin'];
type Visibility = QueueVisibility;

export const queueSchema = Joi.object({
  key: Joi.string()
    .pattern(KEY)
    .required()
    .description('The queue in addresses and filters (queue=): 1 to 40 lower-case letters, digits or -.'),
  name: text(60).required().description('What moderators read, e.g. "Cheating: high and critical".'),
  description: Joi.string().trim().max(500).allow('').default('').description('What the queue is for.'),
  visibleTo: Joi.string()
    .valid(...VISIBILITY)
    .default('moderator')
    .description('admin: only admins see its cases and work them (a senior queue to escalate to).'),
});

export const queueChangeSchema = Joi.object({
  name: text(60),
  description: Joi.string().trim().max(500).allow(''),
  visibleTo: Joi.string().valid(...VISIBILITY),
})
  .min(1)
  .meta({ 'x-also': { minProperties: 1 } });

const ids = (what: string) =>
  Joi.array()
    .items(Joi.string().guid())
    .min(1)
    .max(50)
    .unique()
    .description(`Only cases whose first report came from one of these ${what}.`);

/** Where a case's reports came from, as routing rules match it. */
export const CASE_SOURCES = ['game', 'notice', 'trusted_flagger'] as const;

export const ruleSchema = Joi.object({
  queue: Joi.string().pattern(KEY).required().description('The queue a matching case goes to.'),
  types: Joi.array()
    .items(Joi.string().valid(...Object.values(REPORT_KINDS)))
    .min(1)
    .unique()
    .description('Only cases of these kinds.'),
  minSeverity: Joi.string()
    .valid(...SEVERITIES)
    .description('Only cases whose highest severity is this or worse.'),
  studios: ids('studios'),
  games: ids('games'),
  sources: Joi.array()
    .items(Joi.string().valid(...CASE_SOURCES))
    .min(1)
    .unique()
    .description(
      "Only cases holding a report from one of these: a game's report (game), a notice (notice), a trusted flagger's notice (trusted_flagger).",
    ),
  categories: Joi.array()
    .items(Joi.string().valid(...NOTICE_CATEGORIES))
    .min(1)
    .unique()
    .description('Only cases holding a notice of one of these Transparency Database categories.'),
});

export const rulesSchema = Joi.object({
  rules: Joi.array()
    .items(ruleSchema)
    .max(RULES_MAX)
    .required()
    .description(
      'In order: the first rule a case matches routes it; a case no rule matches goes to general.',
    ),
});

export interface QueueView {
  key: string;
  name: string;
  description: string;
  visibleTo: Visibility;
  createdAt: string;
  /** Open cases in it now, and of those the ones past their due time and the ones nobody holds (null: not yours to see). */
  pending: number | null;
  overdue: number | null;
  unclaimed: number | null;
}

export interface RoutingRule {
  queue: string;
  types?: OffenseType[];
  minSeverity?: Severity;
  studios?: string[];
  games?: string[];
  sources?: (typeof CASE_SOURCES)[number][];
  categories?: TdbCategory[];
}

/**
 * Every queue in use (or only the one keyed `only`), the default first, then by name (any moderator
 * may escalate to any of them), with their counts now for the queues the actor may see (null for the
 * others: admins' only).
 */
export async function listQueues(db: Queryable, actor: Actor, only?: string): Promise<QueueView[]> {
  const { rows } = await db.query<{
    key: string;
    name: string;
    description: string;
    visible_to: Visibility;
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
    [only ?? null],
  );
  return rows.map((r) => {
    const seen = seesQueue(actor.role, r.visible_to);
    return {
      key: r.key,
      name: r.name,
      description: r.description,
      visibleTo: r.visible_to,
      createdAt: r.created_at.toISOString(),
      pending: seen ? r.pending : null,
      overdue: seen ? r.overdue : null,
      unclaimed: seen ? r.unclaimed : null,
    };
  });
}

/** One queue in use: 404 when there is none, 403 when only admins see its cases and the actor is none. */
export async function visibleQueue(db: Queryable, actor: Actor, key: string): Promise<QueueRecord> {
  const q = KEY.test(key) ? await findQueue(db, key) : undefined;
  if (!q) throw notFound(`Queue ${key}`);
  if (!seesQueue(actor.role, q.visibleTo))
    throw new AppError(403, 'forbidden', `Only admins see the cases of the ${q.name} queue.`);
  return q;
}

async function audit(db: Queryable, actor: Actor, note: string | null, details: Record<string, unknown>) {
  await insertAudit(db, {
    moderatorId: actor.id,
    caseId: null,
    action: 'edit_routing',
    outcome: null,
    note,
    trustScoreBefore: null,
    trustScoreAfter: null,
    details,
  });
}

/** A new queue (admins); 409 queue_exists for a key or name in use (or a key once used). */
export async function createQueue(pool: pg.Pool, actor: Actor, body: unknown): Promise<QueueView> {
  const v = check<{ key: string; name: string; description: string; visibleTo: Visibility }>(
    queueSchema,
    body,
  );
  try {
    await withTransaction(pool, async (client) => {
      await client.query(
        'INSERT INTO review_queues (key, name, description, visible_to) VALUES ($1, $2, $3, $4)',
        [v.key, v.name, v.description, v.visibleTo],
      );
      await audit(client, actor, null, {
        change: 'create_queue',
        queue: v.key,
        name: v.name,
        visibleTo: v.visibleTo,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(
        409,
        'queue_exists',
        `A queue with the key ${v.key} or the name ${v.name} exists (or did).`,
      );
    throw err;
  }
  return (await listQueues(pool, actor, v.key))[0]!;
}

/** Renames a queue, rewrites its description or changes who sees it (admins). */
export async function changeQueue(
  pool: pg.Pool,
  actor: Actor,
  key: string,
  body: unknown,
): Promise<QueueView> {
  const v = check<{ name?: string; description?: string; visibleTo?: Visibility }>(queueChangeSchema, body);
  const q = await visibleQueue(pool, actor, key);
  if (q.key === DEFAULT_QUEUE && v.visibleTo === 'admin')
    throw validationError([{ field: 'visibleTo', message: 'the default queue is seen by every moderator' }]);
  try {
    await withTransaction(pool, async (client) => {
      await client.query(
        `UPDATE review_queues SET name = coalesce($2, name), description = coalesce($3, description),
                visible_to = coalesce($4, visible_to) WHERE key = $1`,
        [key, v.name ?? null, v.description ?? null, v.visibleTo ?? null],
      );
      await audit(client, actor, null, { change: 'change_queue', queue: key, ...v });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(409, 'queue_exists', `A queue named ${v.name} exists.`);
    throw err;
  }
  return (await listQueues(pool, actor, key))[0]!;
}

/**
 * Archives a queue (admins): refused (409 queue_in_use) for the default queue, a queue a routing rule
 * sends cases to, or one that holds open cases; its resolved cases keep saying where they were.
 */
export async function archiveQueue(pool: pg.Pool, actor: Actor, key: string): Promise<void> {
  await visibleQueue(pool, actor, key);
  if (key === DEFAULT_QUEUE) throw new AppError(409, 'queue_in_use', 'The default queue stays.');
  await withTransaction(pool, async (client) => {
    await client.query('SELECT 1 FROM review_queues WHERE key = $1 FOR UPDATE', [key]);
    const { rows } = await client.query<{ rules: number; open: number }>(
      `SELECT (SELECT count(*)::int FROM queue_rules WHERE queue_key = $1) AS rules,
              (SELECT count(*)::int FROM review_cases WHERE queue_key = $1 AND status = 'open') AS open`,
      [key],
    );
    const { rules, open } = rows[0]!;
    if (rules || open)
      throw new AppError(
        409,
        'queue_in_use',
        `The queue ${key} is in use: ${rules} routing rule(s) send cases to it and it holds ${open} open case(s).`,
      );
    await client.query('UPDATE review_queues SET archived_at = now() WHERE key = $1', [key]);
    await audit(client, actor, null, { change: 'archive_queue', queue: key });
  });
}

/** The routing rules in order (every moderator may read them: they say where cases go). */
export async function listRules(db: Queryable): Promise<RoutingRule[]> {
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

/**
 * Replaces the routing rules (admins), in one transaction: every rule must name a queue in use and
 * studios and games that exist; then every open case nobody moved by hand is routed again by the new
 * rules. Audited (edit_routing, with the rules before and after).
 */
export async function replaceRules(
  pool: pg.Pool,
  actor: Actor,
  body: unknown,
): Promise<{ rules: RoutingRule[]; rerouted: number }> {
  const { rules } = check<{ rules: RoutingRule[] }>(rulesSchema, body);
  return withTransaction(pool, async (client) => {
    // One admin's save at a time: the second waits and then replaces the first's.
    await client.query('LOCK TABLE queue_rules IN EXCLUSIVE MODE');
    const { rows } = await client.query<{ queues: string[]; studios: string[]; games: string[] }>(
      `SELECT ARRAY(SELECT key FROM review_queues WHERE key = ANY ($1::text[]) AND archived_at IS NULL) AS queues,
              ARRAY(SELECT id::text FROM studios WHERE id = ANY ($2::uuid[])) AS studios,
              ARRAY(SELECT id::text FROM games WHERE id = ANY ($3::uuid[])) AS games`,
      [rules.map((r) => r.queue), rules.flatMap((r) => r.studios ?? []), rules.flatMap((r) => r.games ?? [])],
    );
    const known = {
      queues: new Set(rows[0]!.queues),
      studios: new Set(rows[0]!.studios),
      games: new Set(rows[0]!.games),
    };
    const fields: { field: string; message: string }[] = [];
    rules.forEach((r, i) => {
      if (!known.queues.has(r.queue))
        fields.push({ field: `rules[${i}].queue`, message: 'is no queue in use' });
      r.studios?.forEach((s, j) => {
        if (!known.studios.has(s))
          fields.push({ field: `rules[${i}].studios[${j}]`, message: 'is no studio' });
      });
      r.games?.forEach((g, j) => {
        if (!known.games.has(g)) fields.push({ field: `rules[${i}].games[${j}]`, message: 'is no game' });
      });
    });
    if (fields.length) throw validationError(fields);
    const before = await listRules(client);
    await client.query('DELETE FROM queue_rules');
    if (rules.length)
      await client.query(
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
    const rerouted = await rerouteOpenCases(client);
    await audit(client, actor, null, { change: 'rules', before, after: rules, rerouted });
    return { rules: await listRules(client), rerouted };
  });
}

/** The studios and their games, by name: what routing rules can name. */
export async function listStudiosAndGames(db: Queryable) {
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
  visibleTo: Visibility;
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
 * Each queue's figures the actor may see, over the last `days` days (a case counts in the queue it is
 * in now), and the appeals' (the appeals queue): filed, decided, open and median time to a decision,
 * with each moderator's share.
 */
export async function queueStats(db: Queryable, actor: Actor, days: number) {
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
    [days, visibilitiesSeenBy(actor.role)],
  );
  const seconds = (s: number | null) => (s === null ? null : Math.round(s));
  const moderators = (list: { username: string; resolved: number; median: number | null }[] | null) =>
    (list ?? []).map((m) => ({
      username: m.username,
      resolved: m.resolved,
      medianHandlingSeconds: seconds(m.median),
    }));
  const { queues, appeals } = rows[0]!;
  return {
    queues: queues.map(({ median, moderators: mods, ...q }) => ({
      ...q,
      medianHandlingSeconds: seconds(median),
      moderators: moderators(mods),
    })),
    appeals: {
      pending: appeals.pending,
      inbound: appeals.inbound,
      decided: appeals.decided,
      medianHandlingSeconds: seconds(appeals.median),
      moderators: moderators(appeals.moderators),
    },
  };
}
