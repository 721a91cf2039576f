import crypto from 'node:crypto';
import { withRetries, withTransaction, type Pool, type Queryable } from '../data/db.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyClaim,
} from '../data/repos/idempotency.js';
import {
  recordReports,
  type FilingOptions,
  type RecordOutcome,
  type ReportToRecord,
} from '../data/repos/offenses.js';
import type { Limits } from '../domain/limits.js';
import { GroupCommit } from '../data/group-commit.js';
import { computePenalty, type PenaltyCaps } from '../domain/penalty.js';
import { isPlayerSourced, parseReport, type ReportKind } from '../domain/reports.js';
import { AppError, notFound, validationError } from '../errors.js';
import type { OutboxRow } from '../queues/outbox.js';
import { presentOffense } from '../views.js';
import { activeTraceparent, inBatchSpan } from '../tracing/spans.js';
import type { View } from '../view-schemas.js';
import { filedStatus } from '../lifecycles/offense.js';

export interface SubmitReportDeps {
  pool: Pool;
  /**
   * Files one report without an Idempotency-Key: by default its own statement; the API passes a
   * group commit, so reports arriving together share one statement and one commit.
   */
  write?: (item: ReportToRecord) => Promise<RecordOutcome>;
  /** How the jobs of a report are grouped (QUEUE_SHARDS); one shard when left out. */
  filing?: FilingOptions;
  caps: PenaltyCaps;
  credibility: { threshold: number; minHistory: number };
  idempotencyTtlHours: number;
  /** Called with the outbox rows once their transaction committed. */
  afterCommit: (rows: OutboxRow[]) => void;
  now?: () => Date;
}

/** PostgreSQL's data and integrity errors (classes 22, 23) can be one report's fault; others not. */
const isItemFault = (err: unknown) => /^2[23]/.test((err as { code?: string }).code ?? '');

/**
 * The report flow as an API process runs it, built once at start-up: reports that arrive together
 * (from any number of requests) are filed by one statement and one commit (a group commit around the
 * report statement; a deadlock retries the batch; an error that may be one report's fault is
 * isolated), and their jobs go to the queues after the commit. The route only parses, calls
 * submitReport with these and answers.
 */
export function reportFiling(deps: {
  pool: Pool;
  queueShards: number;
  batchMax: number;
  batchesInFlight: number;
  /** Reports waiting that start another statement while one is in flight (REPORT_BATCH_OVERLAP_AT). */
  batchOverlapAt?: number;
  caps: PenaltyCaps;
  credibility: { threshold: number; minHistory: number };
  idempotencyTtlHours: number;
  /** Hands the outbox rows of a committed filing to the queues (the API's outbox dispatcher). */
  dispatch: (rows: OutboxRow[]) => void;
}): SubmitReportDeps {
  const filing = { queueShards: deps.queueShards };
  const groupCommit = new GroupCommit<ReportToRecord, RecordOutcome>(
    (items) =>
      // Tracing on: the statement's span continues the first report's trace and links the others'.
      inBatchSpan(
        'file reports',
        items.map((i) => i.traceparent),
        { 'player_trust.reports': items.length },
        () => withRetries(() => recordReports(deps.pool, items, filing)),
      ),
    {
      maxBatch: deps.batchMax,
      maxInFlight: deps.batchesInFlight,
      overlapAt: deps.batchOverlapAt,
      isolate: isItemFault,
      // Reports on one player apply in the order they arrived: one player, one batch at a time.
      keyOf: (item) => item.serviceId,
    },
  );
  return {
    pool: deps.pool,
    filing,
    caps: deps.caps,
    idempotencyTtlHours: deps.idempotencyTtlHours,
    credibility: deps.credibility,
    afterCommit: deps.dispatch,
    write: (item) => groupCommit.submit(item),
  };
}

export interface Tenant {
  gameId: string;
  studioId: string;
  /** The game's limits (its overrides over the defaults). */
  limits: Limits;
}

export interface SubmitReportResult {
  status: number;
  body: View<'ReportSubmitResponse'>;
  replayed: boolean;
}

const MESSAGES: Record<ReportKind, string> = {
  anticheat: 'Anti-cheat report submitted successfully',
  toxicity: 'Toxicity report submitted successfully',
  afk: 'AFK report submitted successfully',
  griefing: 'Griefing report submitted successfully',
};

/** Key-order independent JSON, so the same body sent twice hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Validates a report, then in one transaction stores the offense, lowers the trust score by the
 * capped penalty (or holds it, or refuses a duplicate or a reporter over quota: pt_file_reports) and
 * writes the outbox rows; the jobs go to the queues after commit.
 */
