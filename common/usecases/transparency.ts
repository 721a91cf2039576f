import Joi from 'joi';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { findStudio } from '../data/repos/accounts.js';
import {
  deleteAccount,
  findStatements,
  findStatementsOfSanctions,
  listAccounts,
  playersOfSanctions,
  saveAccount,
  stateOfStatement,
  statementCounts,
  type StatementRow,
  type TransparencyAccount,
} from '../data/repos/transparency.js';
import { isUuid } from '../domain/ids.js';
import { AppError, notFound, validationError } from '../errors.js';
import { recordRetry, STATEMENT_STATES, type StatementState } from '../lifecycles/transparency-statement.js';
import type { OutboxRow } from '../queues/outbox.js';
import { sealWebhookSecret } from '../security/webhook-secrets.js';
import { check } from '../validation.js';

/** An account as admins see it: never its token, only whether one is set. */
export const presentAccount = (a: TransparencyAccount) => ({
  platform: a.platform,
  mode: a.mode,
  baseUrl: a.baseUrl,
  tokenSet: a.tokenSealed !== null,
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
});

export const accountSchema = Joi.object({
  mode: Joi.string()
    .valid('submit', 'dry-run')
    .required()
    .description(
      'submit: statements go to baseUrl with the token; dry-run: they are written as JSON lines for review.',
    ),
  baseUrl: Joi.string()
    .uri({ scheme: ['https', 'http'] })
    .max(500)
    .description(
      "The database's address, e.g. https://transparency.dsa.ec.europa.eu (its sandbox first). Required for submit.",
    ),
  token: Joi.string()
    .min(8)
    .max(4000)
    .description("The platform's API token (Bearer), kept sealed; never shown again. Required for submit."),
});

/** The platform an account is for: `operator`, or a studio's id (which must exist). */
async function platformOf(pool: Pool, platform: string): Promise<string> {
  if (platform === 'operator') return platform;
  if (!isUuid(platform)) throw notFound(`Platform ${platform}`);
  if (!(await findStudio(pool, platform))) throw notFound(`Studio ${platform}`);
  return platform;
}

export async function putAccount(pool: Pool, pepper: string, platform: string, body: unknown) {
  const v = check<{ mode: 'submit' | 'dry-run'; baseUrl?: string; token?: string }>(accountSchema, body);
  const key = await platformOf(pool, platform);
  if (v.mode === 'submit') {
    const missing = [
      ...(v.baseUrl ? [] : [{ field: 'baseUrl', message: 'is required for submit' }]),
      ...(v.token ? [] : [{ field: 'token', message: 'is required for submit' }]),
    ];
    if (missing.length) throw validationError(missing);
  }
  const saved = await saveAccount(pool, {
    platform: key,
    mode: v.mode,
    baseUrl: v.baseUrl ?? null,
    tokenSealed: v.token ? sealWebhookSecret(v.token, pepper) : null,
  });
  return { created: saved.created, account: presentAccount(saved.account) };
}

export async function removeAccount(pool: Pool, platform: string) {
  if (!(await deleteAccount(pool, platform))) throw notFound(`Account of ${platform}`);
}

export const accounts = async (pool: Pool) => (await listAccounts(pool)).map(presentAccount);

export const statementListSchema = Joi.object({
  state: Joi.string()
    .valid(...STATEMENT_STATES)
    .description('Default: refused and pending (what needs attention).'),
  platform: Joi.string().max(64),
  limit: Joi.number().integer().min(1).max(200).default(50),
});

const presentStatement = (r: StatementRow, playerServiceId: string | null = null) => ({
  id: r.id,
  sanctionId: r.sanction_id,
  playerServiceId,
  platform: r.platform,
  puid: r.puid,
  state: r.state,
  uuid: r.tdb_uuid,
  permalink: r.permalink,
  dryRun: r.dry_run,
  refusal: r.refusal ?? null,
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: r.state === 'pending' ? r.next_attempt_at.toISOString() : null,
  createdAt: r.created_at.toISOString(),
  sentAt: r.sent_at?.toISOString() ?? null,
  refusedAt: r.refused_at?.toISOString() ?? null,
  statement: r.body ?? null,
});

/**
 * Statements for admins: by default the refused (newest first) and then the oldest pending, each
 * with the database's words; with `state`, that state only. And the counts that need attention.
 */
export async function listStatements(pool: Pool, query: unknown) {
  const q = check<{ state?: StatementState; platform?: string; limit: number }>(
    statementListSchema,
    query,
    'query',
  );
  const states: StatementState[] = q.state ? [q.state] : ['refused', 'pending'];
  const [rows, c] = await Promise.all([
    findStatements(pool, { states, platform: q.platform ?? null, limit: q.limit }),
    statementCounts(pool),
  ]);
  // Whom each is about, for the admin's link to the player (never sent to the database).
  const playerOf = await playersOfSanctions(
    pool,
    rows.map((r) => r.sanction_id),
  );
  return {
    items: rows.slice(0, q.limit).map((r) => presentStatement(r, playerOf.get(r.sanction_id) ?? null)),
    pending: c.pending,
    refused: c.refused,
    oldestPendingAt: c.oldestPending?.toISOString() ?? null,
  };
}

/** The statement of each sanction asked for, as the sanction screens show it. */
export async function statementsOfSanctions(db: Queryable, sanctionIds: readonly string[]) {
  if (sanctionIds.length === 0) return new Map<string, ReturnType<typeof presentStatement>>();
  const rows = await findStatementsOfSanctions(db, sanctionIds.filter(isUuid));
  return new Map(rows.map((r) => [r.sanction_id, presentStatement(r)]));
}

/** A refused statement sent again (once mended): pending, with its job written. */
export async function retryStatement(pool: Pool, id: string): Promise<OutboxRow[]> {
  if (!isUuid(id)) throw notFound(`Statement ${id}`);
  return withTransaction(pool, async (client) => {
    const outbox = await recordRetry(client, id);
    if (outbox) return outbox;
    const state = await stateOfStatement(client, id);
    if (!state) throw notFound(`Statement ${id}`);
    throw new AppError(
      409,
      'statement_not_refused',
      `The statement is ${state}: only a refused one is sent again.`,
    );
  });
}
