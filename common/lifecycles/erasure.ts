import type { Queryable } from '../data/db.js';
import { eraseSignals } from './signals.js';
import { ERASE_OFFENSES } from './offense.js';
import { playerAccountKey } from '../domain/players.js';
import { ERASE_APPEAL_WORDS } from './appeal.js';
import { ERASE_CASE_NOTES } from './review-case.js';
import { ERASE_SANCTION_REASONS } from './sanction.js';
import { ERASE_DELIVERY_PAYLOADS } from './webhook-delivery.js';
import { ERASE_PLAYER_MATCHES } from './matches.js';
import { ERASE_COMMENDATIONS, ERASE_HONOR } from './honor.js';
import { ERASE_CONDUCT_COUNTS, ERASE_CONDUCT_SUMMARIES } from './conduct.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import { writeJob, type OutboxRow } from '../queues/outbox.js';
import { type ErasureReceipt, type ErasureRow } from '../data/shapes/erasure.js';

/**
 * A player's erasure (GDPR Art. 17; issue 36), the only code that writes `erasures` and
 * `players.erased_at` (a test holds it to that):
 *
 *   requested by a studio, for a player of other studios' games too --> awaiting_confirmation
 *   awaiting_confirmation --(an admin confirms)--> pending      --(an admin cancels)--> cancelled
 *   requested by an admin, or by a studio for a player of its games alone --> pending
 *   pending --(the erase-player job, or a start that finds the database behind the ledger)--> done
 *
 * A player has at most one open request (a second answers the first). Once pending, an erasure is
 * decided: it is written to the erasure ledger (outside the database, common/data/erasure-ledger.ts)
 * and applied by one transaction (applyErasure), which is idempotent, so a retried job, two workers
 * or a start after a restore erase the same way and leave the same receipt.
 */

/**
 * The condition of the first arrows above: whether a request is pending at once (an admin's or the
 * operator's; a studio's for a player of its games alone) or awaits an admin's confirmation (a
 * studio's for a player who plays other studios' games too, whose records those studios hold).
 */
export const confirmedAtOnce = (by: 'studio' | 'admin' | 'operator', otherStudiosGames: number): boolean =>
  by !== 'studio' || otherStudiosGames === 0;

/** Each part of a receipt in words, for the people who read it (an admin, a studio, the player). */
const RECEIPT_WORDS: Record<string, (n: number) => string> = {
  player: () => "the player's name, gamer tag, password and KYC flag removed; their service id replaced",
  offenses: (n) => `${n} report(s) emptied of their words, evidence, details, reporter and match`,
  duplicateReportKeys: (n) => `${n} duplicate-report key(s) deleted`,
  caseReporters: (n) => `${n} reporter id(s) removed from the player's cases`,
  caseNotes: (n) => `${n} case decision note(s) removed`,
  sanctionReasons: (n) => `${n} sanction reason(s) removed`,
  appeals: (n) => `${n} appeal statement(s) and decision note(s) removed`,
  notes: (n) => `${n} moderator note(s) deleted`,
  tags: (n) => `${n} tag(s) on the player or their cases deleted`,
  auditDetails: (n) => `${n} audit log entr(ies) emptied of notes and details`,
  games: (n) => `${n} link(s) to a game deleted`,
  matches: (n) => `${n} record(s) of the player's part in a match deleted`,
  studioBudget: (n) => `${n} studio penalty budget(s) deleted`,
  accessTokens: (n) => `${n} access token(s) revoked and deleted`,
  tokenFamilies: (n) => `${n} sign-in session(s) and their refresh tokens deleted`,
  authorizationCodes: (n) => `${n} authorization code(s) deleted`,
  signInFailures: (n) => `${n} failed sign-in counter(s) deleted`,
  replayedAnswers: (n) => `${n} stored answer(s) for repeated requests deleted`,
  webhookPayloads: (n) => `${n} webhook event(s) emptied (kept as an id and a type; unsent ones cancelled)`,
};

/** A receipt in words, one line a part that removed something, in the order the erasure ran. */
export function receiptWords(receipt: ErasureReceipt | null): string[] | null {
  if (!receipt) return null;
  const order = ['player', ...ERASE_PARTS];
  return order
    .filter((part) => (receipt[part] ?? 0) > 0)
    .map((part) => RECEIPT_WORDS[part]?.(receipt[part]!) ?? `${part}: ${receipt[part]}`);
}

const RETURNING = `id, player_id, state, requested_by_studio, requested_by_moderator, requested_by_operator,
  decided_by_moderator,
  receipt, requested_at, confirmed_at, completed_at, cancelled_at`;

/** The job that applies a pending erasure, one job id an erasure. */
function jobOf(db: Queryable, erasureId: string): Promise<OutboxRow[]> {
  return writeJob(db, {
    queue: QUEUES.review,
    name: JOB_NAMES.erasePlayer,
    id: `erase-${erasureId}`,
    payload: { erasureId },
  });
}

/**
 * A request to erase the player (`playerId`, internal): pending at once when `confirmed`, else
 * awaiting an admin. When the player already has an open request, that one, unchanged
 * (`created: false`); a confirmed request of an admin confirms one that was awaiting.
 */