export async function submitReport(
  deps: SubmitReportDeps,
  input: {
    kind: ReportKind;
    serviceId: string;
    tenant: Tenant;
    body: unknown;
    idempotencyKey?: string | undefined;
  },
): Promise<SubmitReportResult> {
  const now = deps.now?.() ?? new Date();
  const parsed = parseReport(input.kind, input.body, now);
  if (!parsed.ok) throw validationError(parsed.errors, 'The report has invalid fields; nothing was stored.');
  const report = parsed.report;
  const penalty = computePenalty(report, deps.caps);
  const offenseId = crypto.randomUUID();
  const { tenant, idempotencyKey } = input;
  const item: ReportToRecord = {
    offenseId,
    serviceId: input.serviceId,
    gameId: tenant.gameId,
    studioId: tenant.studioId,
    report,
    penalty,
    playerSourced: isPlayerSourced(report.context),
    traceparent: activeTraceparent(),
    policy: {
      reporterQuota: tenant.limits.reporterQuota,
      studioBudget: tenant.limits.studioBudget,
      credibilityThreshold: deps.credibility.threshold,
      credibilityMinHistory: deps.credibility.minHistory,
    },
  };
  const record = async (db: Queryable) =>
    created((await recordReports(db, [item], deps.filing))[0]!, input.serviceId);
  const respond = (rec: Created): View<'ReportSubmitResponse'> => ({
    message: MESSAGES[input.kind],
    playerId: input.serviceId,
    gameId: tenant.gameId,
    trustScore: rec.trustScore,
    penaltyApplied: rec.offense.penaltyPoints,
    penaltyHeld: rec.offense.penaltyHeld,
    status: filedStatus(rec.offense.status),
    // A report is never a notice (docs/moderators.md "Notices"): that reason is not a report's.
    ...(rec.offense.statusReason &&
    rec.offense.statusReason !== 'notice' &&
    rec.offense.statusReason !== 'evasion_check'
      ? { statusReason: rec.offense.statusReason }
      : {}),
    ...(rec.quotaRemaining !== null ? { reporterQuotaRemaining: rec.quotaRemaining } : {}),
    report: presentOffense(rec.offense, tenant.studioId),
    timestamp: new Date().toISOString(),
  });

  if (!idempotencyKey) {
    // One statement is its own transaction (shared with the reports that arrive together, when the
    // caller batches them); run again if aborted by a deadlock.
    const rec = deps.write
      ? created(await deps.write(item), input.serviceId)
      : await withRetries(() => record(deps.pool));
    deps.afterCommit(rec.outbox);
    return { status: 201, body: respond(rec), replayed: false };
  }

  const hash = crypto
    .createHash('sha256')
    .update(`${input.kind}\n${input.serviceId}\n${canonical(input.body)}`)
    .digest();
  // The key is claimed inside the report's own transaction: it is written, and turns 'done', only
  // when the report commits. A concurrent request with the same key waits on the key's row and then
  // reads the first one's answer; a request that dies (or loses its database) leaves nothing behind,
  // so its retry is filed at once.
  type Outcome =
    | { claim: Exclude<IdempotencyClaim, { kind: 'claimed' }> }
    | { claim?: undefined; rec: Created; body: ReturnType<typeof respond> };
  const outcome = await withTransaction(deps.pool, async (client): Promise<Outcome> => {
    const claim = await claimIdempotencyKey(
      client,
      tenant.gameId,
      idempotencyKey,
      hash,
      deps.idempotencyTtlHours,
    );
    if (claim.kind !== 'claimed') return { claim };
    const rec = await record(client);
    const body = respond(rec);
    await completeIdempotencyKey(client, tenant.gameId, idempotencyKey, 201, body);
    return { rec, body };
  });
  if (outcome.claim) {
    const { claim } = outcome;
    switch (claim.kind) {
      case 'mismatch':
        throw new AppError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request.',
        );
      case 'in_flight':
        throw new AppError(
          409,
          'idempotency_key_in_flight',
          'A request with this Idempotency-Key is still being processed; retry later.',
          { headers: { 'Retry-After': '1' } },
        );
      case 'replay':
        // The stored answer is the one respond() gave the first request.
        return { status: claim.status, body: claim.body as View<'ReportSubmitResponse'>, replayed: true };
    }
  }
  deps.afterCommit(outcome.rec.outbox);
  return { status: 201, body: outcome.body, replayed: false };
}

type Created = Extract<RecordOutcome, { status: 'created' }>;

/** The created report, or the error the client gets for a refused one (nothing was written). */
function created(outcome: RecordOutcome, serviceId: string): Created {
  switch (outcome.status) {
    case 'created':
      return outcome;
    case 'not_found':
      throw notFound(`Player ${serviceId}`);
    case 'duplicate':
      throw new AppError(
        409,
        'duplicate_report',
        'This reporter already reported this player for this kind of misbehaviour in this match (or, without a matchId, within the hour); nothing was stored again.',
        { extensions: { offenseId: outcome.offenseId } },
      );
    case 'quota_exceeded':
      throw new AppError(
        429,
        'reporter_quota_exceeded',
        'This reporter has used up its reports for the day at this studio; nothing was stored.',
        { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
      );
  }
}
