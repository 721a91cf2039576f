/**
 * Group commit for writes: what callers submit while a batch is in flight is collected and written
 * by the next batch, one statement and one commit for all of them, and each caller gets its own
 * result. There is no fixed wait: with nothing in flight a batch goes as soon as the event loop has
 * handled what was ready (setImmediate), so at rest nobody waits, and under load batches grow by
 * themselves. At most `maxBatch` items a batch and `maxInFlight` batches at once per process; items
 * of one key (a player) are written in the order they were submitted.
 *
 * A batch that fails as a whole (the database unreachable) fails each of its items with that error.
 * `isolate` says whether an error can be one item's fault: then the batch is split and each item is
 * written on its own, so one bad item fails alone and its neighbours still commit.
 */
export class GroupCommit<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;
  /** Keys (players) with items in a batch in flight: their later items wait for it. */
  private readonly busy = new Map<string, number>();
  private scheduled = false;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly options: {
      maxBatch: number;
      maxInFlight: number;
      isolate?: (err: unknown) => boolean;
      /**
       * What must stay in submission order (a report's player): an item never goes in a batch that
       * could overtake an earlier item of the same key still in flight or waiting.
       */
      keyOf?: (item: I) => string;
      /** Observes each batch's size (a metric, a test). */
      onBatch?: (size: number) => void;
      /**
       * Items waiting that start another batch while one is in flight (default 1: any). With nothing
       * in flight a batch always goes at once; with one in flight, fewer items wait for it to finish
       * and go together, so a statement and a commit are shared by more of them (issue 40).
       */
      overlapAt?: number;
    },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Whether another batch may start now: room in flight, and with one in flight, enough waiting. */
  private mayStart(): boolean {
    return (
      this.inFlight < this.options.maxInFlight &&
      this.queue.length > 0 &&
      (this.inFlight === 0 || this.queue.length >= (this.options.overlapAt ?? 1))
    );
  }

  private schedule() {
    if (this.scheduled || !this.mayStart()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush() {
    const keyOf = this.options.keyOf ?? (() => '');
    while (this.mayStart()) {
      // In submission order; an item whose key is in flight, or was passed over in this round, waits
      // (so no item of a key overtakes an earlier one).
      // The scan stops once the batch is full: a long queue (bulk requests) costs what is taken from
      // it, not its whole length on every batch.
      const batch: typeof this.queue = [];
      const rest: typeof this.queue = [];
      const passed = new Set<string>();
      let i = 0;
      for (; i < this.queue.length && batch.length < this.options.maxBatch; i++) {
        const entry = this.queue[i]!;
        const key = keyOf(entry.item);
        if (!this.busy.has(key) && !passed.has(key)) batch.push(entry);
        else {
          rest.push(entry);
          passed.add(key);
        }
      }
      if (batch.length === 0) return;
      this.queue = i < this.queue.length ? rest.concat(this.queue.slice(i)) : rest;
      const keys = batch.map((b) => keyOf(b.item));
      for (const k of keys) this.busy.set(k, (this.busy.get(k) ?? 0) + 1);
      this.inFlight++;
      this.options.onBatch?.(batch.length);
      void this.run(batch).finally(() => {
        for (const k of keys) {
          const n = this.busy.get(k)! - 1;
          if (n === 0) this.busy.delete(k);
          else this.busy.set(k, n);
        }
        this.inFlight--;
        this.schedule();
      });
    }
  }

  private async run(batch: typeof this.queue) {
    try {
      const results = await this.write(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i]!));
    } catch (err) {
      if (batch.length > 1 && this.options.isolate?.(err)) {
        // One item's fault: each on its own, so only that one fails.
        await Promise.all(batch.map((b) => this.run([b])));
        return;
      }
      for (const b of batch) b.reject(err);
    }
  }
}