export async function recordRequest(
  db: Queryable,
  r: { playerId: string; byStudio?: string; byModerator?: string; byOperator?: boolean; confirmed: boolean },
): Promise<{ erasure: ErasureRow; created: boolean; outbox: OutboxRow[] }> {
  const { rows } = await db.query<ErasureRow>(
    `INSERT INTO erasures (player_id, state, requested_by_studio, requested_by_moderator, decided_by_moderator,
                           requested_by_operator, confirmed_at)
     VALUES ($1, $2, $3, $4, $4, $5, CASE WHEN $2 = 'pending' THEN now() END)
     ON CONFLICT (player_id) WHERE state IN ('awaiting_confirmation', 'pending') DO NOTHING
     RETURNING ${RETURNING}`,
    [
      r.playerId,
      r.confirmed ? 'pending' : 'awaiting_confirmation',
      r.byStudio ?? null,
      r.byModerator ?? null,
      r.byOperator ?? false,
    ],
  );
  if (rows[0])
    return { erasure: rows[0], created: true, outbox: r.confirmed ? await jobOf(db, rows[0].id) : [] };
  const open = (
    await db.query<ErasureRow>(
      `SELECT ${RETURNING} FROM erasures WHERE player_id = $1 AND state IN ('awaiting_confirmation', 'pending')
        FOR UPDATE`,
      [r.playerId],
    )
  ).rows[0]!;
  if (open.state === 'awaiting_confirmation' && r.confirmed && (r.byModerator || r.byOperator)) {
    const confirmed = await recordDecision(db, open.id, r.byModerator ?? null, 'confirm');
    return { erasure: confirmed!.erasure, created: false, outbox: confirmed!.outbox };
  }
  return { erasure: open, created: false, outbox: [] };
}

/**
 * An admin's decision on a request awaiting confirmation: confirmed (pending, its job written) or
 * cancelled. Undefined when it is not awaiting (decided before, or done): the caller says so.
 */
export async function recordDecision(
  db: Queryable,
  erasureId: string,
  /** Null: the operator, with the admin tool. */
  moderatorId: string | null,
  decision: 'confirm' | 'cancel',
): Promise<{ erasure: ErasureRow; outbox: OutboxRow[] } | undefined> {
  const { rows } = await db.query<ErasureRow>(
    `UPDATE erasures SET state = $3, decided_by_moderator = $2, updated_at = now(),
            confirmed_at = CASE WHEN $3 = 'pending' THEN now() END,
            cancelled_at = CASE WHEN $3 = 'cancelled' THEN now() END
      WHERE id = $1 AND state = 'awaiting_confirmation'
      RETURNING ${RETURNING}`,
    [erasureId, moderatorId, decision === 'confirm' ? 'pending' : 'cancelled'],
  );
  if (!rows[0]) return undefined;
  return { erasure: rows[0], outbox: decision === 'confirm' ? await jobOf(db, erasureId) : [] };
}

/**
 * The keys of an audit entry's details an erasure keeps: what the decision was, by kind and id, never
 * whom or whose words (docs/compliance.md "Data map").
 */
const AUDIT_KEYS_KEPT = `{${[
  'sanctionId',
  'type',
  'scope',
  'waveId',
  'ruleId',
  'ruleVersion',
  'automated',
  'strikeLadder',
  'appealId',
  'decision',
  'complaint',
  'reopenedCaseId',
  'pointsRefunded',
  'sanctionsRevoked',
].join(',')}}`;

/**
 * Every statement of an erasure, in order, each removing or irreversibly replacing what names the
 * player (`$1`: the internal id, or the gamer tag or service id it names) in one part of the record; the receipt counts the rows each touched.
 * What stays, and why, is the README's data map: the counts and the decisions' skeleton.
 */
