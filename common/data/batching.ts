/**
 * dataloader options for batching the database work of requests or jobs that run together: no
 * cache (every load reads afresh), at most `max` keys a batch, and a batch goes when the event loop
 * has handled everything that was ready (setImmediate runs after the poll phase), so under load one
 * statement serves many callers and at rest nobody waits.
 */
export const batchedLoads = (max: number) => ({
  cache: false,
  maxBatchSize: max,
  batchScheduleFn: (run: () => void) => setImmediate(run),
});
