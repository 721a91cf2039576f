import Joi from 'joi';
import { SERVICE_ID } from '../domain/players.js';
import crypto from 'node:crypto';
import { withTransaction, type Pool, type PoolClient } from '../data/db.js';
import { insertAudit } from '../data/repos/moderation.js';
import { evasionFilingFacts, studioPlayers } from '../data/repos/signals.js';
import { recordReports, type FilingOptions, type ReportToRecord } from '../data/repos/offenses.js';
import { computePenalty, type PenaltyCaps } from '../domain/penalty.js';
import { KIND_OF_TYPE, type NormalisedReport } from '../domain/reports.js';
import { SANCTION } from '../domain/audit-words.js';
import {
  bulkSignalsSchema,
  normalizeSignal,
  OBSERVED_CLOCK_SKEW_MS,
  playerSignalsSchema,
  SIGNAL_RULES,
  signalDigest,
  type SignalKeys,
  type SignalKind,
} from '../domain/signals.js';
import { AppError, notFound, validationError } from '../errors.js';
import {
  attachSuspicionOffenses,
  clearSuspicion,
  detectEvasion,
  recordSignals,
  type SignalInput,
  type Suspicion,
} from '../lifecycles/signals.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import { weighingFor } from './rule-triggers.js';
import type { OutboxRow } from '../queues/outbox.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';

export interface SignalDeps {
  pool: Pool;
  keys: SignalKeys;
  clock: () => Date;
  /** The penalty caps an evasion case's held points are computed under (PENALTY_CAP_*). */
  caps: PenaltyCaps;
  /** How the evasion case's offense writes the jobs it owes (QUEUE_SHARDS). */
  filing?: FilingOptions;
  /** Hands the outbox rows of a committed call to the queues. */
  dispatch: (rows: OutboxRow[]) => void;
}

interface Item {
  serviceId: string;
  kind: SignalKind;
  value: string;
  observedAt?: Date;
}

/** The answer about one player's evasion: suspected, and of which bans (the studio's own players). */
export interface EvasionAnswer {
  evasionSuspected: boolean;
  evasion: {
    suspicionId: string;
    linkedTo: string;
    sanctionId: string;
    kinds: SignalKind[];
    strength: number;
    detectedAt: string;
  }[];
}

/** A sighting's time: the call's when not given; never in the future, never older than any kind keeps. */
function observedTimes(items: readonly Item[], now: Date) {
  const problems: { field: string; message: string }[] = [];
  const times = items.map((item, i) => {
    const at = item.observedAt ?? now;
    if (at.getTime() > now.getTime() + OBSERVED_CLOCK_SKEW_MS)
      problems.push({ field: `signals.${i}.observedAt`, message: 'is in the future' });
    else if (now.getTime() - at.getTime() > SIGNAL_RULES[item.kind].retentionDays * 86_400_000)
      problems.push({
        field: `signals.${i}.observedAt`,
        message: `is older than ${item.kind} is kept (${SIGNAL_RULES[item.kind].retentionDays} days)`,
      });
    return at;
  });
  if (problems.length) throw validationError(problems);
  return times;
}

/**
 * The evasion case of each new suspicion (docs/linked-accounts.md "Evasion at the door"): one offense
 * on the suspect, in the transaction that recorded the suspicion, through the one filing path
 * (pt_file_reports, Rule evasion_check): source evasion_check (automated detection by the service),
 * of the kind of the case the ban was decided on (cheating for a ban decided without a case), high
 * severity, its points held for a moderator; its evidence the kinds shared, the strength and the
 * ban's decision (never the banned account's identity, which the moderator reads in the links).
 * The review worker files it into the suspect's open case of that kind, or a new one, as any report.
 */