const ERASE: [part: string, sql: string, arg?: 'accountKey' | 'serviceId'][] = [
  ['offenses', ERASE_OFFENSES],
  ['duplicateReportKeys', 'DELETE FROM report_dedup WHERE player_id = $1'],
  [
    'caseReporters',
    'DELETE FROM case_reporters WHERE case_id IN (SELECT id FROM review_cases WHERE player_id = $1)',
  ],
  ['caseNotes', ERASE_CASE_NOTES],
  ['sanctionReasons', ERASE_SANCTION_REASONS],
  ['appeals', ERASE_APPEAL_WORDS],
  [
    'notes',
    'DELETE FROM notes WHERE player_id = $1 OR case_id IN (SELECT id FROM review_cases WHERE player_id = $1)',
  ],
  // A moderator's tag on the player's case ('cheater-ring', 'watch') is a word about the player too:
  // it goes with the player's own tags (docs/compliance.md "Data map"; the case's skeleton keeps no tag).
  [
    'tags',
    `DELETE FROM tags WHERE (subject_kind = 'player' AND subject_id = $1)
        OR (subject_kind = 'case' AND subject_id IN (SELECT id FROM review_cases WHERE player_id = $1))`,
  ],
  // The audit log keeps what a decision was (its kind, scope, ids, outcome) so its words stay true
  // ("Placed a chat restriction in the games of X", not "in every game"); the notes and every other
  // detail (the player's id, reporters, names, words) go.
  [
    'auditDetails',
    `UPDATE moderation_audit SET note = NULL,
            details = (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM jsonb_each(details) e(k, v)
                        WHERE k = ANY('${AUDIT_KEYS_KEPT}'::text[]))
      WHERE (player_id = $1 OR case_id IN (SELECT id FROM review_cases WHERE player_id = $1))
        AND (note IS NOT NULL OR (details - '${AUDIT_KEYS_KEPT}'::text[]) <> '{}'::jsonb)`,
  ],
  ['games', 'DELETE FROM player_games WHERE player_id = $1'],
  // Their part in each match (team, party, result); the match itself names nobody.
  ['matches', ERASE_PLAYER_MATCHES],
  // The commendations they gave and got, and their honor (docs/studios.md "Commendations and honor").
  ['commendations', ERASE_COMMENDATIONS],
  ['honor', ERASE_HONOR],
  // What they did in matches since their last conduct summary, and the summaries (Conduct summaries).
  ['conduct', ERASE_CONDUCT_COUNTS],
  ['conductSummaries', ERASE_CONDUCT_SUMMARIES],
  ['studioBudget', 'DELETE FROM studio_player_budget WHERE player_id = $1'],
  ['accessTokens', 'DELETE FROM access_tokens WHERE player_id = $1'],
  // Their refresh tokens go with them (ON DELETE CASCADE).
  ['tokenFamilies', 'DELETE FROM token_families WHERE player_id = $1'],
  ['authorizationCodes', 'DELETE FROM authorization_codes WHERE player_id = $1'],
  ['signInFailures', 'DELETE FROM sign_in_failures WHERE key = $1', 'accountKey'],
  // Kept a day at most, and not indexed by player: found by the player's id in the stored answer.
  [
    'replayedAnswers',
    `DELETE FROM idempotency_keys WHERE response_body::text LIKE '%"' || $1::text || '"%'`,
    'serviceId',
  ],
  // The events sent about the player keep their id and type; one not yet sent is not sent.
  ['webhookPayloads', ERASE_DELIVERY_PAYLOADS, 'serviceId'],
];

/** The parts of the record an erasure goes through, in order (a receipt's keys, with `player`). */
const ERASE_PARTS = ERASE.map(([part]) => part);

/**
 * Applies the erasure of the player (`playerId`, internal) in one transaction the caller holds: every
 * part of ERASE, then the player's own row (name, gamer tag, password, KYC, service id replaced; the
 * score and counts kept; no more recovery), then the erasure `erasureId` marked done with its
 * receipt (created done when a restore lost it). Idempotent: a second run finds nothing left and
 * keeps the first receipt. Undefined when the player does not exist (a database older than them).
 */
export async function applyErasure(
  db: Queryable,
  erasureId: string,
  playerId: string,
  now: Date,
): Promise<{ erasure: ErasureRow; applied: boolean } | undefined> {
  const { rows: players } = await db.query<{ service_id: string; gamer_tag: string; erased_at: Date | null }>(
    'SELECT service_id, gamer_tag, erased_at FROM players WHERE id = $1 FOR UPDATE',
    [playerId],
  );
  const player = players[0];
  if (!player) return undefined;
  let receipt: ErasureReceipt | null = null;
  if (!player.erased_at) {
    receipt = {};
    // Signals first: the links they made with other players are derived again without them.
    receipt.signals = await eraseSignals(db, playerId);
    for (const [part, sql, arg] of ERASE) {
      const param =
        arg === 'accountKey'
          ? playerAccountKey(player.gamer_tag)
          : arg === 'serviceId'
            ? player.service_id
            : playerId;
      receipt[part] = (await db.query(sql, [param])).rowCount ?? 0;
    }
    await db.query(
      `UPDATE players SET service_id = 'erased-' || id::text, full_name = 'Erased player',
              gamer_tag = 'erased-' || replace(id::text, '-', ''), password_hash = NULL, is_kyc_verified = false,
              recovery_from = 'infinity', erased_at = $2, updated_at = now()
        WHERE id = $1`,
      [playerId, now],
    );
    receipt.player = 1;
  }
  const { rows } = await db.query<ErasureRow>(
    `INSERT INTO erasures (id, player_id, state, receipt, confirmed_at, completed_at)
     VALUES ($1, $2, 'done', $3::jsonb, $4, $4)
     ON CONFLICT (id) DO UPDATE SET state = 'done', updated_at = now(),
            receipt = coalesce(erasures.receipt, EXCLUDED.receipt),
            completed_at = coalesce(erasures.completed_at, EXCLUDED.completed_at)
     RETURNING ${RETURNING}`,
    [erasureId, playerId, JSON.stringify(receipt ?? {}), now],
  );
  return { erasure: rows[0]!, applied: receipt !== null };
}

export {
  ERASURE_STATES,
  type ErasureState,
  type ErasureReceipt,
  type ErasureRow,
} from '../data/shapes/erasure.js';
