import crypto from 'node:crypto';
import { withTransaction, type Pool } from '../data/db.js';
import { erasedAmong, recordedRosters, studioGames } from '../data/repos/matches.js';
import { studioPlayers } from '../data/repos/signals.js';
import {
  matchesBodySchema,
  matchProblem,
  matchSchema,
  rosterDigest,
  type ItemProblem,
  type MatchInput,
  type MatchRejection,
} from '../domain/matches.js';
import { AppError, fieldErrors } from '../errors.js';
import {
  ensureMatchPartitions,
  forgetMatchPartitions,
  recordMatches,
  type MatchToRecord,
} from '../lifecycles/matches.js';
import { NO_CONDUCT_SUMMARIES, type ConductPolicy } from '../lifecycles/conduct.js';
import { markCountedDownEnded } from './sanctions.js';
import { weighingForMatches } from './rule-triggers.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import { writeJob, type OutboxRow } from '../queues/outbox.js';
import { traceFields } from '../tracing/spans.js';
import { check } from '../validation.js';

export interface MatchDeps {
  pool: Pool;
  clock: () => Date;
  /** MATCH_RETENTION_DAYS: how long a match is kept (an older one is refused). */
  retentionDays: number;
  /** Hands the outbox rows of a committed call to the queues. */
  dispatch: (rows: OutboxRow[]) => void;
}

export type MatchItemStatus = 'accepted' | 'duplicate' | 'rejected';

export interface MatchItemAnswer {
  index: number;
  matchId: string | null;
  status: MatchItemStatus;
  code?: MatchRejection;
  message?: string;
  fields?: { field: string; message: string }[];
}

/** A match the API accepted, as its job carries it: every player resolved to the studio's row id. */
export interface QueuedMatch {
  matchId: string;
  gameId: string;
  mode: string;
  startedAt: string;
  endedAt: string;
  roster: string;
  players: {
    p: string;
    t: string;
    pa: string | null;
    r: MatchInput['players'][number]['result'];
    l: boolean;
    /** The row ids of the players this one commended (absent: none, and in jobs before 1.17.0). */
    c?: string[];
  }[];
}

export interface MatchJobData {
  studioId: string;
  matches: QueuedMatch[];
}

const rejected = (index: number, matchId: string | null, p: ItemProblem): MatchItemAnswer => ({
  index,
  matchId,
  status: 'rejected',
  code: p.code,
  message: p.message,
  ...(p.fields ? { fields: p.fields } : {}),
});

/**
 * A studio's finished matches (POST /v1/matches; docs/studios.md "Matches"): each match is answered
 * on its own (accepted, a duplicate of one recorded or sent before, or rejected with a code and a
 * message), so one bad match never refuses the others; what is accepted is one job in the outbox,
 * written before the answer (nothing accepted is lost when Redis is down), and the matches worker
 * writes it in one batch. Nothing is stored for a rejected match. All rejected: 400, with each
 * match's answer.
 */
