import type { RedisClient } from '../../common/queues/redis-client.js';
import type { Context, Next } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import {
  BURST_WINDOW_SECONDS,
  effectiveLimits,
  groupRate,
  type Limits,
  type RouteGroup,
} from '../../common/domain/limits.js';
import { AppError } from '../../common/errors.js';
import { withTimeout } from '../../common/timeout.js';
import type { Logger } from '../../common/logger.js';
import type { AuthenticatedClient } from './client-auth.js';

export interface RateLimitDeps {
  redis: RedisClient;
  keyPrefix: string;
  defaults: Limits;
  timeoutMs: number;
  log: Logger;
  /** Counts checks that went through unlimited because Redis did not answer. */
  onUnavailable?: (group: RouteGroup) => void;
}

const LOG_EVERY_MS = 10_000;

/**
 * Per-client rate limits in Redis, shared by every API process: one bucket per game and route group,
 * a sustained rate per second (rate-limiter-flexible's RateLimiterRedis, a fixed one-second window)
 * with a burst that may be spent over any 10 s on top (its BurstyRateLimiter). Over both: 429
 * rate_limited with Retry-After. Every answer of a limited route carries RateLimit-Policy and
 * RateLimit (draft-ietf-httpapi-ratelimit-headers). When Redis does not answer within `timeoutMs`
 * the request goes through unlimited (reports must be accepted while Redis is down), counted and
 * logged at most every 10 s. A request the service itself failed (any 5xx: PostgreSQL down, a fault)
 * gives its points back, so a careful client's retries of 503s do not spend its budget.
 *
 * The two buckets are composed here rather than by the library's BurstyRateLimiter (same rule: the
 * burst is spent only when the rate is), so that a refund knows which of them the request took from.
 */
interface Buckets {
  rate: RateLimiterRedis;
  burst: RateLimiterRedis;
}
type Taken = { allowed: boolean; res: RateLimiterRes; fromBurst: boolean };
/** A bucket's answer to one request's points: whether they fit, and the bucket's figures after them. */
type Took = { ok: boolean; res: RateLimiterRes };
type Ask = { points: number; resolve: (took: Took) => void; reject: (err: unknown) => void };

/**
 * Concurrent requests of one client that meet the same bucket share one Redis call (issue 40). With
 * no call in flight for a bucket and client, a request's call goes at once; the requests that arrive
 * while it is in flight wait for it, then go together as one consume of their summed points. Each
 * gets the answer it would have had alone in arrival order: its points fit while the bucket's count,
 * up to and including them, stays within the bucket's points. That is the library's rule for one
 * consume (a refused consume is counted too), so the limit is as exact as with a call a request,
 * while Redis runs one script, and the API makes one call, per turn instead of per request.
 *
 * A call that gets no answer within `timeoutMs` fails its requests (they go through unlimited) and
 * no longer holds back the next call.
 */
export class CoalescedBuckets {
  private readonly waiting = new Map<string, Ask[]>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly timeoutMs: number) {}

  take(bucket: RateLimiterRedis, key: string, points: number): Promise<Took> {
    const id = `${bucket.keyPrefix}\u0000${key}`;
    return new Promise<Took>((resolve, reject) => {
      const asks = this.waiting.get(id);
      if (asks) asks.push({ points, resolve, reject });
      else this.waiting.set(id, [{ points, resolve, reject }]);
      if (!this.inFlight.has(id)) this.send(id, bucket, key);
    });
  }

  private send(id: string, bucket: RateLimiterRedis, key: string): void {
    const asks = this.waiting.get(id);
    if (!asks) return;
    this.waiting.delete(id);
    this.inFlight.add(id);
    const sum = asks.reduce((total, a) => total + a.points, 0);
    // A RateLimiterRes rejection is the limiter's "no"; anything else is Redis failing. (Called
    // inside a promise: a synchronous throw still answers every request of the call, and ends it.)
    const consumed = Promise.resolve()
      .then(() => bucket.consume(key, sum))
      .then(
        (res: RateLimiterRes) => res,
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return rejection;
          throw rejection;
        },
      );
    withTimeout(consumed, this.timeoutMs)
      .then(
        (res) => {
          let count = res.consumedPoints - sum;
          for (const ask of asks) {
            count += ask.points;
            const ok = count <= bucket.points;
            ask.resolve({
              ok,
              res: new RateLimiterRes(
                ok ? bucket.points - count : 0,
                res.msBeforeNext,
                count,
                res.isFirstInDuration && count === ask.points,
              ),
            });
          }
        },
        (err: unknown) => {
          for (const ask of asks) ask.reject(err);
        },
      )
      .finally(() => {
        this.inFlight.delete(id);
        this.send(id, bucket, key);
      });
  }
}

