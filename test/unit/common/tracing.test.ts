import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { expect } from 'chai';
import { outgoingUrlForSpan, serviceNameOf, tracingWanted } from '../../../common/tracing/settings.js';
import {
  activeTraceparent,
  inBatchSpan,
  inJobSpan,
  jobTraceFields,
  markTracingActive,
  producerSpans,
  traceFields,
  traceparentsOf,
  tracingActive,
} from '../../../common/tracing/spans.js';

const A = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const B = '00-1bf7651916cd43dd8448eb211c80319d-c7ad6b7169203332-01';
const A2 = '00-0af7651916cd43dd8448eb211c80319c-d7ad6b7169203333-01'; // A's trace, another span

describe('Tracing: settings', () => {
  it('is on with an OTLP endpoint, unless the SDK is disabled', () => {
    expect(tracingWanted({})).to.equal(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).to.equal(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).to.equal(true);
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }),
    ).to.equal(false);
  });

  it('names each process kind as a service', () => {
    expect(serviceNameOf('/srv/app/api/server.ts', {})).to.equal('player-trust-api');
    expect(serviceNameOf('/app/dist/api/server.js', {})).to.equal('player-trust-api');
    expect(serviceNameOf('/app/dist/worker/review.js', {})).to.equal('player-trust-worker-review');
    expect(serviceNameOf('worker/webhooks.ts', {})).to.equal('player-trust-worker-webhooks');
    expect(serviceNameOf('/app/dist/scripts/admin.js', {})).to.equal('player-trust-admin');
    expect(serviceNameOf(undefined, {})).to.equal('player-trust-process');
    expect(serviceNameOf('/app/dist/api/server.js', { OTEL_SERVICE_NAME: 'pt-eu' })).to.equal('pt-eu');
  });

  it('reads a job’s trace contexts: its own first, then its reports’, once each, valid ones only', () => {
    expect(traceparentsOf(undefined)).to.deep.equal([]);
    expect(traceparentsOf('x')).to.deep.equal([]);
    expect(traceparentsOf({ offenseIds: ['o'] })).to.deep.equal([]);
    expect(traceparentsOf({ traceparent: A2, traceparents: [A, null, B, A, 'junk', 7] })).to.deep.equal([
      A2,
      A,
      B,
    ]);
    expect(traceparentsOf({ traceparent: '00-zz' })).to.deep.equal([]);
  });
});

describe('Tracing: off, nothing is added', () => {
  it('adds no field, makes no span, passes payloads through as they are', async () => {
    expect(tracingActive()).to.equal(false);
    expect(activeTraceparent()).to.equal(undefined);
    expect(traceFields()).to.deep.equal({});
    expect(jobTraceFields({ traceparent: A })).to.deep.equal({});
    const payload = { offenseIds: ['o1'], traceparents: [A] };
    const sent = producerSpans([{ queue: 'q', job_id: 'j', payload }]);
    expect(sent.data[0]).to.equal(payload);
    expect(await inBatchSpan('b', [A], {}, async () => 7)).to.equal(7);
    expect(
      await inJobSpan(
        'q',
        { name: 'n', attemptsMade: 0, data: payload },
        () => true,
        async () => 8,
      ),
    ).to.equal(8);
  });
});

