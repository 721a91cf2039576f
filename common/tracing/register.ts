/**
 * Loaded before the entry module (`node --import ./common/tracing/register.ts ...`, or
 * `dist/common/tracing/register.js` in production: the Procfile, npm scripts, docker-compose and
 * npm start all pass it). Tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT is set (and
 * OTEL_SDK_DISABLED is not `true`): then the OpenTelemetry SDK and its instrumentations load, before
 * any module they patch is imported. Off, this file imports nothing and the service runs exactly as
 * without it (docs/operators.md "Tracing").
 */
import { tracingWanted } from './settings.js';

if (tracingWanted(process.env)) {
  const { startTracing } = await import('./sdk.js');
  await startTracing();
}
