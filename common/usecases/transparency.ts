import Joi from 'joi';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { findStudio } from '../data/repos/accounts.js';
import {
  deleteAccount,
  findStatements,
  findStatementsOfSanctions,
  listAccounts,
  playersOfSanctions,
  restrictionsOwedNowhere,
  saveAccount,
  stateOfStatement,
  statementCounts,
  studioNames,
  type StatementRow,
  type TransparencyAccount,
} from '../data/repos/transparency.js';
import { isUuid } from '../domain/ids.js';
import { AppError, notFound, validationError } from '../errors.js';
import { recordRetry, STATEMENT_STATES, type StatementState } from '../lifecycles/transparency-statement.js';
import type { OutboxRow } from '../queues/outbox.js';
import { sealWebhookSecret } from '../security/webhook-secrets.js';
import { check } from '../validation.js';

/** A platform in words: the operator's global decisions, or a studio by its name (its id when gone). */
export const platformName = (platform: string, names: ReadonlyMap<string, string>) =>
  platform === 'operator' ? 'The operator (global decisions)' : (names.get(platform) ?? `Studio ${platform}`);

/** An account as admins see it: never its token, only whether one is set. */
export const presentAccount = (a: TransparencyAccount, names: ReadonlyMap<string, string> = new Map()) => ({
  platform: a.platform,
  platformName: platformName(a.platform, names),
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
  return {
    created: saved.created,
    account: presentAccount(saved.account, await studioNames(pool, [key])),
  };
}

export async function removeAccount(pool: Pool, platform: string) {
  if (!(await deleteAccount(pool, platform))) throw notFound(`Account of ${platform}`);
}

/**
 * The accounts, and the restrictions owed nowhere: placed while their platform had no account, so no
 * statement was made for them (docs/compliance.md "The Transparency Database"), by platform, for the admin to
 * see what connecting later will not send.
 */
export async function accounts(pool: Pool) {
  const [list, owed] = await Promise.all([listAccounts(pool), restrictionsOwedNowhere(pool)]);
  const names = await studioNames(pool, [...list.map((a) => a.platform), ...owed.map((o) => o.platform)]);
  return {
    items: list.map((a) => presentAccount(a, names)),
    owedNowhere: owed.map((o) => ({
      platform: o.platform,
      platformName: platformName(o.platform, names),
      connected: list.some((a) => a.platform === o.platform),
      restrictions: o.restrictions,
      firstPlacedAt: o.first.toISOString(),
      lastPlacedAt: o.last.toISOString(),
    })),
  };
}

export const statementListSchema = Joi.object({
  state: Joi.string()
    .valid(...STATEMENT_STATES)
    .description('Default: refused and pending (what needs attention).'),
  platform: Joi.string().max(64),
  dryRun: Joi.boolean().description(
    'true: the statements written in a dry run, newest first, each with what it says (state is sent).',
  ),
  limit: Joi.number().integer().min(1).max(200).default(50),
});

const presentStatement = (
  r: StatementRow,
  playerServiceId: string | null = null,
  names: ReadonlyMap<string, string> = new Map(),
) => ({
  id: r.id,
  sanctionId: r.sanction_id,
  playerServiceId,
  platform: r.platform,
  platformName: platformName(r.platform, names),
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
  const q = check<{ state?: StatementState; platform?: string; dryRun?: boolean; limit: number }>(
    statementListSchema,
    query,
    'query',
  );
  if (q.dryRun !== undefined && q.state !== undefined && q.state !== 'sent')
    throw validationError([{ field: 'dryRun', message: 'goes with state sent (or no state)' }]);
  const states: StatementState[] =
    q.dryRun !== undefined ? ['sent'] : q.state ? [q.state] : ['refused', 'pending'];
  const [rows, c] = await Promise.all([
    findStatements(pool, { states, platform: q.platform ?? null, limit: q.limit, dryRun: q.dryRun ?? null }),
    statementCounts(pool),
  ]);
  // Whom each is about, for the admin's link to the player (never sent to the database).
  const [playerOf, names] = await Promise.all([
    playersOfSanctions(
      pool,
      rows.map((r) => r.sanction_id),
    ),
    studioNames(
      pool,
      rows.map((r) => r.platform),
    ),
  ]);
  return {
    items: rows.slice(0, q.limit).map((r) => presentStatement(r, playerOf.get(r.sanction_id) ?? null, names)),
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
