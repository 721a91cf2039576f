import { GRACE_MS, underLoad, waitingOn, waitUntil, sleep, fmt, type DrillCase } from '../harness.js';

/** SIGTERM the API: in-flight requests finish, new connections are refused, exit 0; a new API takes over. */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const r = await underLoad(rig, opts, 'api-sigterm', async (load) => {
      // Hold three players' rows so that a report on each is certainly in flight when the signal comes.
      const held = await rig.players(`${load.reports[0]!.matchId.replace(/-\d+$/, '')}h`, 3);
      const b = await rig.pool.connect();
      const pid = (await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const api = rig.procs.get('api')!;
      let inFlight: { status: number | 'network'; id?: string }[];
      let at: number;
      let refused: boolean;
      try {
        await b.query('BEGIN');
        await b.query('SELECT 1 FROM players WHERE service_id = ANY($1) FOR UPDATE', [held]);
        const sent = held.map((serviceId, i) =>
          fetch(`${rig.apiUrl}/v1/afk/submitReport/${serviceId}`, {
            method: 'POST',
            headers: rig.headers,
            body: JSON.stringify({ report: { isAfk: true, severity: 'critical', matchId: `held-${i}` } }),
          }).then(
            async (res) => ({
              status: res.status,
              id: ((await res.json()) as { report?: { _id: string } }).report?._id,
            }),
            () => ({ status: 'network' as const }),
          ),
        );
        // Group commit files reports that arrive together in one statement: the three may wait as one
        // statement or several, so what is awaited is a statement waiting on the held rows; then a
        // moment for every one of the three to have reached the API.
        await waitUntil(
          'the reports wait on the held rows',
          async () => (await waitingOn(rig.pool, pid)) >= 1,
          10_000,
        );
        await sleep(300);
        at = Date.now();
        api.child.kill('SIGTERM');
        await sleep(500);
        refused = await fetch(`${rig.apiUrl}/healthz`).then(
          () => false,
          () => true,
        );
        await b.query('ROLLBACK');
        inFlight = await Promise.all(sent);
      } finally {
        b.release();
      }
      const exit = await api.exited;
      const tookMs = Date.now() - at;
      const done = inFlight.filter((x) => x.status === 201).length;
      const { rows } = await rig.pool.query<{ score: number }>(
        'SELECT sum(trust_score)::int AS score FROM players WHERE service_id = ANY($1)',
        [held],
      );
      await sleep(opts.faultSeconds * 1000);
      await rig.launch('api');
      const during = load.attemptsBetween(at, Date.now());
      return {
        lines: [
          `SIGTERM to the API with ${inFlight.length} requests in flight: ${done} answered 201 (their players' scores sum to ${rows[0]!.score} = 3 x (100 - 5)); new connections ${refused ? 'refused' : 'ACCEPTED'}; exit ${exit.code} after ${tookMs} ms`,
          `meanwhile the load saw ${during.filter((a) => a.status === 'network').length} refused connections and retried them on the next API, started after ${fmt(opts.faultSeconds * 1000)}`,
        ],
        checks: [
          {
            name: 'API exits 0 within the grace period',
            ok: exit.code === 0 && tookMs < GRACE_MS,
            detail: `exit ${exit.code} after ${tookMs} ms (grace ${GRACE_MS} ms)`,
          },
          {
            name: 'in-flight requests finish',
            ok: done === 3 && rows[0]!.score === 285,
            detail: `${done}/3 answered 201, score ${rows[0]!.score}`,
          },
          { name: 'new connections refused', ok: refused, detail: refused ? 'refused' : 'accepted' },
        ],
      };
    });
    return { what: 'SIGTERM the API under load', ...r };
  },
};
export default drill;
