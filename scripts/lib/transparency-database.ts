import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in of the EU's DSA Transparency Database API, written from its public rules
 * (digital-services-act/transparency-database: app/Http/Requests/StatementStoreRequest.php,
 * app/Services/GroupedSubmissionsService.php's multi_rules, app/Models/Statement.php,
 * StatementMultipleAPIController and PuidNotUniqueMultipleException): `POST /api/v1/statements` with a
 * Bearer token naming a platform and `{"statements": [...]}` of 1 to 100; every statement validated
 * on its own, the whole call refused with `422 {"errors": {"statement_<i>": {...}}}` if any breaks a
 * rule, or with `422 {"message", "errors": {"puid": [...], "existing_puids": [...]}}` if any puid is
 * already the platform's; else all stored and `201 {"statements": [{..., "uuid", "permalink"}]}`.
 * Faults on demand: slow answers, 500, 429, and refusing statements. Used by the tests and by the
 * transparency fault drill (npm run drill).
 */
// The database's lists, copied here from its rules on purpose rather than imported from
// common/domain/transparency-vocabulary.ts: a stand-in that took the service's own lists could not
// catch a wrong one.
const KEYS = {
  decision_visibility: [
    'DECISION_VISIBILITY_CONTENT_REMOVED',
    'DECISION_VISIBILITY_CONTENT_DISABLED',
    'DECISION_VISIBILITY_CONTENT_DEMOTED',
    'DECISION_VISIBILITY_CONTENT_AGE_RESTRICTED',
    'DECISION_VISIBILITY_CONTENT_INTERACTION_RESTRICTED',
    'DECISION_VISIBILITY_CONTENT_LABELLED',
    'DECISION_VISIBILITY_OTHER',
  ],
  decision_monetary: [
    'DECISION_MONETARY_SUSPENSION',
    'DECISION_MONETARY_TERMINATION',
    'DECISION_MONETARY_OTHER',
  ],
  decision_provision: [
    'DECISION_PROVISION_PARTIAL_SUSPENSION',
    'DECISION_PROVISION_TOTAL_SUSPENSION',
    'DECISION_PROVISION_PARTIAL_TERMINATION',
    'DECISION_PROVISION_TOTAL_TERMINATION',
  ],
  decision_account: ['DECISION_ACCOUNT_SUSPENDED', 'DECISION_ACCOUNT_TERMINATED'],
  account_type: ['ACCOUNT_TYPE_BUSINESS', 'ACCOUNT_TYPE_PRIVATE'],
  decision_ground: ['DECISION_GROUND_ILLEGAL_CONTENT', 'DECISION_GROUND_INCOMPATIBLE_CONTENT'],
  incompatible_content_illegal: ['Yes', 'No'],
  content_type: [
    'CONTENT_TYPE_APP',
    'CONTENT_TYPE_AUDIO',
    'CONTENT_TYPE_IMAGE',
    'CONTENT_TYPE_PRODUCT',
    'CONTENT_TYPE_SYNTHETIC_MEDIA',
    'CONTENT_TYPE_TEXT',
    'CONTENT_TYPE_VIDEO',
    'CONTENT_TYPE_OTHER',
  ],
  category: [
    'STATEMENT_CATEGORY_ANIMAL_WELFARE',
    'STATEMENT_CATEGORY_CONSUMER_INFORMATION',
    'STATEMENT_CATEGORY_CYBER_VIOLENCE',
    'STATEMENT_CATEGORY_CYBER_VIOLENCE_AGAINST_WOMEN',
    'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS',
    'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
    'STATEMENT_CATEGORY_INTELLECTUAL_PROPERTY_INFRINGEMENTS',
    'STATEMENT_CATEGORY_NEGATIVE_EFFECTS_ON_CIVIC_DISCOURSE_OR_ELECTIONS',
    'STATEMENT_CATEGORY_NOT_SPECIFIED_NOTICE',
    'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
    'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
    'STATEMENT_CATEGORY_RISK_FOR_PUBLIC_SECURITY',
    'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
    'STATEMENT_CATEGORY_SELF_HARM',
    'STATEMENT_CATEGORY_UNSAFE_AND_PROHIBITED_PRODUCTS',
    'STATEMENT_CATEGORY_VIOLENCE',
  ],
  source_type: [
    'SOURCE_ARTICLE_16',
    'SOURCE_TRUSTED_FLAGGER',
    'SOURCE_TYPE_OTHER_NOTIFICATION',
    'SOURCE_VOLUNTARY',
  ],
  automated_detection: ['Yes', 'No'],
  automated_decision: [
    'AUTOMATED_DECISION_FULLY',
    'AUTOMATED_DECISION_PARTIALLY',
    'AUTOMATED_DECISION_NOT_AUTOMATED',
  ],
  territorial_scope: [
    'AT',
    'BE',
    'BG',
    'CY',
    'CZ',
    'DE',
    'DK',
    'EE',
    'ES',
    'FI',
    'FR',
    'GR',
    'HR',
    'HU',
    'IE',
    'IS',
    'IT',
    'LI',
    'LT',
    'LU',
    'LV',
    'MT',
    'NL',
    'NO',
    'PL',
    'PT',
    'RO',
    'SE',
    'SI',
    'SK',
  ],
} as const;

