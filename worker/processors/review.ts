import { UnrecoverableError, type Job } from 'bullmq';
import DataLoader from 'dataloader';
import { batchedLoads } from '../../common/data/batching.js';
import { withTransaction } from '../../common/data/db.js';
import { fileOffenses, type Filing } from '../../common/lifecycles/review-case.js';
import { JOB_NAMES } from '../../common/queues/index.js';
import { runScheduledRetention } from '../../common/usecases/retention.js';
import { runWaveStep } from '../../common/usecases/waves.js';
import {
  weighAfter,
  weighAfterMatches,
  weighRules,
  weighScheduledRules,
} from '../../common/usecases/rules.js';
import { recoverTrust } from '../../common/usecases/trust.js';
import { announceExpiry } from '../../common/usecases/sanctions.js';
import { summarizeRestrictionJob } from '../../common/usecases/conduct.js';
import { runErasure } from '../../common/usecases/erasure.js';
import { isUuid } from '../../common/domain/ids.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';

/** Most offenses filed in one transaction (a job of a full report statement's batch in one). */
export const FILING_BATCH_MAX = 100;

/**
 * Admin review: files each offense into the open case of its player and type (opening one when
 * needed) and updates the case's figures by the offenses filed, so a filing costs the same however
 * many reports the case holds; an offense already filed is left alone, so a repeated job changes
 * nothing. Priority = 25 x severity rank (low 0 .. critical 3) + 10 x highest confidence + 5 x
 * distinct games (at most 5) + 3 x distinct reporters (at most 5) + 2 x the player's offenses before
 * the case's first report (at most 10) + half the points held for the case (at most 25) + 50 when it
 * holds a trusted flagger's notice (whose case is also due within TRUSTED_FLAGGER_DUE_HOURS). Each filing
 * routes the case into its queue by the routing rules (common/data/repos/review-queues.ts), unless a
 * moderator moved it by hand. A report
 * without a finding or from a muted reporter opens no case (its events are still sent).
 *
 * A job names the offenses of a batch of reports (one, for a job of an earlier release). The
 * offenses of the jobs a worker runs at once are filed together: collected until the event loop has
 * nothing else ready (at most FILING_BATCH_MAX) and filed by one transaction of a fixed number of
 * statements, so a busy review worker commits once per batch, not once per offense. A transaction
 * that fails fails each job with an offense in it, which BullMQ retries on their own (what was filed
 * stays filed). An offense that does not exist fails a one-offense job for good; in a batch's job
 * (whose offenses were written with it) it is skipped and named in the job's result.
 */
