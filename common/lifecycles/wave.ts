import type { Queryable } from '../data/db.js';
import type { SanctionType } from '../domain/sanctions.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import { writeJob, type OutboxRow } from '../queues/outbox.js';
import { WAVE_STATES, type WaveState, type WaveRow } from '../data/shapes/wave.js';

/**
 * A ban wave (issue 38; docs/moderators.md "Waves"), the only code that writes `waves` and `wave_members` (a test
 * holds it to that):
 *
 *   made by a moderator, large or banning for good --> awaiting_approval
 *   awaiting_approval --(another moderator, an admin, approves)--> scheduled
 *   made otherwise (a studio's; a moderator's below the bar) --> scheduled
 *   awaiting_approval | scheduled --cancel--> cancelled
 *   scheduled --(its time: the run-wave job)--> running --(no member left pending)--> done
 *   done --roll back--> rolling_back --(no member left placed)--> rolled_back
 *
 * One member a player. A member goes pending --> placed (with its sanction) or skipped (an erased
 * player), and placed --> revoked on a roll back, each in the transaction that places or revokes its
 * sanction, on a row the runner locked (FOR UPDATE SKIP LOCKED): a member is placed once however many
 * workers run the wave, and a worker killed mid-batch leaves its members pending for the next.
 */

export type WaveEvent = 'approve' | 'cancel' | 'start' | 'finish' | 'roll_back';

const TRANSITIONS: Readonly<Record<WaveState, Partial<Record<WaveEvent, WaveState>>>> = {
  awaiting_approval: { approve: 'scheduled', cancel: 'cancelled' },
  scheduled: { cancel: 'cancelled', start: 'running' },
  running: { finish: 'done' },
  done: { roll_back: 'rolling_back' },
  cancelled: {},
  rolling_back: { finish: 'rolled_back' },
  rolled_back: {},
};

export const nextWaveState = (state: WaveState, event: WaveEvent): WaveState | undefined =>
  TRANSITIONS[state][event];

/** The states an event may leave from. */
export const statesFor = (event: WaveEvent): WaveState[] =>
  WAVE_STATES.filter((s) => nextWaveState(s, event) !== undefined);

export type WaveActor = { kind: 'moderator'; id: string } | { kind: 'studio'; id: string };

/**
 * The conditions of four eyes (docs/moderators.md "Waves"), the arrows into and out of
 * awaiting_approval: a moderator's wave waits for a second moderator when it names more than
 * `approvalAbove` players, bans for good, or names a player carrying a protected tag (a studio's
 * never waits: it acts in its own games).
 */
export const waitsForApproval = (
  approvalAbove: number,
  w: { createdBy: WaveActor; size: number; type: SanctionType; protectedMembers: number },
): boolean =>
  w.createdBy.kind === 'moderator' &&
  (w.size > approvalAbove || w.type === 'permanent_ban' || w.protectedMembers > 0);

/** Who may approve it: an admin who did not make it (the second pair of eyes). */
export function approvalVerdict(
  w: { created_by_moderator: string | null },
  by: WaveActor & { role?: string },
): 'approve' | 'not_an_admin' | 'own_wave' {
  if (by.kind !== 'moderator' || by.role !== 'admin') return 'not_an_admin';
  if (w.created_by_moderator === by.id) return 'own_wave';
  return 'approve';
}

export interface NewWave {
  name: string;
  runAt: Date;
  sanctionType: SanctionType;
  scopeStudioId: string | null;
  reason: string;
  durationSeconds: number | null;
  dsaCategory: string | null;
  createdBy: WaveActor;
  needsApproval: boolean;
  playerRowIds: string[];
}

/** The job that runs (or rolls back) a wave: delayed until its time; one job id a wave and a step. */
function jobOf(db: Queryable, waveId: string, step: 'run' | 'roll-back', runAt: Date): Promise<OutboxRow[]> {
  return writeJob(db, {
    queue: QUEUES.review,
    name: JOB_NAMES.runWave,
    id: `wave-${step}-${waveId}`,
    payload: { waveId, runAt: runAt.toISOString() },
  });
}

/** Records a wave and its members (each player once), and its job unless it awaits approval. */
export async function recordWave(db: Queryable, w: NewWave): Promise<{ wave: WaveRow; outbox: OutboxRow[] }> {
  const { rows } = await db.query<WaveRow>(
    `WITH w AS (
       INSERT INTO waves (name, state, run_at, sanction_type, scope_studio_id, reason, duration_seconds,
                          dsa_category, created_by_moderator, created_by_studio, size)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, cardinality($11::uuid[])) RETURNING *),
     m AS (INSERT INTO wave_members (wave_id, player_id) SELECT w.id, unnest($11::uuid[]) FROM w)
     SELECT * FROM w`,
    [
      w.name,
      w.needsApproval ? 'awaiting_approval' : 'scheduled',
      w.runAt,
      w.sanctionType,
      w.scopeStudioId,
      w.reason,
      w.durationSeconds,
      w.dsaCategory,
      w.createdBy.kind === 'moderator' ? w.createdBy.id : null,
      w.createdBy.kind === 'studio' ? w.createdBy.id : null,
      w.playerRowIds,
    ],
  );
  const wave = rows[0]!;
  return { wave, outbox: w.needsApproval ? [] : await jobOf(db, wave.id, 'run', wave.run_at) };
}

/**
 * A rule adds a player to a wave that has not run (awaiting approval or scheduled), under the wave's
 * row lock the caller holds: a member once, its size one more. Whether it was added.
 */
