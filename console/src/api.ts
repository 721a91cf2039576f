import type { components, paths } from './generated/openapi';

/** Types of the moderator API, from the server's OpenAPI document (src/generated, never by hand). */
export type Schemas = components['schemas'];
export type Case = Schemas['ReviewCase'];
export type CaseDetail = Schemas['ReviewCaseDetail'];
export type Offense = Schemas['Reportoffense'];
export type Appeal = Schemas['Appeal'];
export type AppealDetail = Schemas['AppealDetail'];
export type Sanction = Schemas['Sanction'];
export type Erasure = Schemas['Erasure'];
export type RetentionRun = Schemas['RetentionRun'];
export type Wave = Schemas['Wave'];
export type ActingRule = Schemas['Rule'];
export type ActingRuleInput = Req<'/v1/admin/rules', 'post'>;
export type Backtest = Schemas['Backtest'];
export type WaveInput = Req<'/v1/admin/waves', 'post'>;
export type TrustedFlagger = Schemas['TrustedFlagger'];
export type AuditEntry = Schemas['AuditEntry'];
export type TrustChange = Schemas['TrustChange'];
export type Session = Schemas['ConsoleSession'];

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The JSON body a path and method answer with a status. */
export type Res<P extends keyof paths, M extends Method, S extends number> = paths[P][M] extends {
  responses: infer Rs;
}
  ? S extends keyof Rs
    ? JsonOf<Rs[S]>
    : never
  : never;
/** The JSON body a path and method take. */
export type Req<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type PlayerView = Res<'/v1/admin/players/{serviceId}', 'get', 200>;
export type QueueCounts = Res<'/v1/admin/queue-counts', 'get', 200>;
export type Stats = Res<'/v1/admin/stats', 'get', 200>;
export type CasePage = Res<'/v1/admin/cases', 'get', 200>;
export type AppealPage = Res<'/v1/admin/appeals', 'get', 200>;
export type AuditPage = Res<'/v1/admin/audit', 'get', 200>;
export type Resolution = Req<'/v1/admin/cases/{caseId}/resolve', 'post'>;
export type SanctionRequest = Req<'/v1/admin/players/{serviceId}/sanctions', 'post'>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let signedOut: () => void = () => undefined;
export const setCsrfToken = (token: string) => (csrfToken = token);
export const onSignedOut = (fn: () => void) => (signedOut = fn);

/**
 * One call to the moderator API with the session cookie (the browser sends it; no token is ever kept
 * where a script could read it), the CSRF token on writes, and errors as ApiError (code and message
 * from the problem document).
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as {
    code?: string;
    detail?: string;
    errors?: { field: string; message: string }[];
  };
  if (!res.ok) {
    if (res.status === 401 && !path.endsWith('/console-session')) signedOut();
    // A refused field is named with why, so the form can be mended without guessing.
    const fields = (data.errors ?? []).map((f) => `${f.field} ${f.message}`).join('; ');
    throw new ApiError(
      res.status,
      data.code ?? 'error',
      `${data.detail ?? res.statusText}${fields ? ` ${fields}.` : ''}`,
    );
  }
  return data as T;
}

const q = (params: Record<string, string | number | boolean | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') s.set(k, String(v));
  return s.toString();
};
const enc = encodeURIComponent;

/** The signed-in session, or undefined when there is no session cookie (204). */
export const getSession = () => api<Session | undefined>('GET', '/v1/admin/console-session');
export const signIn = (username: string, password: string) =>
  api<Session>('POST', '/v1/admin/console-session', { username, password });
export const signOut = () => api<void>('DELETE', '/v1/admin/console-session');

export const listCases = (params: {
  status: 'open' | 'resolved';
  type?: string;
  severity?: string;
  claimed?: string;
  serviceId?: string;
  player?: string;
  tag?: string;
  queue?: string;
  assigned?: 'any' | 'mine';
  escalated?: 'exclude' | 'only' | 'include';
  overdue?: boolean;
  sort?: string;
  limit?: number;
  cursor?: string;
}) => api<CasePage>('GET', `/v1/admin/cases?${q(params)}`);
export const queueCounts = () => api<QueueCounts>('GET', '/v1/admin/queue-counts');
export const getCase = (id: string) => api<CaseDetail>('GET', `/v1/admin/cases/${enc(id)}`);
export const claimCase = (id: string) => api<Case>('POST', `/v1/admin/cases/${enc(id)}/claim`);
export const releaseCase = (id: string) => api<Case>('POST', `/v1/admin/cases/${enc(id)}/release`);
/** To another review queue (its key), or without one to the senior role (admins). */
export const escalateCase = (id: string, note: string, queue?: string) =>
  api<Case>('POST', `/v1/admin/cases/${enc(id)}/escalate`, queue ? { note, queue } : { note });
