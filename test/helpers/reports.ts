import crypto from 'node:crypto';
import { computePenalty } from '../../common/domain/penalty.js';
import { isPlayerSourced, parseReport, type ReportKind } from '../../common/domain/reports.js';
import { parseConfig } from '../../common/config.js';
import type { Queryable } from '../../common/data/db.js';
import { recordReports, type ReportToRecord } from '../../common/data/repos/offenses.js';
import { JOB_NAMES, QUEUES, type QueueName } from '../../common/queues/index.js';

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

/** The penalty caps the repository-level tests file with. */
export const TEST_CAPS = { cheating: 20, griefing: 15, toxicity: 10, afk: 5 };

/**
 * A report as submitReport hands it to recordReports: parsed (a test's own invalid body fails it),
 * its penalty capped with TEST_CAPS, a player's report or not as the API decides, under `policy`.
 */
export function reportItem(
  tenant: { game: { id: string }; studioId: string },
  serviceId: string,
  kind: ReportKind,
  body: object,
  policy: Partial<ReportToRecord['policy']> = {},
): ReportToRecord {
  const parsed = parseReport(kind, { report: body });
  if (!parsed.ok) throw new Error(`bad report ${JSON.stringify(body)}: ${JSON.stringify(parsed.errors)}`);
  return {
    offenseId: crypto.randomUUID(),
    serviceId,
    gameId: tenant.game.id,
    studioId: tenant.studioId,
    report: parsed.report,
    penalty: computePenalty(parsed.report, TEST_CAPS),
    playerSourced: isPlayerSourced(parsed.report.context),
    policy: { ...DEFAULT_POLICY, ...policy },
  };
}

/** An outbox row that carries offense jobs, as a test reads it back. */
export interface OffenseJobRow {
  id: string;
  queue: string;
  job_name: string;
  job_id: string;
  payload: { offenseIds?: string[]; offenseId?: string };
  shard_key: string | null;
  shard: number | null;
  sent: boolean;
}

/**
 * The outbox rows that carry these offenses' jobs, oldest first: the row of each batch of reports
 * and queue shard that names any of them among its offenseIds (or, from an earlier release, the
 * one-offense rows).
 */
export async function offenseJobRows(db: Queryable, offenseIds: readonly string[]): Promise<OffenseJobRow[]> {
  const { rows } = await db.query<OffenseJobRow>(
    `SELECT id::text, queue, job_name, job_id, payload, shard_key::text, shard, sent_at IS NOT NULL AS sent
       FROM outbox WHERE payload->'offenseIds' ?| $1::text[] OR payload->>'offenseId' = ANY($1::text[])
      ORDER BY id`,
    [offenseIds],
  );
  return rows;
}

/** A job id of earlier releases: one job an offense (what workers still run). */
export const offenseJobId = (queue: QueueName, offenseId: string) => `${queue}-${offenseId}`;

/** The jobs of one offense as the API of an earlier release asks pt_file_reports for them. */
export const offenseJobs = (offenseId: string) => [
  {
    queue: QUEUES.enrichment,
    job_name: JOB_NAMES.enrichEvidence,
    job_id: offenseJobId(QUEUES.enrichment, offenseId),
  },
  { queue: QUEUES.review, job_name: JOB_NAMES.reviewOffense, job_id: offenseJobId(QUEUES.review, offenseId) },
];
