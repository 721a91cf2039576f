/**
 * Webhook fairness (issue 34), measured: how long a healthy endpoint's events take to arrive alone,
 * and again while two other studios' endpoints hold a backlog: B accepts connections and never
 * answers (each attempt holds its slot for WEBHOOK_TIMEOUT_MS), S answers 500 after 3 s. Default
 * configuration otherwise; everything on loopback, bounded in count and time.
 *
 *   npm run bench:webhooks        (BENCH_WEBHOOK_EVENTS=150, BENCH_WEBHOOK_BACKLOG=400 by default)
 *
 * Prints the healthy endpoint's p50, p99 and slowest delivery (from the 202 of its test event to the
 * request at the receiver) in both phases, and how many of B's and S's deliveries were attempted.
 */
import { createTenant, startTestApi, type Tenant, type TestApi } from '../test/helpers/app.js';
import { TestHttpServer } from '../test/helpers/http-server.js';
import { stopTestServices } from '../test/helpers/services.js';
import { startTestWorker } from '../test/helpers/workers.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 150);
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 400);
const RATE_PER_SECOND = 10;
const WAIT_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function send(api: TestApi, tenant: Tenant, webhookId: string): Promise<string> {
  const res = await fetch(`${api.url}/v1/webhooks/${webhookId}/test`, {
    method: 'POST',
    headers: tenant.headers,
  });
  if (res.status !== 202) throw new Error(`test event: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function register(api: TestApi, tenant: Tenant, url: string): Promise<string> {
  const res = await fetch(`${api.url}/v1/webhooks`, {
    method: 'POST',
    headers: { ...tenant.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['offense.created'] }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
};

async function main() {
  const arrived = new Map<string, number>();
  const healthy = new TestHttpServer();
  healthy.handler = (req, res) => {
    arrived.set(String(req.headers['x-playertrust-delivery']), Date.now());
    res.writeHead(204).end();
  };
  const blackHole = new TestHttpServer();
  blackHole.handler = () => undefined;
  const failing = new TestHttpServer();
  failing.handler = (_req, res) => void setTimeout(() => res.writeHead(500).end(), 3000);
  await Promise.all([healthy.start(), blackHole.start(), failing.start()]);
  const api = await startTestApi({
    OUTBOUND_ALLOWLIST: '127.0.0.1',
    RATE_LIMIT_WEBHOOKS_PER_SECOND: '10000',
    RATE_LIMIT_WEBHOOKS_BURST: '100000',
  });
  const worker = await startTestWorker(api.config, 'webhooks');
  const [h, b, s] = [
    await createTenant(api.pool, 'H'),
    await createTenant(api.pool, 'B'),
    await createTenant(api.pool, 'S'),
  ];
  const [hId, bId, sId] = [
    await register(api, h, healthy.url('/h')),
    await register(api, b, blackHole.url('/b')),
    await register(api, s, failing.url('/s')),
  ];

  /** H sends EVENTS at 10 a second; the latency of each, from its 202 to its arrival. */
  async function healthyRound(): Promise<{ latencies: number[]; missing: number }> {
    const sent = new Map<string, number>();
    for (let i = 0; i < EVENTS; i++) {
      const started = Date.now();
      sent.set(await send(api, h, hId), Date.now());
      await sleep(Math.max(0, 1000 / RATE_PER_SECOND - (Date.now() - started)));
    }
    const until = Date.now() + WAIT_MS;
    while ([...sent.keys()].some((id) => !arrived.has(id)) && Date.now() < until) await sleep(100);
    const latencies = [...sent].flatMap(([id, t]) => (arrived.has(id) ? [arrived.get(id)! - t] : []));
    return { latencies, missing: sent.size - latencies.length };
  }
  const line = (name: string, r: { latencies: number[]; missing: number }) =>
    `${name.padEnd(34)} p50 ${(quantile(r.latencies, 0.5) / 1000).toFixed(2)} s  p99 ${(
      quantile(r.latencies, 0.99) / 1000
    ).toFixed(2)} s  slowest ${(Math.max(...r.latencies) / 1000).toFixed(2)} s  ${
      r.missing ? `not arrived within ${WAIT_MS / 1000} s: ${r.missing}` : 'all arrived'
    }`;

  const alone = await healthyRound();
  for (let i = 0; i < BACKLOG; i++) await Promise.all([send(api, b, bId), send(api, s, sId)]);
  const beside = await healthyRound();
  const attempted = async (id: string) =>
    (
      await api.pool.query<{ n: number }>(
        'SELECT count(*) FILTER (WHERE attempts > 0)::int AS n FROM webhook_deliveries WHERE webhook_id = $1',
        [id],
      )
    ).rows[0]!.n;
  const parked = await api.pool.query<{ id: string; parked: boolean }>(
    // Read through to_jsonb so the same bench runs on a release before parking existed (false there).
    `SELECT id, coalesce((to_jsonb(w)->>'parked_until')::timestamptz > now(), false) AS parked
       FROM webhooks w WHERE id = ANY ($1)`,
    [[bId, sId]],
  );
  process.stdout.write(
    [
      `webhook fairness: ${EVENTS} events to a healthy endpoint at ${RATE_PER_SECOND}/s; WORKER_CONCURRENCY ${api.config.workerConcurrency}, WEBHOOK_ENDPOINT_CONCURRENCY ${api.config.webhookEndpointConcurrency}, WEBHOOK_TIMEOUT_MS ${api.config.webhookTimeoutMs}`,
      line('healthy alone', alone),
      line(`beside ${BACKLOG} silent + ${BACKLOG} failing`, beside),
      `silent endpoint: ${await attempted(bId)} of ${BACKLOG} deliveries attempted, parked: ${parked.rows.find((r) => r.id === bId)?.parked ?? false}`,
      `failing endpoint: ${await attempted(sId)} of ${BACKLOG} deliveries attempted, parked: ${parked.rows.find((r) => r.id === sId)?.parked ?? false}`,
      '',
    ].join('\n'),
  );
  await worker.stop();
  await api.close();
  await Promise.all([healthy.close(), blackHole.close(), failing.close()]);
  await stopTestServices();
}

await main();
