import { expect } from 'chai';
import fc from 'fast-check';
import { parseConfig } from '../../../common/config.js';
import { formatLsn, parseLsn } from '../../../common/data/replicas.js';
import { parseRedisUrl } from '../../../common/queues/redis-client.js';
import { parseShardList, shardOf, shardPrefixes, ShardedQueues } from '../../../common/queues/shards.js';

describe('queue shards', () => {
  it('one server and one shard keep the plain prefix; a cluster or several shards get hash-tagged ones', () => {
    expect(shardPrefixes('pt', 1, false)).to.deep.equal(['pt']);
    expect(shardPrefixes('pt', 1, true)).to.deep.equal(['{pt:0}']);
    expect(shardPrefixes('pt', 3, false)).to.deep.equal(['{pt:0}', '{pt:1}', '{pt:2}']);
  });

  it('a key always lands on the same shard, within range, and keys spread over the shards', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 64 }), (key, n) => {
        const k = shardOf(key, n);
        expect(k).to.be.within(0, n - 1);
        expect(shardOf(key, n)).to.equal(k);
      }),
    );
    const counts = new Array<number>(4).fill(0);
    for (let i = 0; i < 4000; i++) counts[shardOf(crypto.randomUUID(), 4)]!++;
    for (const c of counts) expect(c).to.be.within(800, 1200);
  });

  it("a row goes to the shard it was sent to, else its key's, else its job id's", () => {
    const q = new ShardedQueues([{}, {}, {}] as never, ['{pt:0}', '{pt:1}', '{pt:2}']);
    const key = '6f1c4a3e-1d2b-4c5d-8e9f-0a1b2c3d4e5f';
    expect(q.shardFor({ job_id: 'j', shard_key: key })).to.equal(shardOf(key, 3));
    expect(q.shardFor({ job_id: 'j', shard_key: key, shard: 2 })).to.equal(2);
    // A recorded shard that no longer exists (QUEUE_SHARDS lowered) falls back to the key.
    expect(q.shardFor({ job_id: 'j', shard_key: key, shard: 7 })).to.equal(shardOf(key, 3));
    expect(q.shardFor({ job_id: 'review-1', shard_key: null })).to.equal(shardOf('review-1', 3));
  });

  it('WORKER_SHARDS: lists and ranges within QUEUE_SHARDS, or all', () => {
    expect(parseShardList('', 3)).to.deep.equal([0, 1, 2]);
    expect(parseShardList('2, 0', 3)).to.deep.equal([0, 2]);
    expect(parseShardList('1-3,0', 4)).to.deep.equal([0, 1, 2, 3]);
    expect(() => parseShardList('4', 4)).to.throw(/does not exist/);
    expect(() => parseShardList('a', 4)).to.throw(/not a shard number/);
    expect(() => parseConfig({ QUEUE_SHARDS: '2', WORKER_SHARDS: '2' })).to.throw(
      /WORKER_SHARDS.*does not exist/,
    );
    expect(parseConfig({ QUEUE_SHARDS: '4', WORKER_SHARDS: '1-2' }).workerShards).to.deep.equal([1, 2]);
  });

  it('REDIS_URL: one server, or a cluster by its nodes (or REDIS_CLUSTER=true); anything else is refused', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).to.include({ cluster: false });
    const c = parseRedisUrl('redis://:s3cret@node-1:7000,node-2:7001,[::1]:7002')!;
    expect(c.cluster).to.equal(true);
    expect(c.nodes).to.deep.equal([
      { host: 'node-1', port: 7000 },
      { host: 'node-2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(c.password).to.equal('s3cret');
    expect(parseConfig({ REDIS_URL: 'redis://a:1,b:2' }).redisCluster).to.equal(true);
    expect(parseConfig({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER: 'true' }).redisCluster).to.equal(true);
    expect(() => parseConfig({ REDIS_URL: 'http://a:1' })).to.throw(/REDIS_URL/);
    expect(() => parseConfig({ REDIS_URL: 'redis://a:x,b:2' })).to.throw(/REDIS_URL/);
  });
});

describe('consistency tokens (WAL positions)', () => {
  it('read back as written, and ordered as PostgreSQL orders them', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (lsn) => {
        expect(parseLsn(formatLsn(lsn))).to.equal(lsn);
      }),
    );
    expect(parseLsn('0/16B3748')! < parseLsn('1/0')!).to.equal(true);
    expect(parseLsn('0/16b3748')).to.equal(parseLsn('0/16B3748'));
    for (const bad of ['', '0/', '/1', 'G/1', '1/2/3', '123456789/0', ' 0/1'])
      expect(parseLsn(bad), bad).to.equal(undefined);
  });
});