export async function submitMatches(
  deps: MatchDeps,
  caller: { studioId: string; gameId: string },
  input: unknown,
): Promise<{ accepted: number; duplicates: number; rejected: number; results: MatchItemAnswer[] }> {
  const body = check<{ matches: unknown[] }>(matchesBodySchema, input);
  const now = deps.clock();
  const results: MatchItemAnswer[] = [];
  const valid: { index: number; m: MatchInput }[] = [];
  body.matches.forEach((raw, index) => {
    const { value, error } = matchSchema.validate(raw, { abortEarly: false });
    const matchId =
      raw && typeof raw === 'object' && typeof (raw as { matchId?: unknown }).matchId === 'string'
        ? (raw as { matchId: string }).matchId.trim() || null
        : null;
    if (error) {
      results[index] = rejected(index, matchId, {
        code: 'validation_failed',
        message: 'The match has invalid fields.',
        fields: fieldErrors(error.details).map((f) => ({ ...f, field: `matches.${index}.${f.field}` })),
      });
      return;
    }
    const m = value as MatchInput;
    const problem = matchProblem(m, now, deps.retentionDays);
    if (problem) results[index] = rejected(index, m.matchId, problem);
    else valid.push({ index, m });
  });
  const games = await studioGames(
    deps.pool,
    caller.studioId,
    valid.flatMap(({ m }) => (m.gameId ? [m.gameId] : [])),
  );
  const players = await studioPlayers(
    deps.pool,
    caller.studioId,
    valid.flatMap(({ m }) => m.players.map((p) => p.serviceId)),
  );
  const rosterOf = await recordedRosters(
    deps.pool,
    caller.studioId,
    valid.map(({ m }) => m.matchId),
  );
  const queued: QueuedMatch[] = [];
  for (const { index, m } of valid) {
    const gameId = m.gameId ?? caller.gameId;
    if (!games.has(gameId) && gameId !== caller.gameId) {
      results[index] = rejected(index, m.matchId, {
        code: 'unknown_game',
        message: `No game ${gameId} of this studio.`,
      });
      continue;
    }
    const missing = [...new Set(m.players.map((p) => p.serviceId).filter((s) => !players.has(s)))];
    if (missing.length) {
      results[index] = rejected(index, m.matchId, {
        code: 'unknown_player',
        message: `No player of this studio's games with the serviceId ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` (and ${missing.length - 10} more)` : ''}.`,
      });
      continue;
    }
    const roster = rosterDigest(m);
    const before = rosterOf.get(m.matchId);
    if (before) {
      results[index] = before.equals(roster)
        ? { index, matchId: m.matchId, status: 'duplicate' }
        : rejected(index, m.matchId, {
            code: 'match_conflict',
            message: `The match ${m.matchId} is already recorded with other players or results; a match is recorded once.`,
          });
      continue;
    }
    rosterOf.set(m.matchId, roster);
    results[index] = { index, matchId: m.matchId, status: 'accepted' };
    queued.push({
      matchId: m.matchId,
      gameId,
      mode: m.mode,
      startedAt: m.startedAt.toISOString(),
      endedAt: m.endedAt.toISOString(),
      roster: roster.toString('base64'),
      players: m.players.map((p) => ({
        p: players.get(p.serviceId)!,
        t: p.team,
        pa: p.party ?? null,
        r: p.result,
        l: p.leftEarly,
        ...(p.commended?.length ? { c: p.commended.map((s) => players.get(s)!) } : {}),
      })),
    });
  }
  const count = (s: MatchItemStatus) => results.filter((r) => r.status === s).length;
  const answer = {
    accepted: count('accepted'),
    duplicates: count('duplicate'),
    rejected: count('rejected'),
    results,
  };
  if (answer.rejected === results.length)
    throw new AppError(400, 'matches_rejected', 'No match was accepted: each has its reason in results.', {
      extensions: { results },
    });
  if (queued.length) {
    const outbox = await withTransaction(deps.pool, (client) =>
      writeJob(client, {
        queue: QUEUES.matches,
        name: JOB_NAMES.recordMatches,
        id: `matches-${crypto.randomUUID()}`,
        payload: { studioId: caller.studioId, matches: queued, ...traceFields() },
      }),
    );
    deps.dispatch(outbox);
  }
  return answer;
}

/**
 * The matches worker's job: writes a batch of accepted matches (one transaction), counting down the
 * restrictions of those who finished them; a match recorded meanwhile (sent twice before the first
 * was written) is a repeat or a conflict, never written twice. A match whose month the retention
 * dropped while it waited is skipped, and so is a player erased while it waited (a match of none left,
 * whole). Ended restrictions are announced (sanction.expired). `recoveryPeriodS`: one trust recovery
 * period in seconds (TRUST_RECOVERY_DAYS_PER_POINT), what the recovery credit is capped by. `policy`:
 * when conduct summaries are due (CONDUCT_SUMMARY_EVERY_MATCHES, the strike ladder).
 */
