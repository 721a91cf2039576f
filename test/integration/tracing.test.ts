import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createPool, type Pool } from '../../common/data/db.js';
import { QUEUES } from '../../common/queues/index.js';
import { createTenant, createTestPlayer, TEST_PEPPER, testSigningKey, type Tenant } from '../helpers/app.js';
import { eventually, TestHttpServer } from '../helpers/http-server.js';
import { ownDatabase, testServices } from '../helpers/services.js';

/** A span as the OTLP/HTTP JSON export carries it, flattened. */
interface SpanRec {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attrs: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: number;
  start: bigint;
}

const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

type OtlpValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttr = { key: string; value: OtlpValue };
const valueOf = (v: OtlpValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attrsOf = (list: OtlpAttr[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * The small OTLP receiver of issue 39: the stand-in for a collector (Jaeger, Tempo, an OpenTelemetry
 * Collector), taking what the SDK's OTLP/HTTP exporter sends, JSON at POST /v1/traces.
 */
class OtlpReceiver {
  readonly spans: SpanRec[] = [];
  readonly server = new TestHttpServer();

  async start() {
    this.server.handler = (req, res) => {
      if (req.method === 'POST' && req.path === '/v1/traces') {
        const body = JSON.parse(req.body) as {
          resourceSpans: {
            resource: { attributes: OtlpAttr[] };
            scopeSpans: {
              spans: {
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                name: string;
                kind: number;
                attributes?: OtlpAttr[];
                links?: { traceId: string; spanId: string }[];
                status?: { code?: number };
                startTimeUnixNano: string | number;
              }[];
            }[];
          }[];
        };
        for (const rs of body.resourceSpans) {
          const service = String(attrsOf(rs.resource.attributes)['service.name']);
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              this.spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attrs: attrsOf(s.attributes),
                links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
                status: s.status?.code ?? 0,
                start: BigInt(s.startTimeUnixNano),
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    };
    await this.server.start();
    return this;
  }

  trace(traceId: string) {
    return this.spans.filter((s) => s.traceId === traceId);
  }
}

interface Proc {
  child: ChildProcess;
  lines: Record<string, unknown>[];
}

/**
 * Issue 39: one trace a report, from the API's request through the filing statement, the outbox,
 * each BullMQ job (its traceparent carried in the job's data), to the webhook delivered to the
 * studio with a traceparent header. Real processes, started as the Procfile starts them (with the
 * tracing hook), send their spans to a receiver in the suite.
 */
describe('tracing: a report is one trace from the request to the studio’s webhook', function () {
  this.timeout(180_000);
  const procs: Proc[] = [];
  const otlp = new OtlpReceiver();
  const studio = new TestHttpServer();
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let pool: Pool;
  let env: NodeJS.ProcessEnv;
  let url: string;
  let tenant: Tenant;
  let redis: Redis;

  function launch(file: string): Proc {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './common/tracing/register.ts', file],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    child.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const p of parts) if (p.startsWith('{')) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    child.stderr!.on('data', (c: Buffer) => process.stderr.write(c));
    const proc = { child, lines };
    procs.push(proc);
    return proc;
  }
  const started = (p: Proc) =>
    eventually('the worker started', async () => p.lines.some((l) => l.msg === 'worker started'), 60_000);
  const launched = new Map<string, Proc>();
  /** The worker of this entry file, started once (each test may be run alone). */
  const worker = async (file: string) => {
    if (!launched.has(file)) {
      launched.set(file, launch(file));
      await started(launched.get(file)!);
    }
    return launched.get(file)!;
  };
  const allWorkers = () =>
    Promise.all(['worker/enrichment.ts', 'worker/review.ts', 'worker/webhooks.ts'].map((f) => worker(f)));

  before(async () => {
    const services = await testServices();
    db = await ownDatabase('tracing');
    pool = createPool(db.url, 2);
    await otlp.start();
    await studio.start();
    env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: services.redisUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      QUEUE_PREFIX: `t${crypto.randomBytes(4).toString('hex')}`,
      CLIENT_SECRET_PEPPER: TEST_PEPPER,
      JWT_SIGNING_KEY: JSON.stringify(await testSigningKey()),
      SHUTDOWN_GRACE_MS: '3000',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      WEBHOOK_RETRY_BASE_MS: '100',
      // The reconciler's periodic pass, often (its own database: no other suite's rows to re-add).
      OUTBOX_RECONCILE_INTERVAL_MS: '1000',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.server.url('').replace(/\/$/, ''),
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    redis = new Redis(services.redisUrl, { lazyConnect: true });
    const api = launch('api/server.ts');
    const listening = await eventually(
      'the API listens',
      async () => api.lines.find((l) => l.msg === 'api listening'),
      60_000,
    );
    url = listening.url as string;
    tenant = await createTenant(pool, 'Tracing');
    const hook = await fetch(`${url}/v1/webhooks`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: studio.url('/hooks'), events: ['offense.created'] }),
    });
    expect(hook.status).to.equal(201);
  });
  after(async () => {
    if (process.env.TRACE_DUMP)
      (await import('node:fs')).writeFileSync(
        process.env.TRACE_DUMP,
        otlp.spans.map((x) => JSON.stringify({ ...x, start: String(x.start) })).join('\n'),
      );
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    redis.disconnect();
    await pool?.end();
    await db?.drop();
    await otlp.server.close();
    await studio.close();
  });

  const report = async (serviceId: string) => {
    const res = await fetch(`${url}/v1/toxicity/submitReport/${serviceId}`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ report: { isToxic: true, severity: 'low', description: 'tracing' } }),
    });
    expect(res.status).to.equal(201);
    return {
      offenseId: ((await res.json()) as { report: { _id: string } }).report._id,
      requestId: res.headers.get('x-request-id')!,
    };
  };

  /** The trace of the request the API answered with this request id. */
  const traceOfRequest = (requestId: string) =>
    eventually('the request’s server span', async () => {
      const server = otlp.spans.find(
        (s) => s.kind === KIND.server && s.attrs['player_trust.request_id'] === requestId,
      );
      return server;
    });

  const spansNamed = (traceId: string, name: string) => otlp.trace(traceId).filter((s) => s.name === name);
  const byId = (traceId: string, spanId: string) => otlp.trace(traceId).find((s) => s.spanId === spanId);

  /** A consumer span's producer, and that producer's parent, in the same trace. */
  const expectConsumerOfProducer = (traceId: string, consumer: SpanRec, queue: string) => {
    const producer = byId(traceId, consumer.parentSpanId);
    expect(producer, `the producer of ${consumer.name}`).to.not.equal(undefined);
    expect(producer!.name).to.equal(`send ${queue}`);
    expect(producer!.kind).to.equal(KIND.producer);
    return producer!;
  };

  const deliveriesTo = (traceId: string) =>
    studio.requestsTo('/hooks').filter((r) => String(r.headers.traceparent ?? '').split('-')[1] === traceId);

  it('a job Redis lost, re-added by the reconciler, continues the report’s trace', async () => {
    // Enrichment and webhooks run; review not yet: the report's review job waits in Redis.
    expect(launched.has('worker/review.ts'), 'this test runs first').to.equal(false);
    await Promise.all([worker('worker/enrichment.ts'), worker('worker/webhooks.ts')]);
    const player = await createTestPlayer(pool);
    const { offenseId, requestId } = await report(player.serviceId);

    const row = await eventually('the review row sent', async () => {
      const { rows } = await pool.query<{ job_id: string }>(
        `SELECT job_id FROM outbox WHERE queue = $1 AND payload->'offenseIds' ? $2 AND sent_at IS NOT NULL`,
        [QUEUES.review, offenseId],
      );
      return rows[0];
    });
    // Redis loses the job (a crash cut its last write): the row says sent, the queue has nothing.
    const queue = new Queue(QUEUES.review, { connection: redis, prefix: env.QUEUE_PREFIX });
    const before = await queue.getJob(row.job_id);
    expect(before?.data.traceparents, 'the job carries the report’s trace').to.be.an('array');
    await before!.remove();
    expect(await queue.getJob(row.job_id)).to.equal(undefined);
    await eventually('the reconciler re-added the job', async () => queue.getJob(row.job_id), 30_000);
    await queue.close();

    await worker('worker/review.ts');
    const server = await traceOfRequest(requestId);
    const t = server.traceId;
    const consumer = await eventually(
      'the review job’s span',
      async () => spansNamed(t, `process ${QUEUES.review}`)[0],
    );
    // Two sends of the review job in the report's trace (the API's, the reconciler's); the job that ran
    // is the reconciler's, child of the second.
    const sends = spansNamed(t, `send ${QUEUES.review}`);
    expect(sends.length, 'send review spans').to.equal(2);
    const producer = expectConsumerOfProducer(t, consumer, QUEUES.review);
    const [first, second] = sends.sort((a, b) => (a.start < b.start ? -1 : 1));
    expect(producer.spanId, 'the run is the re-added job’s').to.equal(second!.spanId);
    // The first send was the API's, right after the commit, in the request's trace.
    expect(first!.service).to.equal('player-trust-api');
    expect(consumer.service).to.equal('player-trust-worker-review');
    // ... and the webhook it caused arrives in the same trace.
    await eventually('the studio got the delivery', async () => deliveriesTo(t).length > 0);
  });

  it('a single report: request, filing statement, each job, a retried webhook and its traceparent header', async () => {
    await allWorkers();
    const player = await createTestPlayer(pool);
    // The studio's endpoint fails the first delivery: the webhook job runs twice.
    let failed = false;
    studio.handler = (_req, res) => {
      if (!failed) {
        failed = true;
        res.writeHead(500).end('busy');
      } else res.writeHead(200).end('ok');
    };
    const { requestId } = await report(player.serviceId);
    const server = await traceOfRequest(requestId);
    const t = server.traceId;
    expect(server.service).to.equal('player-trust-api');

    // The request: its server span, the statement that filed it, PostgreSQL's span of it.
    const filing = await eventually('the filing span', async () => spansNamed(t, 'file reports')[0]);
    expect(filing.attrs['player_trust.reports']).to.equal(1);
    const pgSpans = otlp
      .trace(t)
      .filter((s) => String(s.attrs['db.query.text'] ?? '').includes('pt_file_reports'));
    expect(pgSpans.length, 'the pt_file_reports statement’s span').to.be.greaterThan(0);
    expect(pgSpans[0]!.parentSpanId).to.equal(filing.spanId);
    // No parameter values in spans: report text is attacker-written and players' data.
    const text = JSON.stringify(otlp.trace(t).map((x) => x.attrs));
    expect(text).to.not.include('"tracing"').and.not.include('isToxic');

    // Each job: sent in the trace, run in the trace, by the worker of its kind.
    for (const [queue, kind] of [
      [QUEUES.enrichment, 'enrichment'],
      [QUEUES.review, 'review'],
    ] as const) {
      const consumer = await eventually(
        `the ${queue} job's span`,
        async () => spansNamed(t, `process ${queue}`)[0],
      );
      expect(consumer.kind).to.equal(KIND.consumer);
      expect(consumer.service).to.equal(`player-trust-worker-${kind}`);
      expectConsumerOfProducer(t, consumer, queue);
    }

    // The webhook: two runs of its job (the first failed), both children of the one send, each with
    // an HTTP client span, and the studio received the trace in a traceparent header both times.
    const runs = await eventually('two runs of the webhook job', async () => {
      const list = spansNamed(t, `process ${QUEUES.webhooks}`);
      return list.length >= 2 ? list : undefined;
    });
    expect(runs.map((r) => r.attrs['player_trust.job.attempts_made']).sort()).to.deep.equal([0, 1]);
    const producers = new Set(runs.map((r) => expectConsumerOfProducer(t, r, QUEUES.webhooks).spanId));
    expect(producers.size, 'one send for both runs').to.equal(1);
    const send = byId(t, [...producers][0]!)!;
    expect(byId(t, send.parentSpanId)?.name, 'the webhook was sent from the review job').to.equal(
      `process ${QUEUES.review}`,
    );
    expect(runs.filter((r) => r.status === 2).length, 'the failed run is marked an error').to.equal(1);
    const clients = otlp
      .trace(t)
      .filter(
        (s) =>
          s.kind === KIND.client &&
          s.attrs['http.request.method'] === 'POST' &&
          runs.some((r) => r.spanId === s.parentSpanId),
      );
    expect(clients.length, 'an HTTP client span a run').to.equal(2);
    const delivered = deliveriesTo(t);
    expect(delivered.length).to.equal(2);
    for (const d of delivered)
      expect(clients.map((c) => c.spanId)).to.include(String(d.headers.traceparent).split('-')[2]);

    // Log lines name the trace: the API's request line, the worker's line about the failed run.
    const api = procs[0]!;
    const line = api.lines.find((l) => l.msg === 'request' && l.reqId === requestId);
    expect(line?.traceId).to.equal(t);
    const webhooksProc = launched.get('worker/webhooks.ts')!;
    expect(webhooksProc.lines.some((l) => l.msg === 'job failed' && l.traceId === t)).to.equal(true);
  });

  it('reports of many requests filed together: each request’s trace is continued or linked', async () => {
    await allWorkers();
    const players = await Promise.all(Array.from({ length: 12 }, () => createTestPlayer(pool)));
    const sent = await Promise.all(players.map((p) => report(p.serviceId)));
    const traces = await Promise.all(sent.map(async (r) => (await traceOfRequest(r.requestId)).traceId));
    /** A span of this name in the trace, or one elsewhere that links to it. */
    const reaches = (t: string, name: string) =>
      otlp.spans.some((s) => s.name === name && (s.traceId === t || s.links.some((l) => l.traceId === t)));
    for (const name of ['file reports', `process ${QUEUES.enrichment}`, `process ${QUEUES.review}`])
      await eventually(`every request reached by ${name}`, async () => traces.every((t) => reaches(t, name)));
    // Each request's trace has its own way to the studio: its offense.created delivery.
    await eventually('a delivery for each report', async () => {
      const delivered = studio
        .requestsTo('/hooks')
        .map((d) => (JSON.parse(d.body) as { data: { playerId?: string } }).data.playerId);
      return players.every((p) => delivered.includes(p.serviceId));
    });
  });

  it('a bulk request: every report’s jobs in the request’s trace', async () => {
    await allWorkers();
    studio.handler = (_req, res) => res.writeHead(200).end('ok');
    const players = await Promise.all([
      createTestPlayer(pool),
      createTestPlayer(pool),
      createTestPlayer(pool),
    ]);
    const res = await fetch(`${url}/v1/reports/batch`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        reports: players.map((p) => ({ kind: 'afk', serviceId: p.serviceId, report: { isAfk: true } })),
      }),
    });
    expect(res.status).to.equal(207);
    const server = await traceOfRequest(res.headers.get('x-request-id')!);
    const t = server.traceId;
    await eventually('the studio got a delivery for each report', async () => deliveriesTo(t).length >= 3);
    const delivered = deliveriesTo(t).map(
      (d) => (JSON.parse(d.body) as { data: { playerId: string } }).data.playerId,
    );
    expect(delivered.sort()).to.deep.equal(players.map((p) => p.serviceId).sort());
    // One review job a queue shard for the request's reports, run in its trace.
    await eventually(
      'the review job’s span',
      async () => spansNamed(t, `process ${QUEUES.review}`).length > 0,
    );
    await eventually(
      'the enrichment job’s span',
      async () => spansNamed(t, `process ${QUEUES.enrichment}`).length > 0,
    );
  });

  it('an outgoing call’s span holds its origin only: no evidence path or signed token reaches the backend', async () => {
    await allWorkers();
    studio.handler = (_req, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end('clip');
    const player = await createTestPlayer(pool);
    const link = studio.url('/clips/PLAYERPATHMARK.mp4?sig=SIGNEDTOKENMARK');
    const res = await fetch(`${url}/v1/anticheat/submitReport/${player.serviceId}`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        report: { isCheatDetected: true, type: 'aimbot', evidence: [{ type: 'video', url: link }] },
      }),
    });
    expect(res.status).to.equal(201);
    await eventually(
      'the evidence fetched',
      async () => studio.requestsTo('/clips/PLAYERPATHMARK.mp4?sig=SIGNEDTOKENMARK').length > 0 || undefined,
    );
    const origin = new URL(studio.url('/')).origin;
    const outgoing = await eventually('the fetch’s client span', async () => {
      const spans = otlp.spans.filter((s) => s.kind === KIND.client && s.attrs['url.full'] !== undefined);
      return spans.length ? spans : undefined;
    });
    for (const s of outgoing) expect(s.attrs['url.full']).to.equal(`${origin}/[redacted]`);
    const everything = JSON.stringify(otlp.spans.map((s) => s.attrs));
    expect(everything).to.not.include('SIGNEDTOKENMARK');
    expect(everything).to.not.include('PLAYERPATHMARK');
  });
});
