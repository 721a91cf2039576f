import Joi from 'joi';

/** The route groups a client's requests are rate-limited in, each with its own bucket. */
export const ROUTE_GROUPS = ['reports', 'reads', 'webhooks'] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];

/**
 * Everything that bounds what one game's client can do: requests per route group (a sustained rate
 * per second plus a burst that may be spent over any 10 s), reports per reporter and studio per day,
 * and the points its studio may take off one player per day without a moderator.
 */
export interface Limits {
  reportsPerSecond: number;
  reportsBurst: number;
  readsPerSecond: number;
  readsBurst: number;
  webhooksPerSecond: number;
  webhooksBurst: number;
  reporterQuota: number;
  studioBudget: number;
}
export type LimitOverrides = Partial<Limits>;

export const LIMIT_NAMES = [
  'reportsPerSecond',
  'reportsBurst',
  'readsPerSecond',
  'readsBurst',
  'webhooksPerSecond',
  'webhooksBurst',
  'reporterQuota',
  'studioBudget',
] as const satisfies readonly (keyof Limits)[];

/** How long the burst of a route group may take to spend. */
export const BURST_WINDOW_SECONDS = 10;

const count = (max: number) => Joi.number().integer().min(0).max(max);
/** A game's overrides, as the admin tool sets them: any subset of the limits. */
export const limitOverridesSchema = Joi.object<LimitOverrides>({
  reportsPerSecond: count(100_000).min(1),
  reportsBurst: count(1_000_000),
  readsPerSecond: count(100_000).min(1),
  readsBurst: count(1_000_000),
  webhooksPerSecond: count(10_000).min(1),
  webhooksBurst: count(100_000),
  reporterQuota: count(100_000).min(1),
  studioBudget: count(100),
});

export const effectiveLimits = (defaults: Limits, overrides: LimitOverrides | undefined): Limits => ({
  ...defaults,
  ...overrides,
});

export const groupRate = (limits: Limits, group: RouteGroup) => ({
  perSecond: limits[`${group}PerSecond`],
  burst: limits[`${group}Burst`],
});

/** The window of a duplicate report: the same match for a day, or an hour without a matchId. */
export const DEDUP_SECONDS = { withMatch: 24 * 3600, withoutMatch: 3600 } as const;