export const assignCase = (id: string, username: string | null) =>
  api<Case>('POST', `/v1/admin/cases/${enc(id)}/assign`, { username });
export const resolveCase = (id: string, body: Resolution) =>
  api<Case>('POST', `/v1/admin/cases/${enc(id)}/resolve`, body);
export const getPlayer = (serviceId: string) => api<PlayerView>('GET', `/v1/admin/players/${enc(serviceId)}`);
export const placeSanction = (serviceId: string, body: SanctionRequest) =>
  // A Sanction (201), or (four eyes: a ban of a protected player) a wave of this player awaiting approval (202).
  api<Sanction | Wave>('POST', `/v1/admin/players/${enc(serviceId)}/sanctions`, body);
/** Mutes or unmutes a reporter of a studio (audited with the note). */
export const setReporterMuted = (studioId: string, reporterId: string, muted: boolean, note: string) =>
  api<Schemas['Reporter']>(
    'POST',
    `/v1/admin/studios/${enc(studioId)}/reporters/${enc(reporterId)}/${muted ? 'mute' : 'unmute'}`,
    { note },
  );
export const revokeSanction = (serviceId: string, id: string, reason: string) =>
  api<Sanction>('POST', `/v1/admin/players/${enc(serviceId)}/sanctions/${enc(id)}/revoke`, { reason });
export const erasePlayer = (serviceId: string) =>
  api<Erasure>('POST', `/v1/admin/players/${enc(serviceId)}/erasure`);
export const getErasure = (id: string) => api<Erasure>('GET', `/v1/admin/erasures/${enc(id)}`);
export const decideErasure = (id: string, decision: 'confirm' | 'cancel') =>
  api<Erasure>('POST', `/v1/admin/erasures/${enc(id)}/${decision}`);
export const listErasures = (state?: string) =>
  api<{ items: Erasure[]; awaitingConfirmation: number }>(
    'GET',
    `/v1/admin/erasures${state ? `?${q({ state })}` : ''}`,
  );
export const retentionOverview = () =>
  api<Res<'/v1/admin/retention', 'get', 200>>('GET', '/v1/admin/retention');
export const runRetention = () => api<RetentionRun>('POST', '/v1/admin/retention/runs', { dryRun: false });
export const listWaves = (state?: Wave['state']) =>
  api<{ items: Wave[]; nextCursor: string | null }>(
    'GET',
    `/v1/admin/waves${state ? `?${q({ state })}` : ''}`,
  );
export const makeWave = (body: WaveInput) => api<Schemas['WaveCreated']>('POST', '/v1/admin/waves', body);
export const decideWave = (id: string, what: 'approve' | 'cancel' | 'rollback', reason?: string) =>
  api<Wave>('POST', `/v1/admin/waves/${enc(id)}/${what}`, reason === undefined ? undefined : { reason });
export const listActingRules = () => api<{ items: ActingRule[] }>('GET', '/v1/admin/rules');
export const saveActingRule = (body: ActingRuleInput, id?: string) =>
  id
    ? api<ActingRule>('PUT', `/v1/admin/rules/${enc(id)}`, body)
    : api<ActingRule>('POST', '/v1/admin/rules', body);
export const approveActingRule = (id: string) =>
  api<ActingRule>('POST', `/v1/admin/rules/${enc(id)}/approve`);
export const backtestRule = (conditions: ActingRuleInput['conditions'], days: number) =>
  api<Backtest>('POST', '/v1/admin/rule-backtests', { conditions, days });
