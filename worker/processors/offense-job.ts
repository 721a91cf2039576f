import { UnrecoverableError, type Job } from 'bullmq';
import { isUuid } from '../../common/data/repos/accounts.js';
import type { OffenseJobData } from '../../common/queues/index.js';

/** The payload both offense processors take; a bad one fails at once, never retried. */
export function parseOffenseJob(job: Job): OffenseJobData {
  const data = job.data as Partial<OffenseJobData> | undefined;
  // A payload that can never name an offense must not be retried.
  if (!data || typeof data.offenseId !== 'string' || !isUuid(data.offenseId))
    throw new UnrecoverableError(`job ${job.id} has no valid offenseId`);
  return { offenseId: data.offenseId };
}
