import { underLoad, waitingOn, waitUntil, type DrillCase } from '../harness.js';

/** Deadlocks forced on player rows under load: each deadlocked report is retried and commits once. */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const r = await underLoad(rig, opts, 'deadlock', async (load) => {
      const rounds = Math.max(1, Math.min(5, opts.faultSeconds));
      let victims = 0;
      let good = 0;
      for (let i = 0; i < rounds; i++) {
        const victim = (await rig.players(`${load.reports[0]!.matchId.replace(/-\d+$/, '')}x${i}`, 1))[0]!;
        const b = await rig.pool.connect();
        try {
          const pid = (await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
          await b.query('BEGIN');
          // The studio's budget row for this player, which the report writes once it holds the player row.
          await b.query(
            `INSERT INTO studio_player_budget (player_id, studio_id, window_start, points)
             SELECT id, $2, now(), 0 FROM players WHERE service_id = $1`,
            [victim, rig.studioId],
          );
          const sent = fetch(`${rig.apiUrl}/v1/griefing/submitReport/${victim}`, {
            method: 'POST',
            headers: rig.headers,
            body: JSON.stringify({ report: { isGriefing: true, severity: 'critical' } }),
          });
          await waitUntil(
            'the report waits on the budget row',
            async () => (await waitingOn(rig.pool, pid)) > 0,
            10_000,
          );
          const locked = await b
            .query('SELECT 1 FROM players WHERE service_id = $1 FOR UPDATE', [victim])
            .then(
              () => true,
              () => false,
            );
          await b.query('ROLLBACK');
          if (locked) victims++;
          const res = await sent;
          const { rows } = await rig.pool.query<{ n: number; score: number }>(
            `SELECT (SELECT count(*)::int FROM offenses o WHERE o.player_id = p.id) AS n, p.trust_score AS score
               FROM players p WHERE p.service_id = $1`,
            [victim],
          );
          if (res.status === 201 && rows[0]!.n === 1 && rows[0]!.score === 85) good++;
        } finally {
          b.release();
        }
      }
      return {
        lines: [
          `${rounds} deadlocks forced on a player row: the report was the victim ${victims} time(s); ${good}/${rounds} committed exactly once`,
        ],
        checks: [
          {
            name: 'deadlocked reports commit exactly once',
            ok: good === rounds && victims > 0,
            detail: `${good}/${rounds}`,
          },
        ],
      };
    });
    return { what: 'deadlocks forced on player rows under load', ...r };
  },
};
export default drill;