type Statement = Record<string, unknown>;
export type Errors = Record<string, string[]>;

const present = (v: unknown) =>
  v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
const isDay = (v: unknown) =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));

/** The database's rules for one statement (multi_rules): its errors by field, empty when valid. */
export function validateStatement(s: Statement): Errors {
  const errors: Errors = {};
  const add = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
  };
  const oneOf = (field: keyof typeof KEYS, nullable: boolean) => {
    const v = s[field];
    if (!present(v)) return;
    if (nullable && v === null) return;
    if (typeof v !== 'string' || !(KEYS[field] as readonly string[]).includes(v))
      add(field, `The selected ${field.replaceAll('_', ' ')} is invalid.`);
  };
  const listOf = (field: keyof typeof KEYS, required: boolean) => {
    const v = s[field];
    if (v === undefined || v === null) {
      if (required) add(field, `The ${field.replaceAll('_', ' ')} field is required.`);
      return;
    }
    if (!Array.isArray(v)) {
      add(field, `The ${field.replaceAll('_', ' ')} field must be an array.`);
      return;
    }
    if (required && v.length === 0) add(field, `The ${field.replaceAll('_', ' ')} field is required.`);
    if (v.some((x) => !(KEYS[field] as readonly string[]).includes(x as string)))
      add(field, `The selected ${field.replaceAll('_', ' ')} is invalid.`);
  };
  const maxLen = (field: string, n: number) => {
    const v = s[field];
    if (typeof v === 'string' && v.length > n)
      add(field, `The ${field.replaceAll('_', ' ')} field must not be greater than ${n} characters.`);
  };
  const required = (field: string) => {
    if (!present(s[field])) add(field, `The ${field.replaceAll('_', ' ')} field is required.`);
  };

  // At least one restriction.
  const restrictions = ['decision_visibility', 'decision_monetary', 'decision_provision', 'decision_account'];
  if (!restrictions.some((f) => present(s[f])))
    for (const f of restrictions)
      add(
        f,
        `The ${f.replaceAll('_', ' ')} field is required when none of ${restrictions
          .filter((x) => x !== f)
          .join(' / ')
          .replaceAll('_', ' ')} are present.`,
      );
  if (present(s.decision_visibility)) listOf('decision_visibility', false);
  if ((s.decision_visibility as unknown[] | undefined)?.includes?.('DECISION_VISIBILITY_OTHER')) {
    required('decision_visibility_other');
    maxLen('decision_visibility_other', 500);
  }
  oneOf('decision_monetary', true);
  if (s.decision_monetary === 'DECISION_MONETARY_OTHER') {
    required('decision_monetary_other');
    maxLen('decision_monetary_other', 500);
  }
  oneOf('decision_provision', true);
  oneOf('decision_account', true);
  oneOf('account_type', true);

  required('decision_ground');
  oneOf('decision_ground', false);
  if (s.decision_ground === 'DECISION_GROUND_ILLEGAL_CONTENT') {
    required('illegal_content_legal_ground');
    required('illegal_content_explanation');
    maxLen('illegal_content_legal_ground', 500);
    maxLen('illegal_content_explanation', 2000);
  }
  if (s.decision_ground === 'DECISION_GROUND_INCOMPATIBLE_CONTENT') {
    required('incompatible_content_ground');
    required('incompatible_content_explanation');
    maxLen('incompatible_content_ground', 500);
    maxLen('incompatible_content_explanation', 2000);
    oneOf('incompatible_content_illegal', false);
  }

  listOf('content_type', true);
  if ((s.content_type as unknown[] | undefined)?.includes?.('CONTENT_TYPE_OTHER')) {
    required('content_type_other');
    maxLen('content_type_other', 500);
  }
  required('category');
  oneOf('category', false);
  if (s.territorial_scope !== undefined && s.territorial_scope !== null) listOf('territorial_scope', false);
  if (
    present(s.content_language) &&
    !(typeof s.content_language === 'string' && /^[A-Z]{2}$/.test(s.content_language))
  )
    add('content_language', 'The selected content language is invalid.');

  required('content_date');
  if (present(s.content_date)) {
    if (!isDay(s.content_date)) add('content_date', 'The content date does not match the format YYYY-MM-DD.');
    else if (String(s.content_date) < '2000-01-01' || String(s.content_date) > '2038-01-01')
      add('content_date', 'The content date must be a date between 2000-01-01 and 2038-01-01.');
  }
  required('application_date');
  if (present(s.application_date)) {
    if (!isDay(s.application_date))
      add('application_date', 'The application date does not match the format YYYY-MM-DD.');
    else if (String(s.application_date) < '2020-01-01' || String(s.application_date) > '2038-01-01')
      add('application_date', 'The application date must be a date between 2020-01-01 and 2038-01-01.');
  }
  for (const f of [
    'end_date_account_restriction',
    'end_date_monetary_restriction',
    'end_date_service_restriction',
    'end_date_visibility_restriction',
  ])
    if (present(s[f]) && (!isDay(s[f]) || String(s[f]) > '2038-01-01'))
      add(f, `The ${f.replaceAll('_', ' ')} does not match the format YYYY-MM-DD.`);

  required('decision_facts');
  maxLen('decision_facts', 5000);
  required('source_type');
  oneOf('source_type', false);
  maxLen('source_identity', 500);
  required('automated_detection');
  oneOf('automated_detection', false);
  required('automated_decision');
  oneOf('automated_decision', false);
  required('puid');
  maxLen('puid', 500);
  if (present(s.puid) && !(typeof s.puid === 'string' && /^[a-zA-Z0-9_-]+$/.test(s.puid)))
    add('puid', 'The puid format is invalid.');
  return errors;
}

