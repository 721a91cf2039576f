import { NOTICE_CATEGORIES } from '../domain/notices.js';
import Joi from 'joi';
import { rerouteOpenCases } from '../lifecycles/review-case.js';
import { isUniqueViolation, withTransaction, type Queryable } from '../data/db.js';
import type pg from 'pg';
import { insertAudit } from '../data/repos/moderation.js';
import {
  archiveQueueRow,
  DEFAULT_QUEUE,
  findQueue,
  insertQueue,
  lockQueueUse,
  lockRoutingRules,
  queueFigureRows,
  queueRows,
  replaceRoutingRules,
  routingRules,
  routingTargets,
  seesQueue,
  studiosWithGames,
  updateQueue,
  visibilitiesSeenBy,
  type QueueRecord,
  type QueueVisibility,
  type RoutingRule,
} from '../data/repos/review-queues.js';
import { CASE_SOURCES, REPORT_KINDS, SEVERITIES } from '../domain/reports.js';
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

export type { RoutingRule } from '../data/repos/review-queues.js';

/**
 * Every queue in use (or only the one keyed `only`), the default first, then by name (any moderator
 * may escalate to any of them), with their counts now for the queues the actor may see (null for the
 * others: admins' only).
 */
export async function listQueues(db: Queryable, actor: Actor, only?: string): Promise<QueueView[]> {
  const rows = await queueRows(db, only ?? null);
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
      await insertQueue(client, v);
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
      await updateQueue(client, key, v);
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
    const { rules, open } = await lockQueueUse(client, key);
    if (rules || open)
      throw new AppError(
        409,
        'queue_in_use',
        `The queue ${key} is in use: ${rules} routing rule(s) send cases to it and it holds ${open} open case(s).`,
      );
    await archiveQueueRow(client, key);
    await audit(client, actor, null, { change: 'archive_queue', queue: key });
  });
}

/** The routing rules in order (every moderator may read them: they say where cases go). */
export async function listRules(db: Queryable): Promise<RoutingRule[]> {
  return routingRules(db);
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
    await lockRoutingRules(client);
    const found = await routingTargets(
      client,
      rules.map((r) => r.queue),
      rules.flatMap((r) => r.studios ?? []),
      rules.flatMap((r) => r.games ?? []),
    );
    const known = {
      queues: new Set(found.queues),
      studios: new Set(found.studios),
      games: new Set(found.games),
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
    await replaceRoutingRules(client, rules);
    const rerouted = await rerouteOpenCases(client);
    await audit(client, actor, null, { change: 'rules', before, after: rules, rerouted });
    return { rules: await listRules(client), rerouted };
  });
}

/** The studios and their games, by name: what routing rules can name. */
export async function listStudiosAndGames(db: Queryable) {
  return studiosWithGames(db);
}

export type { ModeratorFigures, QueueFigures } from '../data/repos/review-queues.js';

/**
 * Each queue's figures the actor may see, over the last `days` days (a case counts in the queue it is
 * in now), and the appeals' (the appeals queue): filed, decided, open and median time to a decision,
 * with each moderator's share.
 */
export async function queueStats(db: Queryable, actor: Actor, days: number) {
  const row = await queueFigureRows(db, days, visibilitiesSeenBy(actor.role));
  const seconds = (s: number | null) => (s === null ? null : Math.round(s));
  const moderators = (list: { username: string; resolved: number; median: number | null }[] | null) =>
    (list ?? []).map((m) => ({
      username: m.username,
      resolved: m.resolved,
      medianHandlingSeconds: seconds(m.median),
    }));
  const { queues, appeals } = row;
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
