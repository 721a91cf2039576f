import { UnrecoverableError, type Job } from 'bullmq';
import { isUuid } from '../../common/domain/ids.js';
import type { OffenseJobData } from '../../common/queues/index.js';

/** Most offenses one job names: a report statement files at most a few hundred reports. */
const MAX_OFFENSES = 5000;

/**
 * The offenses an offense job names, in order: a batch's (`offenseIds`) or, for a job of an earlier
 * release, one (`offenseId`). A payload that can never name an offense fails at once, never retried.
 */
export function parseOffenseJob(job: Job): { offenseIds: string[]; batch: boolean } {
  const data = job.data as Partial<Record<'offenseId' | 'offenseIds', unknown>> | undefined;
  if (data && Array.isArray(data.offenseIds)) {
    const ids = data.offenseIds as unknown[];
    if (
      ids.length > 0 &&
      ids.length <= MAX_OFFENSES &&
      ids.every((id) => typeof id === 'string' && isUuid(id))
    )
      return { offenseIds: ids as string[], batch: true };
    throw new UnrecoverableError(`job ${job.id} has no valid offenseIds`);
  }
  if (data && typeof data.offenseId === 'string' && isUuid(data.offenseId))
    return { offenseIds: [data.offenseId], batch: false };
  throw new UnrecoverableError(`job ${job.id} has no valid offenseId`);
}

export type { OffenseJobData };
