import { parseConfig } from '../../common/config.js';
import type { Queryable } from '../../common/data/db.js';
import { recordReports, type ReportToRecord } from '../../common/data/repos/offenses.js';

const defaults = parseConfig({ NODE_ENV: 'test' });

/** The policy the API applies by default: the configured defaults of every limit. */
export const DEFAULT_POLICY: ReportToRecord['policy'] = {
  reporterQuota: defaults.limits.reporterQuota,
  studioBudget: defaults.limits.studioBudget,
  credibilityThreshold: defaults.credibilityThreshold,
  credibilityMinHistory: defaults.credibilityMinHistory,
};

/**
 * Files one report straight through the repository, as the API would with the default limits (or
 * `policy`); returns the created outcome, or fails the test on any other.
 */
export async function recordOne(
  db: Queryable,
  item: Omit<ReportToRecord, 'policy' | 'playerSourced'> &
    Partial<Pick<ReportToRecord, 'policy' | 'playerSourced'>>,
) {
  const [outcome] = await recordReports(db, [
    { playerSourced: false, ...item, policy: { ...DEFAULT_POLICY, ...item.policy } },
  ]);
  if (outcome?.status !== 'created') throw new Error(`report not created: ${JSON.stringify(outcome)}`);
  return outcome;
}