export interface StoredStatement {
  platform: string;
  uuid: string;
  statement: Statement;
}

export class TransparencyDatabaseStandIn {
  /** Tokens and the platform each names. */
  readonly tokens = new Map<string, string>();
  /** Every statement stored, in order. */
  readonly stored: StoredStatement[] = [];
  /** Every call received: its platform (or null: a bad token) and its status. */
  readonly calls: { platform: string | null; count: number; status: number }[] = [];
  /** Faults the next calls meet, one each, in order: a status to answer, or a delay before answering. */
  faults: ({ status: number; retryAfter?: number } | { delayMs: number })[] = [];
  /** A rule of this test's own on top of the database's (to make it refuse a statement). */
  extraRule: ((s: Statement) => Errors) | undefined;
  /** A delay before every answer (a call stays in flight that long: a drill kills its caller). */
  delayMs = 0;
  /** Calls being answered now. */
  inFlight = 0;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A platform's account: its token. */
  platform(name: string): string {
    const token = crypto.randomBytes(20).toString('hex');
    this.tokens.set(token, name);
    return token;
  }

  storedFor(platform: string): StoredStatement[] {
    return this.stored.filter((s) => s.platform === platform);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    this.inFlight++;
    try {
      await this.answer(req, res);
    } finally {
      this.inFlight--;
    }
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/api/v1/statements') return send(404, { message: 'Not Found' });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const platform = token ? this.tokens.get(token) : undefined;
    if (!platform) {
      this.calls.push({ platform: null, count: 0, status: 401 });
      return send(401, { message: 'Unauthenticated.' });
    }
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const fault = this.faults.shift();
    if (fault && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
    else if (fault) {
      this.calls.push({ platform, count: 0, status: fault.status });
      return send(
        fault.status,
        { message: fault.status === 429 ? 'Too Many Attempts.' : 'Server Error' },
        fault.retryAfter ? { 'retry-after': String(fault.retryAfter) } : {},
      );
    }
    let body: { statements?: unknown };
    try {
      body = JSON.parse(raw) as { statements?: unknown };
    } catch {
      return send(400, { message: 'Malformed JSON' });
    }
    const list = body.statements;
    if (!Array.isArray(list) || list.length < 1 || list.length > 100) {
      this.calls.push({ platform, count: 0, status: 422 });
      return send(422, {
        message: 'The statements field must have between 1 and 100 items.',
        errors: { statements: ['The statements field must have between 1 and 100 items.'] },
      });
    }
    const errors: Record<string, Errors> = {};
    list.forEach((s, i) => {
      const e = { ...validateStatement(s as Statement), ...(this.extraRule?.(s as Statement) ?? {}) };
      if (Object.keys(e).length) errors[`statement_${i}`] = e;
    });
    if (Object.keys(errors).length) {
      this.calls.push({ platform, count: list.length, status: 422 });
      return send(422, { errors });
    }
    const puids = list.map((s) => (s as Statement).puid as string);
    const held = new Set(this.storedFor(platform).map((s) => s.statement.puid as string));
    const duplicates = puids.filter((p, i) => held.has(p) || puids.indexOf(p) !== i);
    if (duplicates.length) {
      this.calls.push({ platform, count: list.length, status: 422 });
      const message = 'The platform identifier(s) are not all unique within this call.';
      return send(422, { message, errors: { puid: [message], existing_puids: [...new Set(duplicates)] } });
    }
    const out = list.map((s) => {
      const uuid = crypto.randomUUID();
      this.stored.push({ platform, uuid, statement: s as Statement });
      return {
        ...(s as Statement),
        uuid,
        platform_name: platform,
        created_at: new Date().toISOString().replace('T', ' ').slice(0, 19),
        self: `${this.url}/api/v1/statement/${uuid}`,
        permalink: `${this.url}/statement/${uuid}`,
      };
    });
    this.calls.push({ platform, count: list.length, status: 201 });
    send(201, { statements: out });
  }
}
