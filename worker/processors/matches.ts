import { UnrecoverableError, type Job } from 'bullmq';
import { isUuid } from '../../common/domain/ids.js';
import { writeMatches, type MatchJobData } from '../../common/usecases/matches.js';
import { JOB_NAMES } from '../../common/queues/index.js';
import type { ProcessorDeps } from '../run.js';

/**
 * The matches worker (issue 54; docs/studios.md "Matches"): each job is a batch of matches the API
 * accepted, written in one transaction with the count-down of the restrictions of those who finished
 * them. A job run again (a worker died, the job stalled) writes nothing twice: a match is recorded
 * once by its id (common/lifecycles/matches.ts).
 */
export const matchesProcessor = (deps: ProcessorDeps) => async (job: Job) => {
  if (job.name !== JOB_NAMES.recordMatches) throw new UnrecoverableError(`unexpected job ${job.name}`);
  const data = job.data as Partial<MatchJobData>;
  if (typeof data.studioId !== 'string' || !isUuid(data.studioId) || !Array.isArray(data.matches))
    throw new UnrecoverableError(`job ${job.id} carries no matches`);
  const done = await writeMatches(
    deps.pool,
    data as MatchJobData,
    new Date(),
    deps.config.matchRetentionDays,
    deps.config.trustRecoveryDaysPerPoint * 86_400,
    { every: deps.config.conductSummaryEveryMatches, ladder: deps.config.strikeLadder },
  );
  deps.dispatch(done.outbox);
  const { outbox: _outbox, ...figures } = done;
  if (done.conflicts)
    deps.log.warn(
      { jobId: job.id, conflicts: done.conflicts },
      'matches recorded meanwhile with another roster were not written (the first one stands)',
    );
  return figures;
};