export const reviewProcessor = (deps: ProcessorDeps) => {
  // What rules need when they weigh (docs/moderators.md "Rules").
  const weighing = {
    log: deps.log,
    dispatch: deps.dispatch,
    appealWindowDays: deps.config.appealWindowDays,
    waveMaxPlayers: deps.config.waves.maxPlayers,
  };
  const filings = new DataLoader<string, Filing>(async (ids) => {
    const { filed, outbox, acceptedAt } = await withTransaction(deps.pool, (client) =>
      fileOffenses(
        client,
        ids,
        deps.config.caseDueHours,
        deps.config.trustedFlaggerDueHours,
        deps.config.urgentNoticeDueHours,
      ),
    );
    deps.dispatch(outbox);
    // Rules weigh the cases this batch filed into (docs/moderators.md "Rules"); a rule's fault never fails a filing.
    const touched = [...filed.values()].filter((f) => f.filed && f.caseId).map((f) => f.caseId!);
    if (touched.length)
      await weighRules(deps.pool, touched, weighing).catch((err: unknown) =>
        deps.log.error({ err }, 'rules could not weigh the cases just filed'),
      );
    // The service level "from 201 to a filed case": each offense this batch filed, once.
    const now = Date.now();
    for (const at of acceptedAt) deps.metrics?.reportToCase.observe(Math.max(0, now - at.getTime()) / 1000);
    return ids.map((id) => filed.get(id) ?? new UnrecoverableError(`offense ${id} does not exist`));
  }, batchedLoads(FILING_BATCH_MAX));
  return async (job: Job): Promise<unknown> => {
    if (job.name === JOB_NAMES.sanctionExpiry) {
      const id = (job.data as { sanctionId?: unknown }).sanctionId;
      if (typeof id !== 'string' || !isUuid(id))
        throw new UnrecoverableError(`job ${job.id} has no sanctionId`);
      const { announced, outbox } = await announceExpiry(deps.pool, id, new Date());
      deps.dispatch(outbox);
      return { announced };
    }
    if (job.name === JOB_NAMES.summarizeConduct) {
      const id = (job.data as { sanctionId?: unknown }).sanctionId;
      if (typeof id !== 'string' || !isUuid(id))
        throw new UnrecoverableError(`job ${job.id} has no sanctionId`);
      const { summaries, outbox } = await summarizeRestrictionJob(
        deps.pool,
        id,
        new Date(),
        deps.config.strikeLadder,
      );
      deps.dispatch(outbox);
      return { summaries };
    }
    if (job.name === JOB_NAMES.erasePlayer) {
      const id = (job.data as { erasureId?: unknown }).erasureId;
      if (typeof id !== 'string' || !isUuid(id))
        throw new UnrecoverableError(`job ${job.id} has no erasureId`);
      const done = await runErasure(deps.pool, deps.config.erasureLedger, id, new Date());
      if (done.applied) deps.log.info({ erasureId: id }, 'player erased');
      return done;
    }
    if (job.name === JOB_NAMES.weighRules) {
      const data = job.data as { trigger?: unknown; playerId?: unknown };
      if (data.trigger === 'schedule')
        return { outcomes: (await weighScheduledRules(deps.pool, weighing)).length };
      if (
        (data.trigger === 'sanction_placed' || data.trigger === 'evasion_suspected') &&
        typeof data.playerId === 'string' &&
        isUuid(data.playerId)
      ) {
        // An evasion case's offense, filed first (once: a filed offense is filed again as nothing), so
        // the weighing sees its case whichever of the two jobs ran first.
        const first = (data as { offenseIds?: unknown }).offenseIds;
        if (Array.isArray(first)) {
          const ids = first.filter((id): id is string => typeof id === 'string' && isUuid(id));
          const filed = await Promise.all(ids.map((id) => filings.load(id).catch((err: unknown) => err)));
          const failed = filed.find((f) => f instanceof Error && !(f instanceof UnrecoverableError));
          if (failed) throw failed;
        }
        return { outcomes: (await weighAfter(deps.pool, data.trigger, data.playerId, weighing)).length };
      }
      const ids = (data as { playerIds?: unknown }).playerIds;
      if (
        data.trigger === 'match_recorded' &&
        Array.isArray(ids) &&
        ids.every((id) => typeof id === 'string' && isUuid(id))
      )
        return { outcomes: (await weighAfterMatches(deps.pool, ids as string[], weighing)).length };
      throw new UnrecoverableError(`job ${job.id} names no trigger rules weigh on`);
    }
    if (job.name === JOB_NAMES.runWave) {
      const id = (job.data as { waveId?: unknown }).waveId;
      if (typeof id !== 'string' || !isUuid(id)) throw new UnrecoverableError(`job ${job.id} has no waveId`);
      const step = await runWaveStep(deps.pool, id, deps.config.waves, deps.dispatch);
      deps.log.info({ waveId: id, ...step }, 'wave step done');
      return step;
    }
    if (job.name === JOB_NAMES.retention) {
      const run = await runScheduledRetention(deps.pool, deps.config.retentionDays);
      if (run.skipped) return run;
      const now = Date.now();
      for (const r of run.results) {
        if (r.rows) deps.metrics?.retentionPurged.inc({ kind: r.kind }, r.rows);
        deps.metrics?.retentionOldest.set(
          { kind: r.kind },
          r.oldest ? Math.max(0, (now - Date.parse(r.oldest)) / 1000) : 0,
        );
      }
      const purged = Object.fromEntries(run.results.filter((r) => r.rows).map((r) => [r.kind, r.rows]));
      if (Object.keys(purged).length) deps.log.info({ purged }, 'retention: rows past their window purged');
      return { purged };
    }
    if (job.name === JOB_NAMES.trustRecovery) {
      const done = await recoverTrust(deps.pool, {
        now: new Date(),
        daysPerPoint: deps.config.trustRecoveryDaysPerPoint,
      });
      deps.dispatch(done.outbox);
      const figures = { players: done.players, points: done.points };
      if (done.players > 0) deps.log.info(figures, 'trust recovered for players with a clean record');
      return figures;
    }
    const { offenseIds, batch } = parseOffenseJob(job);
    const results = await filings.loadMany(offenseIds);
    const missing: string[] = [];
    let filed = 0;
    for (const [i, result] of results.entries()) {
      if (result instanceof UnrecoverableError) missing.push(offenseIds[i]!);
      else if (result instanceof Error) throw result;
      else if (result.filed) filed++;
    }
    if (missing.length === offenseIds.length || (!batch && missing.length))
      throw new UnrecoverableError(`offense ${missing.join(', ')} does not exist`);
    if (missing.length) deps.log.warn({ job: job.id, missing }, 'offenses of a review job no longer exist');
    return batch ? { offenses: offenseIds.length, filed, missing } : results[0];
  };
};
