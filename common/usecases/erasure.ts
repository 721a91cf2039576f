import Joi from 'joi';
import { withTransaction, type Pool } from '../data/db.js';
import { appendTombstones, type Tombstone } from '../data/erasure-ledger.js';
import { isUuid } from '../domain/ids.js';
import { SERVICE_ID } from '../domain/players.js';
import { AppError, notFound } from '../errors.js';
import {
  applyErasure,
  ERASURE_STATES,
  recordDecision,
  receiptWords,
  recordRequest,
  type ErasureRow,
  type ErasureState,
  confirmedAtOnce,
} from '../lifecycles/erasure.js';
import type { Logger } from '../logger.js';
import type { OutboxRow } from '../queues/outbox.js';
import { check } from '../validation.js';
import {
  countAwaitingConfirmation,
  erasablePlayer,
  erasureRows,
  findErasure,
  notErased,
} from '../data/repos/erasure.js';

/**
 * Erasure of a player's personal data (GDPR Art. 17; issue 36; docs/compliance.md "Personal data"): who may ask,
 * the ledger written once an erasure is decided, the job that applies it and the start that applies
 * again what a restored database lost. The life cycle itself is common/lifecycles/erasure.ts.
 */

export type Requester =
  | { kind: 'admin'; moderatorId: string }
  | { kind: 'studio'; studioId: string }
  /** The admin tool, at the shell. */
  | { kind: 'operator' };

export const presentErasure = (r: ErasureRow) => ({
  id: r.id,
  state: r.state,
  /** The player's internal id: it names nobody once the erasure is done. */
  playerRecordId: r.player_id,
  requestedBy: r.requested_by_studio
    ? ('studio' as const)
    : r.requested_by_moderator
      ? ('admin' as const)
      : r.requested_by_operator
        ? ('operator' as const)
        : ('restore' as const),
  requestedAt: r.requested_at.toISOString(),
  confirmedAt: r.confirmed_at?.toISOString() ?? null,
  completedAt: r.completed_at?.toISOString() ?? null,
  cancelledAt: r.cancelled_at?.toISOString() ?? null,
  receipt: r.receipt,
  receiptWords: receiptWords(r.receipt),
});
export type ErasureView = ReturnType<typeof presentErasure>;

const tombstoneOf = (r: ErasureRow): Tombstone => ({
  erasureId: r.id,
  playerId: r.player_id,
  at: (r.confirmed_at ?? new Date()).toISOString(),
});

/**
 * A request to erase the player `serviceId`. An admin's is decided at once; a studio's too when the
 * player plays only the studio's games (nobody else's data is touched), else it awaits an admin. A
 * studio asks only for a player of its games (404 otherwise, as its reads answer). A decided erasure
 * is in the ledger before this answers. `created: false`: the player's open request, unchanged.
 */
export async function requestErasure(
  pool: Pool,
  ledger: string,
  serviceId: string,
  by: Requester,
): Promise<{ erasure: ErasureView; created: boolean; outbox: OutboxRow[] }> {
  if (!SERVICE_ID.test(serviceId)) throw notFound(`Player ${serviceId}`);
  const result = await withTransaction(pool, async (client) => {
    const player = await erasablePlayer(client, serviceId, by.kind === 'studio' ? by.studioId : null);
    if (!player || (by.kind === 'studio' && player.ownGames === 0)) throw notFound(`Player ${serviceId}`);
    return recordRequest(client, {
      playerId: player.id,
      byStudio: by.kind === 'studio' ? by.studioId : undefined,
      byModerator: by.kind === 'admin' ? by.moderatorId : undefined,
      byOperator: by.kind === 'operator',
      confirmed: confirmedAtOnce(by.kind, player.otherGames),
    });
  });
  if (result.erasure.state === 'pending') appendTombstones(ledger, [tombstoneOf(result.erasure)]);
  return { erasure: presentErasure(result.erasure), created: result.created, outbox: result.outbox };
}