async function fileEvasionCases(
  client: PoolClient,
  deps: SignalDeps,
  studioId: string,
  fresh: readonly Suspicion[],
): Promise<{ outbox: OutboxRow[]; offenses: { playerId: string; offenseId: string }[] }> {
  if (fresh.length === 0) return { outbox: [], offenses: [] };
  const facts = await evasionFilingFacts(client, studioId, fresh);
  const items: ReportToRecord[] = [];
  const pairs: { suspicionId: string; offenseId: string; playerId: string }[] = [];
  for (const s of fresh) {
    const f = facts.get(`${s.playerId}/${s.sanctionId}`);
    if (!f) continue;
    const type = f.caseType ?? 'cheating';
    const report: NormalisedReport = {
      kind: KIND_OF_TYPE[type],
      type,
      detected: true,
      severity: 'high',
      description: `The sign-in check found this account strongly linked (strength ${s.strength.toFixed(2)}, by ${s.kinds.join(', ')}) to an account under ${SANCTION[f.banType]} in force since ${f.banStartsAt.toISOString()}: possibly an evasion of that ban. Nothing is taken until a moderator decides.`,
      evidence: [],
      details: {
        evasion: {
          suspicionId: s.id,
          sanctionId: s.sanctionId,
          banType: f.banType,
          kinds: s.kinds,
          strength: s.strength,
        },
      },
      context: { source: 'evasion_check' },
    };
    const offenseId = crypto.randomUUID();
    items.push({
      offenseId,
      serviceId: s.serviceId,
      gameId: f.gameId,
      studioId,
      report,
      penalty: computePenalty(report, deps.caps),
      playerSourced: false,
      hold: 'evasion_check',
      // No reporter and held whatever the budget: the policy is never reached.
      policy: { reporterQuota: 1, studioBudget: 1, credibilityThreshold: 0, credibilityMinHistory: 0 },
    });
    pairs.push({ suspicionId: s.id, offenseId, playerId: s.playerId });
  }
  const outcomes = await recordReports(client, items, deps.filing);
  const outbox: OutboxRow[] = [];
  const attached: typeof pairs = [];
  outcomes.forEach((o, i) => {
    if (o.status !== 'created') return;
    outbox.push(...o.outbox);
    attached.push(pairs[i]!);
  });
  await attachSuspicionOffenses(client, attached);
  return { outbox, offenses: attached };
}

/**
 * Records a studio's signals about its players and runs the evasion check on each player they name:
 * one transaction, so a value is never stored without the links it makes. Every player must be one
 * of the studio's (linked to one of its games): otherwise 404 naming them, and nothing is stored.
 */
async function ingest(
  deps: SignalDeps,
  studioId: string,
  items: readonly Item[],
  observed: readonly Date[],
): Promise<{ added: number; seenAgain: number; suspicions: Suspicion[]; ids: Map<string, string> }> {
  const ids = await studioPlayers(
    deps.pool,
    studioId,
    items.map((i) => i.serviceId),
  );
  const missing = [...new Set(items.map((i) => i.serviceId).filter((s) => !ids.has(s)))];
  if (missing.length)
    throw new AppError(
      404,
      'not_found',
      `No player of this studio's games with the serviceId ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` (and ${missing.length - 10} more)` : ''}; nothing was recorded.`,
    );
  const { current, previous } = deps.keys;
  const inputs: SignalInput[] = items.map((item, i) => {
    const normal = normalizeSignal(item.kind, item.value)!;
    return {
      playerId: ids.get(item.serviceId)!,
      kind: item.kind,
      digest: signalDigest(current.key, studioId, item.kind, normal),
      previousDigests: previous.map((p) => signalDigest(p.key, studioId, item.kind, normal)),
      observedAt: observed[i]!,
    };
  });
  const now = deps.clock();
  const { result, outbox } = await withTransaction(deps.pool, async (client) => {
    const rec = await recordSignals(client, studioId, current.id, inputs);
    const suspicions = await detectEvasion(client, studioId, [...new Set(ids.values())], now);
    const fresh = suspicions.filter((s) => s.fresh);
    // Each new suspicion opens an evasion case for moderators (its offense's points held for them).
    const filed = await fileEvasionCases(client, deps, studioId, fresh);
    const evasionOffenses = new Map<string, string[]>();
    for (const f of filed.offenses)
      evasionOffenses.set(f.playerId, [...(evasionOffenses.get(f.playerId) ?? []), f.offenseId]);
    // The studio hears of each new suspicion (player.evasion_suspected): its game may act at once.
    const outbox = await emitEvents(
      client,
      fresh.map((s) => ({
        type: 'player.evasion_suspected' as const,
        dataByStudio: new Map([
          [
            studioId,
            {
              suspicionId: s.id,
              playerId: s.serviceId,
              linkedTo: s.bannedServiceId,
              sanctionId: s.sanctionId,
              kinds: s.kinds,
              strength: s.strength,
              detectedAt: s.detectedAt.toISOString(),
            },
          ],
        ]),
      })),
      now,
    );
    // Rules triggered by a suspicion weigh each suspect's open cases once this commits (one job a
    // suspect, named by its first new suspicion).
    const firstOf = new Map<string, string>();
    for (const s of fresh) if (!firstOf.has(s.playerId)) firstOf.set(s.playerId, s.id);
    for (const [playerId, suspicionId] of firstOf)
      outbox.push(
        ...(await weighingFor(
          client,
          'evasion_suspected',
          playerId,
          suspicionId,
          evasionOffenses.get(playerId) ?? [],
        )),
      );
    return { result: { ...rec, suspicions }, outbox: [...filed.outbox, ...outbox] };
  });
  deps.dispatch(outbox);
  return { added: result.added, seenAgain: result.seenAgain, suspicions: result.suspicions, ids };
}