export class RateLimits {
  private readonly limiters = new Map<string, Buckets>();
  private readonly buckets: CoalescedBuckets;
  private lastLogged = 0;

  constructor(private readonly deps: RateLimitDeps) {
    this.buckets = new CoalescedBuckets(deps.timeoutMs);
  }

  private limiter(group: RouteGroup, perSecond: number, burst: number): Buckets {
    const id = `${group}:${perSecond}:${burst}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const common = { storeClient: this.deps.redis, rejectIfRedisNotReady: true };
      limiter = {
        rate: new RateLimiterRedis({
          ...common,
          keyPrefix: `${this.deps.keyPrefix}:rl:${group}:${perSecond}`,
          points: perSecond,
          duration: 1,
        }),
        burst: new RateLimiterRedis({
          ...common,
          keyPrefix: `${this.deps.keyPrefix}:rl:${group}-burst:${burst}`,
          points: Math.max(burst, 1),
          duration: BURST_WINDOW_SECONDS,
        }),
      };
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Koa middleware for one route group; runs after client authentication (and, with `cost`, after
   * the body is read: a bulk request counts what it carries, not 1).
   */
  middleware(group: RouteGroup, cost: (ctx: Context) => number = () => 1) {
    return async (ctx: Context, next: Next) => {
      const state = ctx.state as { client?: AuthenticatedClient; bearer?: { client: AuthenticatedClient } };
      const client = state.client ?? state.bearer!.client;
      const { perSecond, burst } = groupRate(effectiveLimits(this.deps.defaults, client.limits), group);
      ctx.set(
        'RateLimit-Policy',
        `"${group}";q=${perSecond};w=1, "${group}-burst";q=${burst};w=${BURST_WINDOW_SECONDS}`,
      );
      const buckets = this.limiter(group, perSecond, burst);
      const points = Math.max(1, cost(ctx));
      const outcome = await this.consume(group, buckets, client.gameId, points);
      if (outcome) {
        const reset = Math.max(1, Math.ceil(outcome.res.msBeforeNext / 1000));
        if (!outcome.allowed) {
          ctx.set('RateLimit', `"${group}";r=0;t=${reset}`);
          throw new AppError(
            429,
            'rate_limited',
            `Too many ${group} requests from this client; retry after ${reset} s.`,
            { headers: { 'Retry-After': String(reset) } },
          );
        }
        ctx.set('RateLimit', `"${group}";r=${outcome.res.remainingPoints};t=${reset}`);
      }
      let status = 500;
      try {
        await next();
        status = ctx.status;
      } catch (err) {
        status = (err as { status?: number }).status ?? 500;
        throw err;
      } finally {
        if (outcome && status >= 500) this.refund(buckets, client.gameId, points, outcome.fromBurst);
      }
    };
  }

  /** Gives back what a request the service failed took (in the background: the answer is not held). */
  private refund(buckets: Buckets, key: string, points: number, fromBurst: boolean): void {
    const back = [
      buckets.rate.reward(key, points),
      ...(fromBurst ? [buckets.burst.reward(key, points)] : []),
    ];
    void Promise.all(back).catch((err: Error) =>
      this.deps.log.debug({ err: err.message }, 'rate limit refund failed'),
    );
  }

  /**
   * The buckets' answer (allowed or refused, and whether the burst paid), or undefined when Redis did
   * not give one in time. The rate bucket is spent first; only when it is exhausted is the burst.
   */
  private async consume(
    group: RouteGroup,
    buckets: Buckets,
    key: string,
    points: number,
  ): Promise<Taken | undefined> {
    try {
      // Each call waits at most timeoutMs (CoalescedBuckets).
      const rate = await this.buckets.take(buckets.rate, key, points);
      if (rate.ok) return { allowed: true, res: rate.res, fromBurst: false };
      const burst = await this.buckets.take(buckets.burst, key, points);
      // As the library's bursty limiter answers: the rate bucket's figures, the sooner reset.
      const res = new RateLimiterRes(
        rate.res.remainingPoints,
        Math.min(rate.res.msBeforeNext, burst.res.msBeforeNext),
        rate.res.consumedPoints,
        rate.res.isFirstInDuration,
      );
      return { allowed: burst.ok, res, fromBurst: true };
    } catch (err) {
      this.unavailable(group, err as Error);
    }
    return undefined;
  }

  private unavailable(group: RouteGroup, err: Error) {
    this.deps.onUnavailable?.(group);
    const now = Date.now();
    if (now - this.lastLogged >= LOG_EVERY_MS) {
      this.lastLogged = now;
      this.deps.log.warn(
        { err: err.message, group },
        'rate limiter unavailable (Redis): requests go through unlimited until it answers',
      );
    }
  }
}