export type AuthorityOrder = Schemas['AuthorityOrder'];
export type Dispute = Schemas['Dispute'];
export type AuthorityOrderInput = Req<'/v1/admin/compliance/orders', 'post'>;
export type DisputeInput = Req<'/v1/admin/compliance/disputes', 'post'>;
export const listOrders = () =>
  api<{ items: AuthorityOrder[]; nextCursor: string | null }>('GET', '/v1/admin/compliance/orders?limit=100');
export const putOrder = (body: AuthorityOrderInput, id?: string) =>
  id
    ? api<AuthorityOrder>('PUT', `/v1/admin/compliance/orders/${enc(id)}`, body)
    : api<AuthorityOrder>('POST', '/v1/admin/compliance/orders', body);
export const listDisputes = () =>
  api<{ items: Dispute[]; nextCursor: string | null }>('GET', '/v1/admin/compliance/disputes?limit=100');
export const putDispute = (body: DisputeInput, id?: string) =>
  id
    ? api<Dispute>('PUT', `/v1/admin/compliance/disputes/${enc(id)}`, body)
    : api<Dispute>('POST', '/v1/admin/compliance/disputes', body);
export const listTrustedFlaggers = () =>
  api<{ items: TrustedFlagger[] }>('GET', '/v1/admin/trusted-flaggers');
export const registerTrustedFlagger = (body: { name: string; areas: string[]; coordinator: string }) =>
  api<TrustedFlagger & { apiKey: string }>('POST', '/v1/admin/trusted-flaggers', body);
export const suspendTrustedFlagger = (id: string, reason: string) =>
  api<TrustedFlagger>('POST', `/v1/admin/trusted-flaggers/${enc(id)}/suspend`, { reason });
export const reinstateTrustedFlagger = (id: string) =>
  api<TrustedFlagger>('POST', `/v1/admin/trusted-flaggers/${enc(id)}/reinstate`);
export const listAppeals = (params: { status: string; limit?: number; cursor?: string }) =>
  api<AppealPage>('GET', `/v1/admin/appeals?${q(params)}`);
export const getAppeal = (id: string) => api<AppealDetail>('GET', `/v1/admin/appeals/${enc(id)}`);
export const claimAppeal = (id: string) => api<Appeal>('POST', `/v1/admin/appeals/${enc(id)}/claim`);
export const decideAppeal = (
  id: string,
  decision: 'granted' | 'denied',
  note: string,
  keep: { sanctionId: string; reason: string }[] = [],
  unfounded = false,
) =>
  api<Appeal>('POST', `/v1/admin/appeals/${enc(id)}/decide`, {
    decision,
    note,
    ...(decision === 'granted' && keep.length ? { keep } : {}),
    ...(unfounded ? { unfounded: true } : {}),
  });
export type NoticePage = Res<'/v1/admin/notices', 'get', 200>;
export type MisuseMeasure = Schemas['MisuseMeasure'];
export const listNotices = (cursor?: string) =>
  api<NoticePage>('GET', `/v1/admin/notices?limit=50${cursor ? `&cursor=${enc(cursor)}` : ''}`);
export const markUnfounded = (offenseId: string, note: string) =>
  api<Res<'/v1/admin/offenses/{offenseId}/unfounded', 'post', 201>>(
    'POST',
    `/v1/admin/offenses/${enc(offenseId)}/unfounded`,
    { note },
  );
export const listMeasures = (inForce: boolean) =>
  api<{ items: MisuseMeasure[] }>('GET', `/v1/admin/misuse/measures?inForce=${inForce}`);
export const liftMeasure = (id: string, note: string) =>
  api<MisuseMeasure>('POST', `/v1/admin/misuse/measures/${enc(id)}/lift`, { note });
export const listAudit = (params: {
  caseId?: string;
  moderator?: string;
  player?: string;
  limit?: number;
  cursor?: string;
}) => api<AuditPage>('GET', `/v1/admin/audit?${q(params)}`);
export type DecisionTemplate = Schemas['DecisionTemplate'];
export const listTemplates = () => api<{ items: DecisionTemplate[] }>('GET', '/v1/admin/templates');
export const createTemplate = (body: Req<'/v1/admin/templates', 'post'>) =>
  api<DecisionTemplate>('POST', '/v1/admin/templates', body);
