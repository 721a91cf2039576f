import type { TransparencyStatement } from '../domain/transparency-statement.js';

/**
 * The DSA Transparency Database's API for several statements at once, as its public rules have it
 * (digital-services-act/transparency-database: StatementMultipleAPIController, GroupedSubmissionsService,
 * PuidNotUniqueMultipleException): `POST <base>/api/v1/statements` with `Authorization: Bearer
 * <token>` and `{"statements": [...]}` of 1 to 100. The whole call is taken or refused:
 *
 * - `201 {"statements": [{..., "puid", "uuid", "permalink"}]}`: every statement stored;
 * - `422 {"errors": {"statement_<index>": {"<field>": ["<message>"]}}}`: those statements break its
 *   rules (and nothing of the call was stored);
 * - `422 {"message", "errors": {"puid": [...], "existing_puids": [...]}}`: the platform already sent
 *   statements with those puids (nothing of the call was stored);
 * - `401`/`403`: the token; `429` and `5xx`: try again later.
 */
export type SubmitOutcome =
  | { kind: 'created'; statements: { puid: string; uuid: string | null; permalink: string | null }[] }
  | {
      kind: 'refused';
      /** The database's errors for each refused statement, by its index in the call. */
      byIndex: Map<number, unknown>;
      /** puids the database already holds. */
      existingPuids: string[];
      /** The database's whole answer, for a refusal it named no statement in. */
      body: unknown;
    }
  | { kind: 'retry'; error: string; retryAfterMs?: number };

export async function submitStatements(
  account: { baseUrl: string; token: string },
  statements: readonly TransparencyStatement[],
  timeoutMs: number,
): Promise<SubmitOutcome> {
  const url = `${account.baseUrl.replace(/\/+$/, '')}/api/v1/statements`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': 'player-trust/1 (+DSA statements of reasons)',
      },
      body: JSON.stringify({ statements }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return {
      kind: 'retry',
      error:
        e.name === 'TimeoutError'
          ? `no answer within ${timeoutMs} ms`
          : `network: ${e.cause?.code ?? e.message}`,
    };
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.status === 201 || res.status === 200) {
    const list = (
      body as { statements?: { puid?: unknown; uuid?: unknown; permalink?: unknown }[] } | undefined
    )?.statements;
    return {
      kind: 'created',
      statements: (Array.isArray(list) ? list : []).map((s) => ({
        puid: String(s.puid ?? ''),
        uuid: typeof s.uuid === 'string' ? s.uuid : null,
        permalink: typeof s.permalink === 'string' ? s.permalink : null,
      })),
    };
  }
  if (res.status === 422) {
    const errors = ((body as { errors?: Record<string, unknown> } | undefined)?.errors ?? {}) as Record<
      string,
      unknown
    >;
    const byIndex = new Map<number, unknown>();
    for (const [key, value] of Object.entries(errors)) {
      const m = /^statement_(\d+)$/.exec(key);
      if (m) byIndex.set(Number(m[1]), value);
    }
    const existing = Array.isArray(errors.existing_puids)
      ? errors.existing_puids.filter((p): p is string => typeof p === 'string')
      : [];
    return { kind: 'refused', byIndex, existingPuids: existing, body: body ?? text.slice(0, 2000) };
  }
  const retryAfter = Number(res.headers.get('retry-after'));
  return {
    kind: 'retry',
    error: `HTTP ${res.status}${res.status === 401 || res.status === 403 ? ' (the account’s token was refused)' : ''}`,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
  };
}