export async function writeMatches(
  pool: Pool,
  data: MatchJobData,
  now: Date,
  retentionDays: number,
  recoveryPeriodS: number,
  policy: ConductPolicy = NO_CONDUCT_SUMMARIES,
): Promise<{
  recorded: number;
  repeats: number;
  conflicts: number;
  skipped: number;
  ended: number;
  commendations: number;
  credited: number;
  summaries: number;
  outbox: OutboxRow[];
}> {
  const cutoff = now.getTime() - retentionDays * 86_400_000;
  const keep = data.matches.filter((m) => Date.parse(m.endedAt) >= cutoff);
  const matches: MatchToRecord[] = keep.map((m) => ({
    matchId: m.matchId,
    gameId: m.gameId,
    mode: m.mode,
    startedAt: new Date(m.startedAt),
    endedAt: new Date(m.endedAt),
    roster: Buffer.from(m.roster, 'base64'),
    players: m.players.map((p) => ({
      playerRowId: p.p,
      team: p.t,
      party: p.pa,
      result: p.r,
      leftEarly: p.l,
      commended: p.c ?? [],
    })),
  }));
  // A player erased while the job waited is left out of the match (nothing of theirs is written again).
  const gone = await erasedAmong(
    pool,
    matches.flatMap((m) => m.players.map((p) => p.playerRowId)),
  );
  if (gone.size)
    for (const m of matches)
      m.players = m.players
        .filter((p) => !gone.has(p.playerRowId))
        .map((p) => ({ ...p, commended: p.commended.filter((c) => !gone.has(c)) }));
  const writable = matches.filter((m) => m.players.length > 0);
  await ensureMatchPartitions(
    pool,
    writable.map((m) => m.endedAt),
  );
  try {
    return await write(pool, data, writable, now, recoveryPeriodS, policy);
  } catch (err) {
    // A month this process thought present is not (dropped by hand, a restore): ask again, once.
    if ((err as { code?: string }).code !== NO_PARTITION) throw err;
    forgetMatchPartitions(pool);
    await ensureMatchPartitions(
      pool,
      writable.map((m) => m.endedAt),
    );
    return write(pool, data, writable, now, recoveryPeriodS, policy);
  }
}

/** PostgreSQL's check_violation, which an insert into a partitioned table without its partition raises. */
const NO_PARTITION = '23514';

function write(
  pool: Pool,
  data: MatchJobData,
  writable: MatchToRecord[],
  now: Date,
  recoveryPeriodS: number,
  policy: ConductPolicy,
) {
  return withTransaction(pool, async (client) => {
    const out = await recordMatches(client, data.studioId, writable, now, recoveryPeriodS, policy);
    const ended = out.countedDown.filter((c) => c.endedAt);
    const outbox = await markCountedDownEnded(client, ended);
    // Rules on matches (trigger match_recorded): those who left early, and whose restrictions moved.
    if (out.recorded.length)
      outbox.push(
        ...(await weighingForMatches(
          client,
          [
            ...writable
              .filter((m) => out.recorded.includes(m.matchId))
              .flatMap((m) => m.players.filter((p) => p.leftEarly).map((p) => p.playerRowId)),
            ...out.countedDown.map((c) => c.playerRowId),
          ],
          `${data.studioId}-${out.recorded[0]}`,
        )),
      );
    return {
      recorded: out.recorded.length,
      repeats: out.repeats.length,
      conflicts: out.conflicts.length,
      skipped: data.matches.length - writable.length,
      ended: ended.length,
      commendations: Object.values(out.conduct.commendations).reduce((a, b) => a + b, 0),
      credited: out.conduct.credited,
      summaries: out.summaries.length,
      outbox: [...outbox, ...out.outbox],
    };
  });
}