export const archiveTemplate = (id: string) => api<void>('DELETE', `/v1/admin/templates/${enc(id)}`);
export type SavedFilter = Schemas['SavedFilter'];
export const listSavedFilters = () => api<{ items: SavedFilter[] }>('GET', '/v1/admin/saved-filters');
export const saveFilter = (name: string, filters: Record<string, string>) =>
  api<SavedFilter>('POST', '/v1/admin/saved-filters', { name, filters });
export const deleteSavedFilter = (id: string) => api<void>('DELETE', `/v1/admin/saved-filters/${enc(id)}`);
export const getStats = (days = 14) => api<Stats>('GET', `/v1/admin/stats?days=${days}`);
export type ReviewQueue = Schemas['ReviewQueue'];
export type RoutingRule = Schemas['RoutingRule'];
export type StudioWithGames = Schemas['StudioWithGames'];
export const listQueues = () => api<{ items: ReviewQueue[] }>('GET', '/v1/admin/queues');
export const createQueue = (body: Req<'/v1/admin/queues', 'post'>) =>
  api<ReviewQueue>('POST', '/v1/admin/queues', body);
export const changeQueue = (key: string, body: Req<'/v1/admin/queues/{queueKey}', 'patch'>) =>
  api<ReviewQueue>('PATCH', `/v1/admin/queues/${enc(key)}`, body);
export const archiveQueue = (key: string) => api<void>('DELETE', `/v1/admin/queues/${enc(key)}`);
export type RulesPage = Res<'/v1/admin/queue-rules', 'get', 200>;
export const listRules = () => api<RulesPage>('GET', '/v1/admin/queue-rules');
export const saveRules = (rules: RoutingRule[]) =>
  api<Res<'/v1/admin/queue-rules', 'put', 200>>('PUT', '/v1/admin/queue-rules', { rules });
export const listStudios = () => api<{ items: StudioWithGames[] }>('GET', '/v1/admin/studios');
export type TransparencyStatement = Schemas['TransparencyStatement'];
export type TransparencyAccount = Schemas['TransparencyAccount'];
export type TransparencyPage = Res<'/v1/admin/transparency/statements', 'get', 200>;
export const listTransparencyStatements = (params: { state?: string; dryRun?: boolean; limit?: number }) =>
  api<TransparencyPage>('GET', `/v1/admin/transparency/statements?${q(params)}`);
export const retryTransparencyStatement = (id: string) =>
  api<{ state: string }>('POST', `/v1/admin/transparency/statements/${enc(id)}/retry`);
export type TransparencyAccounts = Res<'/v1/admin/transparency/accounts', 'get', 200>;
export const listTransparencyAccounts = () =>
  api<TransparencyAccounts>('GET', '/v1/admin/transparency/accounts');
export const putTransparencyAccount = (
  platform: string,
  body: Req<'/v1/admin/transparency/accounts/{platform}', 'put'>,
) => api<TransparencyAccount>('PUT', `/v1/admin/transparency/accounts/${enc(platform)}`, body);
export const deleteTransparencyAccount = (platform: string) =>
  api<void>('DELETE', `/v1/admin/transparency/accounts/${enc(platform)}`);
export type TransparencyReport = Res<'/v1/admin/transparency-report', 'get', 200>;
export const transparencyReportPath = (params: {
  from: string;
  to: string;
  platform: string;
  format?: 'csv';
}) => `/v1/admin/transparency-report?${q(params)}`;
export const getTransparencyReport = (params: { from: string; to: string; platform: string }) =>
  api<TransparencyReport>('GET', transparencyReportPath(params));

/** Linked accounts (docs/linked-accounts.md): a player's links through every studio's signals. */
export type LinkedAccounts =
  paths['/v1/admin/players/{serviceId}/links']['get']['responses']['200']['content']['application/json'];
export const getLinks = (serviceId: string) =>
  api<LinkedAccounts>('GET', `/v1/admin/players/${enc(serviceId)}/links`);
/** Extends a sanction in force to the accounts strongly linked to its player. */
export const extendSanction = (sanctionId: string) =>
  api<{ sanctions: Sanction[]; skipped: { serviceId: string; why: string }[] }>(
    'POST',
    `/v1/admin/sanctions/${enc(sanctionId)}/extend`,
  );
