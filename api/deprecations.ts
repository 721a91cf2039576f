import type { Context, Next } from 'koa';

/**
 * The compatibility promise to studios (docs/studios.md "Compatibility"): within /v1 nothing a client relies on
 * is removed or changes meaning; an operation that is to go is first announced here, for at least six
 * months before its sunset, and while it lasts it answers with
 *
 * - `Deprecation: @<unix seconds>` (RFC 9745): since when it is deprecated,
 * - `Sunset: <HTTP-date>` (RFC 8594): when it may stop answering,
 * - `Link: <...>; rel="deprecation"` (and `rel="successor-version"` when there is one),
 *
 * and the OpenAPI document marks it `deprecated: true` with the same dates; CHANGELOG.md records it
 * under the version that announced it. Today no operation is deprecated: the list is empty, and the
 * mechanism is tested with one registered by the test.
 */
export interface Deprecation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The OpenAPI path template, e.g. /v1/player/{serviceId}. */
  path: string;
  /** ISO dates. */
  since: string;
  sunset: string;
  /** Where the replacement is documented (a path of this API or a URL). */
  successor?: string;
  note: string;
}

export const DEPRECATIONS: readonly Deprecation[] = [];

/** /v1/player/{serviceId} as @koa/router writes it: /v1/player/:serviceId. */
const routerPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

export function deprecationHeaders(d: Deprecation): Record<string, string> {
  const links = [`</docs>; rel="deprecation"; type="text/html"`];
  if (d.successor) links.push(`<${d.successor}>; rel="successor-version"`);
  return {
    Deprecation: `@${Math.floor(Date.parse(d.since) / 1000)}`,
    Sunset: new Date(d.sunset).toUTCString(),
    Link: links.join(', '),
  };
}

/** Sets the headers on every answer of a deprecated operation, errors included. */
export function deprecationMiddleware(list: readonly Deprecation[]) {
  const byRoute = new Map(list.map((d) => [`${d.method.toUpperCase()} ${routerPath(d.path)}`, d]));
  return async (ctx: Context, next: Next) => {
    if (byRoute.size === 0) return next();
    try {
      await next();
    } finally {
      const matched = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
      const d = matched && byRoute.get(`${ctx.method} ${matched}`);
      if (d) ctx.set(deprecationHeaders(d));
    }
  };
}

/** The document with each deprecated operation marked, its dates and successor in its description. */
export function markDeprecated<T extends { paths: object }>(doc: T, list: readonly Deprecation[]): T {
  if (list.length === 0) return doc;
  const marked = structuredClone(doc);
  const paths = marked.paths as Record<
    string,
    Record<string, { deprecated?: boolean; description?: string }>
  >;
  for (const d of list) {
    const op = paths[d.path]?.[d.method];
    if (!op) throw new Error(`deprecation of ${d.method.toUpperCase()} ${d.path}: no such operation`);
    op.deprecated = true;
    op.description = `${op.description ? `${op.description}\n\n` : ''}**Deprecated** since ${d.since}, sunset ${d.sunset}: ${d.note}${d.successor ? ` Use ${d.successor}.` : ''}`;
  }
  return marked;
}
