import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

/**
 * What the service's own code does for tracing, beside the instrumentations (docs/operators.md "Tracing"): a
 * report's W3C trace context travels in the outbox rows it causes and in their jobs' data, so the
 * worker that runs a job, and the jobs and webhooks that one causes, continue the report's trace.
 * With tracing off (no SDK loaded: common/tracing/register.ts) every function here returns at its
 * first line: no context read, no field added, no span made.
 */

const ACTIVE = Symbol.for('player-trust.tracing');
type Global = typeof globalThis & { [ACTIVE]?: { flush: () => Promise<void> } };

/** Called once by the SDK's start (common/tracing/sdk.ts). */
export function markTracingActive(flush: () => Promise<void>): void {
  (globalThis as Global)[ACTIVE] = { flush };
}

export const tracingActive = (): boolean => (globalThis as Global)[ACTIVE] !== undefined;

/** Sends the spans not yet exported (a process about to exit); at most `ms` milliseconds. */
export async function flushTraces(ms = 2000): Promise<void> {
  const active = (globalThis as Global)[ACTIVE];
  if (!active) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    active.flush().catch(() => undefined),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ]);
  clearTimeout(timer);
}

const tracer = () => trace.getTracer('player-trust');

const W3C = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/** The W3C traceparent of the span active here, or undefined (tracing off, or no span). */
export function activeTraceparent(): string | undefined {
  if (!tracingActive()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Fields to add to an outbox row's payload: the active span's traceparent, or none. */
export function traceFields(): { traceparent?: string } {
  const traceparent = activeTraceparent();
  return traceparent ? { traceparent } : {};
}

/**
 * The trace contexts a job's data carries, the one to continue first: `traceparent` (a row written
 * in one trace, or the span that sent the job), then the distinct `traceparents` of a batch row's
 * offenses (pt_file_reports). Malformed values (the data is ours, but a job can be added by hand)
 * are skipped.
 */
export function traceparentsOf(data: unknown): string[] {
  if (!data || typeof data !== 'object') return [];
  const d = data as { traceparent?: unknown; traceparents?: unknown };
  const all = [d.traceparent, ...(Array.isArray(d.traceparents) ? d.traceparents : [])];
  return [...new Set(all.filter((t): t is string => typeof t === 'string' && W3C.test(t)))];
}

const contextOf = (traceparent: string): Context => propagation.extract(ROOT_CONTEXT, { traceparent });

/** The first context as the parent; the others, of other traces, as links (a batch of reports). */
function parentAndLinks(traceparents: readonly string[]): { parent: Context; links: Link[] } {
  const [first, ...rest] = traceparents;
  const parent = first ? contextOf(first) : ROOT_CONTEXT;
  const parentTrace = trace.getSpanContext(parent)?.traceId;
  const links: Link[] = [];
  for (const tp of rest) {
    const linked = trace.getSpanContext(contextOf(tp));
    if (linked && linked.traceId !== parentTrace) links.push({ context: linked });
  }
  return { parent, links };
}

function ended<T>(span: Span, run: () => Promise<T>, isFailure: (err: unknown) => boolean): Promise<T> {
  return run().then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      if (isFailure(err)) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      }
      span.end();
      throw err;
    },
  );
}

/**
 * Runs `fn` in a span that continues the first of `traceparents` and links the others: the one
 * statement that files the reports of several requests belongs to the first one's trace and links
 * the other requests' spans (OpenTelemetry's convention for a batch).
 */
export function inBatchSpan<T>(
  name: string,
  traceparents: readonly (string | undefined)[],
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracingActive()) return fn();
  const { parent, links } = parentAndLinks([...new Set(traceparents.filter((t) => t !== undefined))]);
  const span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, links, attributes }, parent);
  return ended(
    span,
    () => context.with(trace.setSpan(parent, span), fn),
    () => true,
  );
}

export interface TracedJob {
  id?: string | undefined;
  name: string;
  attemptsMade: number;
  data: unknown;
}

/**
 * Runs a job's processor in a consumer span that continues the trace its data carries (and links
 * the batch's other reports). `isFailure` tells a real failure from a job put back (BullMQ's
 * DelayedError), which is not an error of the span.
 */
export function inJobSpan<T>(
  queue: string,
  job: TracedJob,
  isFailure: (err: unknown) => boolean,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracingActive()) return fn();
  const { parent, links } = parentAndLinks(traceparentsOf(job.data));
  const span = tracer().startSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'process',
        'messaging.destination.name': queue,
        'messaging.message.id': job.id ?? '',
        'player_trust.job.name': job.name,
        // 0 on the first run; a retry's span says which attempt it is.
        'player_trust.job.attempts_made': job.attemptsMade,
      },
    },
    parent,
  );
  return ended(span, () => context.with(trace.setSpan(parent, span), fn), isFailure);
}

/**
 * For each row about to be added as a job: a producer span (`send <queue>`) in the row's trace, and
 * the job's data with `traceparent` now naming that span (so the consumer is its child). Rows without
 * a trace context, and every row with tracing off, keep their payload. `end` closes the spans,
 * marking them failed when the add failed.
 */
export function producerSpans<R extends { queue: string; job_id: string; payload: Record<string, unknown> }>(
  rows: readonly R[],
): { data: Record<string, unknown>[]; end: (err?: unknown) => void } {
  if (!tracingActive()) return { data: rows.map((r) => r.payload), end: () => undefined };
  const spans: Span[] = [];
  const data = rows.map((r) => {
    const traceparents = traceparentsOf(r.payload);
    if (traceparents.length === 0) return r.payload;
    const { parent, links } = parentAndLinks(traceparents);
    const span = tracer().startSpan(
      `send ${r.queue}`,
      {
        kind: SpanKind.PRODUCER,
        links,
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.operation.type': 'send',
          'messaging.destination.name': r.queue,
          'messaging.message.id': r.job_id,
        },
      },
      parent,
    );
    spans.push(span);
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(parent, span), carrier);
    return { ...r.payload, traceparent: carrier.traceparent };
  });
  return {
    data,
    end: (err) => {
      for (const span of spans) {
        if (err) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        span.end();
      }
    },
  };
}

/** Log fields of the active span (a pino mixin): traceId and spanId, or none. */
export function logTraceFields(): { traceId?: string; spanId?: string } {
  const ctx = trace.getSpan(context.active())?.spanContext();
  return ctx ? { traceId: ctx.traceId, spanId: ctx.spanId } : {};
}

/**
 * The trace id a job's data continues, for the worker's own lines about the job (a failed one),
 * which BullMQ writes outside the job's span; none with tracing off.
 */
export function jobTraceFields(data: unknown): { traceId?: string } {
  if (!tracingActive()) return {};
  const first = traceparentsOf(data)[0];
  return first ? { traceId: first.slice(3, 35) } : {};
}

/** Sets an attribute on the active span (the request's id on its server span). */
export function tagActiveSpan(key: string, value: string): void {
  if (!tracingActive()) return;
  trace.getSpan(context.active())?.setAttribute(key, value);
}
