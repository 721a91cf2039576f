import { register } from 'node:module';
import type { IncomingMessage } from 'node:http';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { markTracingActive } from './spans.js';
import { outgoingUrlForSpan, serviceNameOf } from './settings.js';

/** Probes and scrapes: no trace of their own (they would drown the reports' traces). */
const UNTRACED_PATHS = /^\/(?:metrics|healthz|readyz|console\/assets)(?:[/?]|$)/;

/**
 * Starts the OpenTelemetry SDK: W3C trace context, spans batched to OTLP over HTTP (JSON; the
 * endpoint, headers, sampler and batch settings from the standard OTEL_* variables), and the http,
 * koa, pg and ioredis instrumentations. The loader hook (import-in-the-middle) intercepts only the
 * modules the instrumentations name, so nothing else is touched.
 *
 * What the spans hold is chosen for a moderation service: no SQL parameters (a statement's text
 * only; its values are players' data and attacker-written report text), a Redis command's name
 * only, no request or response bodies, and an outgoing call's URL as its origin only.
 */
export async function startTracing(): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': serviceNameOf(process.argv[1], process.env),
      'service.namespace': 'player-trust',
      'process.pid': process.pid,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED_PATHS.test(req.url ?? ''),
        // An outgoing call's span keeps its origin only (evidence links, webhook paths).
        startOutgoingSpanHook: (req) => ({ 'url.full': outgoingUrlForSpan(req) }),
      }),
      // Router layers only: a span for each of the dozen middleware on every request is noise.
      new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        // A pooled connection taken is no hop of its own (the statement's span says the time).
        ignoreConnectSpans: true,
      }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (cmd) => cmd }),
    ],
  });
  // A process that stops sends the spans still batched first (flushTraces, before it exits).
  markTracingActive(() => provider.forceFlush());
  await waitForAllMessagesAcknowledged();
}
