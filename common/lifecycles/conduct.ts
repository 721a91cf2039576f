import crypto from 'node:crypto';
import type { StrikeRung } from '../config.js';
import type { Queryable } from '../data/db.js';
import { studiosOfPlayer } from '../data/repos/webhooks.js';
import { conductWarning, nextStep, type ConductSummary } from '../domain/conduct.js';
import type { OutboxRow } from '../queues/outbox.js';
import { presentConductSummary } from '../domain/conduct.js';
import { emitEvents } from './webhook-delivery.js';

/**
 * Conduct summaries (issue 54, part 4; docs/studios.md "Conduct summaries"), the only writer of
 * `player_conduct`, `conduct_summaries` and `conduct_restrictions` (a test holds it to that):
 *
 *   player_conduct (per player and studio): (none) --a match recorded--> counting
 *                  --the N-th match, or a restriction began--> taken by a summary (deleted)
 *   conduct_summaries: (none) --made--> kept (conduct.summary to its studio, once)
 *                      --MATCH_RETENTION_DAYS--> deleted; --erasure--> deleted
 *   conduct_restrictions: (none) --a restriction's summaries made--> done (its job runs once)
 *
 * The counts are written in the transaction that records the matches, so a match counts once
 * however often it is sent; a summary takes its counts in the transaction that writes it, so a match
 * is in exactly one summary.
 */

export interface ConductPolicy {
  /** CONDUCT_SUMMARY_EVERY_MATCHES: a summary every this many of a studio's matches (0: none by count). */
  every: number;
  /** STRIKE_LADDER: the next step a summary names, and warns of one strike before it. */
  ladder: readonly StrikeRung[];
}

export const NO_CONDUCT_SUMMARIES: ConductPolicy = { every: 0, ladder: [] };

/** What one player did in a batch of a studio's newly recorded matches. */
export interface MatchConduct {
  playerRowId: string;
  matches: number;
  finished: number;
  leftEarly: number;
  /** Commendations received and counted (weight above 0). */
  commendations: number;
}

/**
 * Counts a batch's matches into each player's conduct in the studio's games (the caller's
 * transaction, after the players' rows are locked: common/lifecycles/matches.ts), and makes the
 * summary of each player whose count reached `policy.every`. The events of those summaries.
 */
export async function countConduct(
  db: Queryable,
  studioId: string,
  conduct: readonly MatchConduct[],
  now: Date,
  policy: ConductPolicy,
): Promise<{ summaries: ConductSummary[]; outbox: OutboxRow[] }> {
  const rows = [...conduct].sort((x, y) => (x.playerRowId < y.playerRowId ? -1 : 1));
  if (!rows.length) return { summaries: [], outbox: [] };
  const { rows: counted } = await db.query<{ player_id: string; matches: number }>({
    name: 'conduct-count',
    text: `INSERT INTO player_conduct AS c (player_id, studio_id, matches, finished, left_early, commendations)
           SELECT p, $1, m, f, l, k FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::int[]) AS x(p, m, f, l, k)
           ON CONFLICT (player_id, studio_id) DO UPDATE SET
             matches = c.matches + EXCLUDED.matches, finished = c.finished + EXCLUDED.finished,
             left_early = c.left_early + EXCLUDED.left_early, commendations = c.commendations + EXCLUDED.commendations
           RETURNING player_id, matches`,
    values: [
      studioId,
      rows.map((r) => r.playerRowId),
      rows.map((r) => r.matches),
      rows.map((r) => r.finished),
      rows.map((r) => r.leftEarly),
      rows.map((r) => r.commendations),
    ],
  });
  if (policy.every <= 0) return { summaries: [], outbox: [] };
  const due = counted.filter((c) => c.matches >= policy.every);
  if (!due.length) return { summaries: [], outbox: [] };
  return summarize(
    db,
    due.map((d) => ({ playerRowId: d.player_id, studioId, sanctionId: null })),
    now,
    policy.ladder,
  );
}

/**
 * Makes the summaries of a restriction that began (a sanction other than a warning; its job, on the
 * review queue, after the sanction committed): one for each studio that hears of the sanction (its
 * scope's, or for a global one every studio whose games the player plays and the issuing studio),
 * once however often the job runs. None for a sanction revoked before the job ran (it is not in
 * force: saying a restriction began would be untrue now) or a player erased since.
 */