/**
 * A sign-in's or a session's signals about one player (POST /v1/player/{serviceId}/signals): recorded,
 * then the evasion check, whose verdict is the answer.
 */
export async function recordPlayerSignals(
  deps: SignalDeps,
  studioId: string,
  serviceId: string,
  input: unknown,
): Promise<{ serviceId: string; added: number; seenAgain: number } & EvasionAnswer> {
  const body = check<{ signals: { kind: SignalKind; value: string }[]; observedAt?: Date }>(
    playerSignalsSchema,
    input,
  );
  if (!SERVICE_ID.test(serviceId)) throw notFound(`Player ${serviceId}`);
  const items = body.signals.map((s) => ({ ...s, serviceId, observedAt: body.observedAt }));
  const observed = observedTimes(items, deps.clock());
  const out = await ingest(deps, studioId, items, observed);
  return {
    serviceId,
    added: out.added,
    seenAgain: out.seenAgain,
    evasionSuspected: out.suspicions.length > 0,
    evasion: out.suspicions.map((s) => ({
      suspicionId: s.id,
      linkedTo: s.bannedServiceId,
      sanctionId: s.sanctionId,
      kinds: s.kinds,
      strength: s.strength,
      detectedAt: s.detectedAt.toISOString(),
    })),
  };
}

/** Many players' signals at once (POST /v1/signals): a backfill, or a batch of sessions. */
export async function recordBulkSignals(
  deps: SignalDeps,
  studioId: string,
  input: unknown,
): Promise<{ accepted: number; added: number; seenAgain: number; evasionSuspected: string[] }> {
  const body = check<{ signals: Item[] }>(bulkSignalsSchema, input);
  const observed = observedTimes(body.signals, deps.clock());
  const out = await ingest(deps, studioId, body.signals, observed);
  return {
    accepted: body.signals.length,
    added: out.added,
    seenAgain: out.seenAgain,
    evasionSuspected: [...new Set(out.suspicions.map((s) => s.serviceId))].sort(),
  };
}

export const clearSuspicionSchema = Joi.object({
  reason: text(2000)
    .required()
    .description('Why it is not evasion (a household, a shared console): kept in the audit log.'),
});

/**
 * A moderator clears a suspicion that is not evasion, with the reason (audited as clear_evasion):
 * 404 for none, 409 already_cleared for one cleared before (nothing changes).
 */
export async function clearEvasionSuspicion(
  pool: Pool,
  actor: Actor,
  id: string,
  input: unknown,
  now: Date,
): Promise<void> {
  const { reason } = check<{ reason: string }>(clearSuspicionSchema, input);
  const outcome = await withTransaction(pool, async (db) => {
    const done = await clearSuspicion(db, id, actor.id, reason, now);
    if (done === 'cleared')
      await insertAudit(db, {
        moderatorId: actor.id,
        action: 'clear_evasion',
        outcome: null,
        caseId: null,
        trustScoreBefore: null,
        trustScoreAfter: null,
        note: reason,
        details: { suspicionId: id },
      });
    return done;
  });
  if (outcome === 'missing') throw notFound(`Evasion suspicion ${id}`);
  if (outcome === 'already')
    throw new AppError(409, 'already_cleared', 'This suspicion was cleared already; nothing changed.');
}