export async function addMember(db: Queryable, wave: WaveRow, playerRowId: string): Promise<boolean> {
  if (wave.state !== 'awaiting_approval' && wave.state !== 'scheduled') return false;
  const { rows } = await db.query<{ added: number }>(
    `WITH m AS (INSERT INTO wave_members (wave_id, player_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1),
     w AS (UPDATE waves SET size = size + (SELECT count(*) FROM m)::int, updated_at = now()
            WHERE id = $1 RETURNING 1)
     SELECT (SELECT count(*) FROM m)::int AS added FROM w`,
    [wave.id, playerRowId],
  );
  return rows[0]!.added === 1;
}

/** A wave locked for the caller's transaction. */
export async function lockWave(db: Queryable, id: string): Promise<WaveRow | undefined> {
  const { rows } = await db.query<WaveRow>('SELECT * FROM waves WHERE id = $1 FOR UPDATE', [id]);
  return rows[0];
}

/**
 * Moves a locked wave by `event` (the caller checked nextWaveState), with the fields the event sets,
 * and writes the job a new step needs: approving schedules the run, a roll back starts at once.
 */
export async function recordTransition(
  db: Queryable,
  wave: WaveRow,
  event: WaveEvent,
  by: WaveActor | null,
  note: string | null,
  now: Date,
): Promise<{ wave: WaveRow; outbox: OutboxRow[] }> {
  const to = nextWaveState(wave.state, event)!;
  const mod = by?.kind === 'moderator' ? by.id : null;
  const studio = by?.kind === 'studio' ? by.id : null;
  // What each event sets besides the state: its SQL after $1 (the id), $2 (the state), $3 (now).
  const set: Record<WaveEvent, [string, unknown[]]> = {
    approve: ['approved_by_moderator = $4, approved_at = $3', [mod]],
    cancel: [
      'cancelled_by_moderator = $4, cancelled_by_studio = $5, cancelled_at = $3, cancel_reason = $6',
      [mod, studio, note],
    ],
    start: ['started_at = coalesce(started_at, $3)', []],
    finish: ['finished_at = $3', []],
    roll_back: [
      'rolled_back_by_moderator = $4, rolled_back_by_studio = $5, rollback_requested_at = $3, rollback_reason = $6',
      [mod, studio, note],
    ],
  };
  const [sql, values] = set[event];
  const { rows } = await db.query<WaveRow>(
    `UPDATE waves SET state = $2, ${sql}, updated_at = $3 WHERE id = $1 RETURNING *`,
    [wave.id, to, now, ...values],
  );
  const moved = rows[0]!;
  const outbox =
    event === 'approve'
      ? await jobOf(db, moved.id, 'run', moved.run_at)
      : event === 'roll_back'
        ? await jobOf(db, moved.id, 'roll-back', now)
        : [];
  return { wave: moved, outbox };
}

/**
 * Up to `limit` members in state `from` (pending to place, placed to revoke), locked, skipping those
 * another runner holds; with their player's service id and sanction.
 */
export async function claimMembers(
  db: Queryable,
  waveId: string,
  from: 'pending' | 'placed',
  limit: number,
): Promise<{ player_id: string; service_id: string; erased: boolean; sanction_id: string | null }[]> {
  const { rows } = await db.query<{
    player_id: string;
    service_id: string;
    erased: boolean;
    sanction_id: string | null;
  }>(
    `SELECT m.player_id, p.service_id, p.erased_at IS NOT NULL AS erased, m.sanction_id
       FROM wave_members m JOIN players p ON p.id = m.player_id
      WHERE m.wave_id = $1 AND m.state = $2
      ORDER BY m.player_id LIMIT $3
        FOR UPDATE OF m SKIP LOCKED`,
    [waveId, from, limit],
  );
  return rows;
}

/** Whether any member is still in state `from` (held by another runner, or not reached yet). */
export async function membersLeft(
  db: Queryable,
  waveId: string,
  from: 'pending' | 'placed',
): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM wave_members WHERE wave_id = $1 AND state = $2 LIMIT 1', [
    waveId,
    from,
  ]);
  return rows.length > 0;
}

/** Marks claimed members done, in the transaction that placed or revoked their sanctions, and counts them. */
export async function recordMembers(
  db: Queryable,
  waveId: string,
  done: {
    playerId: string;
    state: 'placed' | 'skipped' | 'revoked';
    sanctionId?: string;
    skipReason?: string;
  }[],
  now: Date,
): Promise<void> {
  if (done.length === 0) return;
  await db.query(
    `WITH d AS (
       SELECT * FROM unnest($2::uuid[], $3::text[], $4::uuid[], $5::text[]) AS d(player_id, state, sanction_id, skip_reason)),
     u AS (
       UPDATE wave_members m SET state = d.state, sanction_id = coalesce(d.sanction_id, m.sanction_id),
              skip_reason = d.skip_reason, done_at = $6
         FROM d WHERE m.wave_id = $1 AND m.player_id = d.player_id RETURNING m.state)
     UPDATE waves SET placed = placed + (SELECT count(*) FROM u WHERE state = 'placed'),
                      skipped = skipped + (SELECT count(*) FROM u WHERE state = 'skipped'),
                      revoked = revoked + (SELECT count(*) FROM u WHERE state = 'revoked'),
                      updated_at = $6
      WHERE id = $1`,
    [
      waveId,
      done.map((d) => d.playerId),
      done.map((d) => d.state),
      done.map((d) => d.sanctionId ?? null),
      done.map((d) => d.skipReason ?? null),
      now,
    ],
  );
}

export {
  WAVE_STATES,
  MEMBER_STATES,
  type WaveState,
  type MemberState,
  type WaveRow,
} from '../data/shapes/wave.js';