export async function summarizeRestriction(
  db: Queryable,
  sanctionId: string,
  now: Date,
  ladder: readonly StrikeRung[],
): Promise<{ summaries: ConductSummary[]; outbox: OutboxRow[] }> {
  const { rows } = await db.query<{
    player_id: string;
    service_id: string;
    erased: boolean;
    type: string;
    scope_studio_id: string | null;
    issued_by_studio: string | null;
    revoked: boolean;
    done: boolean;
  }>(
    // The player's row first, as a match locks it, then the sanction's (a match counts it down).
    `WITH pl AS (SELECT p.id, p.service_id, p.erased_at IS NOT NULL AS erased
                   FROM players p WHERE p.id = (SELECT player_id FROM sanctions WHERE id = $1) FOR NO KEY UPDATE)
     SELECT s.player_id, pl.service_id, pl.erased, s.type, s.scope_studio_id, s.issued_by_studio,
            s.revoked_at IS NOT NULL AS revoked,
            EXISTS (SELECT 1 FROM conduct_restrictions r WHERE r.sanction_id = s.id) AS done
       FROM sanctions s JOIN pl ON pl.id = s.player_id WHERE s.id = $1 FOR NO KEY UPDATE OF s`,
    [sanctionId],
  );
  const s = rows[0];
  if (!s || s.done) return { summaries: [], outbox: [] };
  const studios =
    s.revoked || s.erased || s.type === 'warning'
      ? []
      : s.scope_studio_id
        ? [s.scope_studio_id]
        : [
            ...new Set([
              ...(await studiosOfPlayer(db, s.service_id)),
              ...(s.issued_by_studio ? [s.issued_by_studio] : []),
            ]),
          ].sort();
  const made = studios.length
    ? await summarize(
        db,
        studios.map((studioId) => ({ playerRowId: s.player_id, studioId, sanctionId })),
        now,
        ladder,
      )
    : { summaries: [], outbox: [] };
  await db.query(
    'INSERT INTO conduct_restrictions (sanction_id, summaries, done_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [sanctionId, made.summaries.length, now],
  );
  return made;
}

/**
 * Writes a summary for each (player, studio): takes the counts of their matches since the last one
 * (deleting them: the next match starts again), counts the studio's reports about the player since
 * the last summary (all of them for a first), once and by party, and the strikes in force; then
 * names the ladder's next step, the warning one strike before it, and sends conduct.summary to the
 * studio. One statement for the batch, then one insert.
 */