/** An admin confirms or cancels a request awaiting confirmation (409 when it is not). */
export async function decideErasure(
  pool: Pool,
  ledger: string,
  erasureId: string,
  moderatorId: string,
  decision: 'confirm' | 'cancel',
): Promise<{ erasure: ErasureView; outbox: OutboxRow[] }> {
  if (!isUuid(erasureId)) throw notFound(`Erasure ${erasureId}`);
  const decided = await withTransaction(pool, (client) =>
    recordDecision(client, erasureId, moderatorId, decision),
  );
  if (!decided) {
    const current = await findErasure(pool, erasureId);
    if (!current) throw notFound(`Erasure ${erasureId}`);
    throw new AppError(
      409,
      'erasure_not_awaiting',
      `Erasure ${erasureId} is ${current.state.replace('_', ' ')}: only a request awaiting confirmation is confirmed or cancelled.`,
    );
  }
  if (decided.erasure.state === 'pending') appendTombstones(ledger, [tombstoneOf(decided.erasure)]);
  return { erasure: presentErasure(decided.erasure), outbox: decided.outbox };
}

/** One erasure: an admin sees any, a studio those it asked for (404 for others). */
export async function getErasure(pool: Pool, id: string, studioId?: string): Promise<ErasureView> {
  const row = isUuid(id) ? await findErasure(pool, id) : undefined;
  if (!row || (studioId !== undefined && row.requested_by_studio !== studioId))
    throw notFound(`Erasure ${id}`);
  return presentErasure(row);
}

export const erasureListSchema = Joi.object({
  state: Joi.string()
    .valid(...ERASURE_STATES)
    .description('Only erasures in this state (default: all), newest request first.'),
  limit: Joi.number().integer().min(1).max(200).default(50),
});

/** Erasures, newest request first, and how many await an admin. */
export async function listErasures(pool: Pool, query: unknown) {
  const q = check<{ state?: ErasureState; limit: number }>(erasureListSchema, query, 'query');
  const [rows, awaiting] = await Promise.all([
    erasureRows(pool, q.state ?? null, q.limit),
    countAwaitingConfirmation(pool),
  ]);
  return { items: rows.map(presentErasure), awaitingConfirmation: awaiting };
}

/**
 * The erase-player job: applies a pending erasure (its tombstone written again first, for a request
 * whose API process died between its commit and the ledger). Nothing for one done, cancelled or gone.
 */
export async function runErasure(
  pool: Pool,
  ledger: string,
  erasureId: string,
  now: Date,
): Promise<{ state: ErasureState | 'missing'; applied: boolean }> {
  const row = await findErasure(pool, erasureId);
  if (!row) return { state: 'missing', applied: false };
  if (row.state !== 'pending') return { state: row.state, applied: false };
  appendTombstones(ledger, [tombstoneOf(row)]);
  const done = await withTransaction(pool, (client) => applyErasure(client, row.id, row.player_id, now));
  return { state: done?.erasure.state ?? 'missing', applied: done?.applied ?? false };
}

/**
 * Before a process takes traffic: every erasure of the ledger (its `tombstones`) the database does
 * not show applied (a restore of a backup taken before it, or a request whose job has not run yet) is
 * applied now, one transaction each. Returns how many were applied.
 */
export async function reapplyErasures(pool: Pool, tombstones: Tombstone[], log?: Logger): Promise<number> {
  if (!tombstones.length) return 0;
  const behind = new Set(
    await notErased(
      pool,
      tombstones.map((t) => t.playerId),
    ),
  );
  let applied = 0;
  for (const t of tombstones) {
    if (!behind.has(t.playerId)) continue;
    behind.delete(t.playerId);
    const done = await withTransaction(pool, (client) =>
      applyErasure(client, t.erasureId, t.playerId, new Date(t.at)),
    );
    if (done?.applied) applied++;
  }
  if (applied) log?.warn({ applied }, 'erasures of the ledger the database did not hold were applied again');
  return applied;
}
