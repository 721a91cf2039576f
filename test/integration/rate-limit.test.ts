import crypto from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import sinon from 'sinon';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { CoalescedBuckets } from '../../api/middleware/rate-limit.js';
import { testServices } from '../helpers/services.js';

/** Requests of one client that meet a bucket together share a Redis call (issue 40), against a real Redis. */
describe('rate limit buckets: concurrent requests share a Redis call', () => {
  let redis: Redis;
  const bucket = (points: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `rl-test-${crypto.randomBytes(4).toString('hex')}`,
      points,
      // Long enough that no window ends during a test: the outcomes below are exact.
      duration: 600,
    });

  before(async () => {
    redis = new Redis((await testServices()).redisUrl, { maxRetriesPerRequest: null });
  });
  after(() => redis.disconnect());
  afterEach(() => sinon.restore());

  it('a flood gets exactly what one call a request would give, in arrival order, in fewer calls', async () => {
    const limiter = bucket(5);
    const calls = sinon.spy(limiter, 'consume');
    const buckets = new CoalescedBuckets(1000);
    const took = await Promise.all(Array.from({ length: 40 }, () => buckets.take(limiter, 'game', 1)));
    expect(took.map((t) => t.ok)).to.deep.equal([...Array(5).fill(true), ...Array(35).fill(false)]);
    expect(took.slice(0, 5).map((t) => t.res.remainingPoints)).to.deep.equal([4, 3, 2, 1, 0]);
    expect(took.map((t) => t.res.consumedPoints)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
    // The first request went alone; the 39 that arrived while it was in flight went as one call.
    expect(calls.callCount).to.equal(2);
    expect(calls.secondCall.args).to.deep.equal(['game', 39]);
    // Redis holds the same count as 40 calls of one point would have left.
    expect((await limiter.get('game'))!.consumedPoints).to.equal(40);
  });

  it('requests of several points each: the same outcome as one consume at a time, request by request', async () => {
    const points = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    const sequential = bucket(12);
    const alone: boolean[] = [];
    for (const p of points)
      alone.push(
        await sequential.consume('game', p).then(
          () => true,
          (r: unknown) => {
            if (r instanceof RateLimiterRes) return false;
            throw r;
          },
        ),
      );
    const shared = bucket(12);
    const buckets = new CoalescedBuckets(1000);
    const coalesced = await Promise.all(points.map((p) => buckets.take(shared, 'game', p)));
    expect(coalesced.map((t) => t.ok)).to.deep.equal(alone);
    expect(alone).to.deep.equal([true, true, true, true, false, false, false, false, false, false, false]);
  });

  it('each client has its own calls: one client in flight does not hold back another', async () => {
    const limiter = bucket(2);
    const calls = sinon.spy(limiter, 'consume');
    const buckets = new CoalescedBuckets(1000);
    const [a1, b1, a2, b2, a3] = await Promise.all([
      buckets.take(limiter, 'a', 1),
      buckets.take(limiter, 'b', 1),
      buckets.take(limiter, 'a', 1),
      buckets.take(limiter, 'b', 1),
      buckets.take(limiter, 'a', 1),
    ]);
    expect([a1, a2, a3].map((t) => t!.ok)).to.deep.equal([true, true, false]);
    expect([b1, b2].map((t) => t!.ok)).to.deep.equal([true, true]);
    expect(calls.args.map((a) => a[0])).to.deep.equal(['a', 'b', 'a', 'b']);
  });

  // Redis failing (a rejection), and a limiter that throws instead of rejecting.
  for (const [fault, fail] of [
    ['rejects', (stub: sinon.SinonStub) => stub.onFirstCall().rejects(new Error('Redis is gone'))],
    ['throws', (stub: sinon.SinonStub) => stub.onFirstCall().throws(new Error('thrown, not rejected'))],
  ] as const)
    it(`a call that ${fault} fails the requests it carried, and the next requests make a call of their own`, async () => {
      const limiter = bucket(10);
      const buckets = new CoalescedBuckets(1000);
      const consume = sinon.stub(limiter, 'consume');
      fail(consume);
      consume.callThrough();
      const [first, second] = await Promise.allSettled([
        buckets.take(limiter, 'game', 1),
        buckets.take(limiter, 'game', 1),
      ]);
      expect(first.status).to.equal('rejected');
      // The second arrived while the first call was in flight: it went in the next call, which succeeded.
      expect(second.status).to.equal('fulfilled');
      expect((await buckets.take(limiter, 'game', 1)).res.consumedPoints).to.equal(2);
    });

  it('a call with no answer within the timeout fails its requests and no longer holds back the next', async () => {
    const limiter = bucket(10);
    const buckets = new CoalescedBuckets(50);
    const consume = sinon.stub(limiter, 'consume');
    consume.onFirstCall().returns(new Promise(() => undefined)); // Redis never answers this one
    consume.callThrough();
    const started = Date.now();
    const hung = await buckets.take(limiter, 'game', 1).then(
      () => 'answered',
      (err: Error) => err.message,
    );
    expect(hung).to.match(/no answer within 50 ms/);
    expect(Date.now() - started).to.be.below(1000);
    expect((await buckets.take(limiter, 'game', 1)).ok).to.equal(true);
  });
});
