/** Whether the process should trace: an OTLP endpoint is configured and the SDK is not disabled. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true';
}

/**
 * The service.name of this process's spans, from its entry file: player-trust-api, or
 * player-trust-worker-<kind> (OTEL_SERVICE_NAME overrides it).
 */
export function serviceNameOf(entry: string | undefined, env: NodeJS.ProcessEnv): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  const file = /([^/\\]+?)\.(?:[cm]?[jt]s)$/.exec(entry ?? '')?.[1] ?? 'process';
  const dir = /([^/\\]+)[/\\][^/\\]+$/.exec(entry ?? '')?.[1];
  if (dir === 'worker') return `player-trust-worker-${file}`;
  if (file === 'server') return 'player-trust-api';
  return `player-trust-${file}`;
}

/**
 * What an outgoing request's span records as its `url.full`: the origin only. Outgoing calls fetch
 * evidence a report named (its path and query may hold a signed link's token or a player's data) and
 * deliver webhooks and statements; none of that belongs with the tracing backend (docs/operators.md "Tracing").
 */
export function outgoingUrlForSpan(req: {
  protocol?: string | null;
  hostname?: string | null;
  host?: string | null;
  port?: number | string | null;
}): string {
  const protocol = req.protocol || 'http:';
  const host = req.hostname || (req.host ?? '').replace(/:\d+$/, '') || 'localhost';
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const defaultPort = protocol === 'https:' ? '443' : '80';
  const port =
    req.port != null && String(req.port) !== '' && String(req.port) !== defaultPort ? `:${req.port}` : '';
  return `${protocol}//${bracketed}${port}/[redacted]`;
}