describe('Tracing: on, spans continue the trace a job carries', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const FLAG = Symbol.for('player-trust.tracing');

  before(() => {
    provider.register();
    markTracingActive(() => provider.forceFlush());
  });
  after(async () => {
    delete (globalThis as Record<symbol, unknown>)[FLAG];
    trace.disable();
    context.disable();
    propagation.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  const spans = () => exporter.getFinishedSpans();
  const parentOf = (s: ReturnType<typeof spans>[number]) => s.parentSpanContext?.spanId;

  it('a producer span a traced row, in its trace, named in the job’s data; other rows untouched', () => {
    const plain = { deliveryId: 'd' };
    const sent = producerSpans([
      { queue: 'review', job_id: 'review-b-1', payload: { offenseIds: ['1', '2'], traceparents: [A, B] } },
      { queue: 'webhooks', job_id: 'w-1', payload: plain },
    ]);
    sent.end();
    expect(sent.data[1]).to.equal(plain);
    const [send] = spans();
    expect(spans()).to.have.length(1);
    expect(send!.name).to.equal('send review');
    expect(send!.spanContext().traceId).to.equal(A.split('-')[1]);
    expect(parentOf(send!)).to.equal(A.split('-')[2]);
    expect(send!.links.map((l) => l.context.traceId)).to.deep.equal([B.split('-')[1]]);
    expect(sent.data[0]!.traceparent).to.equal(
      `00-${send!.spanContext().traceId}-${send!.spanContext().spanId}-01`,
    );
    expect(sent.data[0]!.traceparents, 'the reports’ contexts stay for the consumer’s links').to.deep.equal([
      A,
      B,
    ]);
  });

  it('a failed add marks its producer spans failed', () => {
    producerSpans([{ queue: 'q', job_id: 'j', payload: { traceparent: A } }]).end(new Error('Redis down'));
    expect(spans()[0]!.status.code).to.equal(SpanStatusCode.ERROR);
  });

  it('a job runs in a consumer span under its producer, linking the other reports’ traces', async () => {
    const job = {
      id: 'review-b-1',
      name: 'review-offenses',
      attemptsMade: 1,
      data: { traceparent: A2, traceparents: [A, B] },
    };
    const inside = await inJobSpan(
      'admin-review',
      job,
      () => true,
      async () => traceFields(),
    );
    const [run] = spans();
    expect(run!.name).to.equal('process admin-review');
    expect(run!.spanContext().traceId).to.equal(A.split('-')[1]);
    expect(parentOf(run!)).to.equal(A2.split('-')[2]);
    // A is the same trace as the parent: no link to it; B is another report's.
    expect(run!.links.map((l) => l.context.traceId)).to.deep.equal([B.split('-')[1]]);
    expect(run!.attributes['player_trust.job.attempts_made']).to.equal(1);
    // What the job writes (outbox rows of webhooks) continues from its span.
    expect(inside.traceparent).to.equal(`00-${run!.spanContext().traceId}-${run!.spanContext().spanId}-01`);
    expect(jobTraceFields(job.data)).to.deep.equal({ traceId: A.split('-')[1] });
  });

  it('a job put back is not a failed span; a job that throws is', async () => {
    class PutBack extends Error {}
    const job = { name: 'n', attemptsMade: 0, data: { traceparent: A } };
    const isFailure = (err: unknown) => !(err instanceof PutBack);
    await inJobSpan('q', job, isFailure, () => Promise.reject(new PutBack('later'))).catch(() => undefined);
    await inJobSpan('q', job, isFailure, () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(spans().map((s) => s.status.code)).to.deep.equal([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
  });

  it('a job without a trace context starts its own trace', async () => {
    await inJobSpan(
      'q',
      { name: 'trust-recovery', attemptsMade: 0, data: {} },
      () => true,
      async () => undefined,
    );
    expect(parentOf(spans()[0]!)).to.equal(undefined);
  });

  it('the batch statement: in the first report’s trace, linking the others’', async () => {
    await inBatchSpan(
      'file reports',
      [A, undefined, B, A],
      { 'player_trust.reports': 4 },
      async () => undefined,
    );
    const [batch] = spans();
    expect(batch!.spanContext().traceId).to.equal(A.split('-')[1]);
    expect(batch!.links.map((l) => l.context.traceId)).to.deep.equal([B.split('-')[1]]);
    expect(batch!.attributes['player_trust.reports']).to.equal(4);
  });
});

describe('outgoingUrlForSpan: an outgoing call’s span keeps its origin only', () => {
  it('drops the path and the query (a signed link’s token, a player’s id in a path)', () => {
    expect(outgoingUrlForSpan({ protocol: 'https:', hostname: 'cdn.example.com', port: 443 })).to.equal(
      'https://cdn.example.com/[redacted]',
    );
    expect(outgoingUrlForSpan({ protocol: 'http:', hostname: '127.0.0.1', port: 8080 })).to.equal(
      'http://127.0.0.1:8080/[redacted]',
    );
    expect(outgoingUrlForSpan({ protocol: 'http:', host: 'hooks.example:9000' })).to.equal(
      'http://hooks.example/[redacted]',
    );
    expect(outgoingUrlForSpan({ protocol: 'https:', hostname: '::1', port: 8443 })).to.equal(
      'https://[::1]:8443/[redacted]',
    );
  });
});
