import type { PoolClient } from '../data/db.js';
import { triggerRunning } from '../data/repos/rules.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import { writeJob, type OutboxRow } from '../queues/outbox.js';
import { traceFields } from '../tracing/spans.js';

/** The triggers that weigh a player's open cases when something happens to the player. */
export type PlayerTrigger = 'sanction_placed' | 'evasion_suspected';

/**
 * Whether a running rule weighs on the trigger: read again at most every second a process, database
 * and trigger (so a service without such rules pays nothing per placement or sign-in). Kept per
 * database: a process that serves several (the tests' APIs, each on a database of its own) must not
 * answer one database's event with another's rules.
 */
const reads = new Map<string, { at: number; running: boolean }>();

/** A rule was saved in this process: read whether one is triggered again at once. */
export const forgetRuleTriggers = () => {
  reads.clear();
};

async function triggered(client: PoolClient, trigger: PlayerTrigger | 'match_recorded'): Promise<boolean> {
  const params = (client as { connectionParameters?: { host?: string; port?: number; database?: string } })
    .connectionParameters;
  const key = `${params?.host}:${params?.port}/${params?.database}/${trigger}`;
  const read = reads.get(key);
  if (read && Date.now() - read.at < 1000) return read.running;
  const fresh = { at: Date.now(), running: await triggerRunning(client, trigger) };
  reads.set(key, fresh);
  return fresh.running;
}

/**
 * The weighing a trigger asks for, written to the outbox of the transaction that caused it (the
 * review worker weighs the player's open cases once it commits): nothing when no running rule weighs
 * on that trigger. `cause` names what happened (a sanction's or a suspicion's id), so a repeat is one job.
 */
export async function weighingFor(
  client: PoolClient,
  trigger: PlayerTrigger,
  playerId: string,
  cause: string,
  /**
   * Offenses the same transaction filed that the weighing must see in their cases (an evasion
   * case's): the review worker files them first, so the job never runs ahead of their filing.
   */
  offenseIds: readonly string[] = [],
): Promise<OutboxRow[]> {
  if (!(await triggered(client, trigger))) return [];
  return writeJob(client, {
    queue: QUEUES.review,
    name: JOB_NAMES.weighRules,
    id: `weigh-rules-${trigger === 'sanction_placed' ? 'sanction' : 'evasion'}-${cause}`,
    payload: { trigger, playerId, ...(offenseIds.length ? { offenseIds } : {}), ...traceFields() },
    // Sharded by the player (migration 019), as the player's offense jobs are.
    shardKey: playerId,
  });
}

/**
 * The weighing recorded matches ask for (trigger match_recorded), in the transaction that records
 * them: one job for the batch naming the players who left a match early or whose restriction counted
 * in matches was counted down; nothing when none is, or no running rule weighs on it. `cause` names
 * the batch (its studio and first new match: a match is recorded once), so a repeat is one job.
 */
export async function weighingForMatches(
  client: PoolClient,
  playerIds: readonly string[],
  cause: string,
): Promise<OutboxRow[]> {
  if (!playerIds.length || !(await triggered(client, 'match_recorded'))) return [];
  const ids = [...new Set(playerIds)].sort();
  return writeJob(client, {
    queue: QUEUES.review,
    name: JOB_NAMES.weighRules,
    id: `weigh-rules-matches-${cause}`,
    payload: { trigger: 'match_recorded', playerIds: ids, ...traceFields() },
    shardKey: ids[0]!,
  });
}
