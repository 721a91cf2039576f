import { expect } from 'chai';
import { GroupCommit } from '../../../common/data/group-commit.js';

describe('GroupCommit', () => {
  it('with a queue many batches long, keeps each key in submission order and never two batches of a key at once', async () => {
    const written: { key: string; seq: number }[] = [];
    const inFlightKeys = new Map<string, number>();
    const batches: number[] = [];
    const group = new GroupCommit<{ key: string; seq: number }, number>(
      async (items) => {
        // A batch may hold several items of a key (in order); another batch in flight may not.
        const keys = new Set(items.map((it) => it.key));
        for (const key of keys)
          expect(inFlightKeys.get(key) ?? 0, `key ${key} already in flight`).to.equal(0);
        for (const key of keys) inFlightKeys.set(key, 1);
        // Batches finish out of order: the later one may be quicker.
        await new Promise((r) => setTimeout(r, items.length % 3));
        for (const it of items) {
          inFlightKeys.set(it.key, 0);
          written.push(it);
        }
        return items.map((it) => it.seq);
      },
      { maxBatch: 10, maxInFlight: 3, keyOf: (it) => it.key, onBatch: (n) => batches.push(n) },
    );
    // 300 items on 7 keys, one hot key taking every other item.
    const items = Array.from({ length: 300 }, (_, seq) => ({ key: seq % 2 ? 'hot' : `k${seq % 7}`, seq }));
    const results = await Promise.all(items.map((it) => group.submit(it)));
    expect(results).to.deep.equal(items.map((it) => it.seq));
    expect(written).to.have.length(300);
    for (const key of new Set(items.map((it) => it.key))) {
      const seqs = written.filter((w) => w.key === key).map((w) => w.seq);
      expect(seqs, key).to.deep.equal([...seqs].sort((a, b) => a - b));
    }
    expect(Math.max(...batches)).to.be.at.most(10);
  });

  it('with a batch in flight, starts another only once overlapAt items wait; with none in flight, at once', async () => {
    const batches: number[][] = [];
    const open: (() => void)[] = [];
    const group = new GroupCommit<number, number>(
      (items) =>
        new Promise((resolve) => {
          batches.push(items);
          open.push(() => resolve(items));
        }),
      { maxBatch: 100, maxInFlight: 4, overlapAt: 3, keyOf: (n) => String(n) },
    );
    const tick = () => new Promise((r) => setImmediate(r));
    const done: Promise<number>[] = [group.submit(1)];
    await tick();
    expect(batches, 'nothing in flight: the first goes at once').to.deep.equal([[1]]);
    done.push(group.submit(2), group.submit(3));
    await tick();
    expect(batches, 'two waiting: they wait for the batch in flight').to.have.length(1);
    done.push(group.submit(4));
    await tick();
    expect(batches, 'three waiting: another statement starts').to.deep.equal([[1], [2, 3, 4]]);
    done.push(group.submit(5));
    await tick();
    expect(batches).to.have.length(2);
    open.shift()!();
    await tick();
    await tick();
    expect(batches, 'one finished, another still in flight: the one waiting still waits').to.have.length(2);
    open.shift()!();
    await tick();
    await tick();
    expect(batches.at(-1), 'none in flight: it goes').to.deep.equal([5]);
    open.shift()!();
    expect(await Promise.all(done)).to.deep.equal([1, 2, 3, 4, 5]);
  });
});
