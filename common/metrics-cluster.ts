import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics for the service, not for one process, when API_PROCESSES runs several API processes on
 * one port: a scrape lands on whichever process accepts it, and each had its own counters (four
 * scrapes read 241, 262, 241, 262: counters going backwards, every rate wrong). The process that
 * answers the scrape asks the primary, which gathers every process's registry with prom-client's
 * AggregatorRegistry: counters and histograms summed, each gauge by the aggregator it declares (the
 * gauges every process reads from PostgreSQL or Redis alike declare 'max': summed they would count
 * the same jobs once per process).
 */
const ASK = 'player-trust:metrics';
const ANSWER = 'player-trust:metrics-answer';
/** prom-client gives up on a process that does not answer after 5 s; this waits a little longer. */
const WAIT_MS = 6000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers any API process's request for the metrics of all of them. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== ASK || typeof message.id !== 'number') return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (err: Error) => worker.send({ type: ANSWER, id, error: err.message } satisfies Answer),
    );
  });
}

/**
 * In an API process under API_PROCESSES: lends `registry` to the primary's gathering and returns
 * the scrape: every process's metrics, aggregated.
 */
export function clusterMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // prom-client answers the primary's requests from here on
  const pending = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  let next = 0;
  process.on('message', (message: Partial<Answer>) => {
    if (message?.type !== ANSWER || typeof message.id !== 'number') return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.text !== undefined) waiting.resolve(message.text);
    else waiting.reject(new Error(message.error ?? 'no metrics'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      setTimeout(() => {
        if (pending.delete(id)) reject(new Error('the other API processes did not answer in time'));
      }, WAIT_MS).unref();
      process.send!({ type: ASK, id });
    });
}