async function summarize(
  db: Queryable,
  items: readonly { playerRowId: string; studioId: string; sanctionId: string | null }[],
  now: Date,
  ladder: readonly StrikeRung[],
): Promise<{ summaries: ConductSummary[]; outbox: OutboxRow[] }> {
  const { rows } = await db.query<{
    i: string;
    service_id: string;
    since: Date | null;
    matches: number;
    finished: number;
    left_early: number;
    commendations: number;
    reports: number;
    parties: number;
    strikes: number;
  }>({
    name: 'conduct-summarize',
    // A report's party: the reporter (a `reporterId` the match names as a player, by serviceId) and
    // their party in the match the report names; reports without one each count alone.
    text: `WITH x AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS x(p, s, i)),
          taken AS (DELETE FROM player_conduct c USING x WHERE c.player_id = x.p AND c.studio_id = x.s
                    RETURNING c.player_id, c.studio_id, c.matches, c.finished, c.left_early, c.commendations),
          w AS (SELECT x.*, (SELECT max(k.created_at) FROM conduct_summaries k
                              WHERE k.player_id = x.p AND k.studio_id = x.s) AS since FROM x)
     SELECT w.i, pl.service_id, w.since,
            coalesce(t.matches, 0) AS matches, coalesce(t.finished, 0) AS finished,
            coalesce(t.left_early, 0) AS left_early, coalesce(t.commendations, 0) AS commendations,
            r.reports, r.parties,
            (SELECT count(*) FROM strikes st WHERE st.player_id = w.p AND st.removed_at IS NULL AND st.expires_at > $3)::int AS strikes
       FROM w JOIN players pl ON pl.id = w.p
       LEFT JOIN taken t ON t.player_id = w.p AND t.studio_id = w.s
      CROSS JOIN LATERAL (
            SELECT count(*)::int AS reports,
                   count(DISTINCT CASE WHEN rp.party IS NOT NULL THEN 'm/' || o.match_id || '/' || rp.party
                                       ELSE 'o/' || o.id::text END)::int AS parties
              FROM offenses o
              LEFT JOIN LATERAL (
                   SELECT pm.party FROM player_matches pm JOIN players rpl ON rpl.id = pm.player_id
                    WHERE pm.studio_id = o.studio_id AND pm.match_id = o.match_id
                      AND rpl.service_id = o.reporter_id AND pm.party IS NOT NULL
                    LIMIT 1) rp ON o.match_id IS NOT NULL AND o.reporter_id IS NOT NULL
             WHERE o.player_id = w.p AND o.studio_id = w.s AND (w.since IS NULL OR o.created_at > w.since)) r
      ORDER BY w.i`,
    values: [items.map((x) => x.playerRowId), items.map((x) => x.studioId), now],
  });
  const summaries: ConductSummary[] = rows.map((r) => {
    const item = items[Number(r.i) - 1]!;
    const step = nextStep(ladder, r.strikes);
    return {
      id: crypto.randomUUID(),
      playerRowId: item.playerRowId,
      playerId: r.service_id,
      studioId: item.studioId,
      trigger: item.sanctionId ? 'restriction' : 'matches',
      sanctionId: item.sanctionId,
      since: r.since,
      createdAt: now,
      matches: r.matches,
      finished: r.finished,
      leftEarly: r.left_early,
      commendations: r.commendations,
      reports: r.reports,
      reportingParties: r.parties,
      activeStrikes: r.strikes,
      nextStep: step,
      warning: conductWarning(step, r.strikes),
    };
  });
  await db.query({
    name: 'conduct-summary-insert',
    text: `INSERT INTO conduct_summaries (id, player_id, studio_id, trigger, sanction_id, since, created_at, matches, finished,
                                          left_early, commendations, reports, reporting_parties, active_strikes, next_step, warning)
           SELECT id, p, s, t, sa, si, $16, m, f, l, k, r, rp, st, ns, wa
             FROM unnest($15::uuid[], $1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[], $6::int[], $7::int[], $8::int[],
                         $9::int[], $10::int[], $11::int[], $12::int[], $13::jsonb[], $14::text[])
                  AS x(id, p, s, t, sa, si, m, f, l, k, r, rp, st, ns, wa)`,
    values: [
      summaries.map((s) => s.playerRowId),
      summaries.map((s) => s.studioId),
      summaries.map((s) => s.trigger),
      summaries.map((s) => s.sanctionId),
      summaries.map((s) => s.since),
      summaries.map((s) => s.matches),
      summaries.map((s) => s.finished),
      summaries.map((s) => s.leftEarly),
      summaries.map((s) => s.commendations),
      summaries.map((s) => s.reports),
      summaries.map((s) => s.reportingParties),
      summaries.map((s) => s.activeStrikes),
      summaries.map((s) => (s.nextStep ? JSON.stringify(s.nextStep) : null)),
      summaries.map((s) => s.warning),
      summaries.map((s) => s.id),
      now,
    ],
  });
  const outbox = await emitEvents(
    db,
    summaries.map((s) => ({
      type: 'conduct.summary' as const,
      dataByStudio: new Map([[s.studioId, { playerId: s.playerId, summary: presentConductSummary(s) }]]),
    })),
    now,
  );
  return { summaries, outbox };
}

/** Retention: the summaries made more than `retentionDays` ago (MATCH_RETENTION_DAYS). How many went. */
export async function expireConductSummaries(
  db: Queryable,
  now: Date,
  retentionDays: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM conduct_summaries WHERE id IN (
       SELECT id FROM conduct_summaries WHERE created_at < $1::timestamptz - make_interval(days => $2) LIMIT 10000)`,
    [now, retentionDays],
  );
  return rowCount ?? 0;
}

/** Erasure (common/lifecycles/erasure.ts): the player's counts and summaries (`$1`, internal id). */
export const ERASE_CONDUCT_COUNTS = 'DELETE FROM player_conduct WHERE player_id = $1';
export const ERASE_CONDUCT_SUMMARIES = 'DELETE FROM conduct_summaries WHERE player_id = $1';
