import { validateStatement, TransparencyDatabaseStandIn } from '../../lib/transparency-database.js';
import {
  killOutboundAndCutRedis,
  underLoad,
  fmt,
  waitUntil,
  type Check,
  type DrillCase,
} from '../harness.js';

/**
 * Issue 35: restrictions placed under load while the worker that submits their statements to the
 * DSA Transparency Database is SIGKILLed mid-call and Redis is cut off: every restriction answered
 * 201 reaches the database exactly once, valid by its rules, under its studio's account; none is
 * refused, none left pending. Against the stand-in of the database (scripts/lib/transparency-database.ts),
 * slow on purpose so a call is in flight when the worker dies.
 *
 * Issue 50: a quiet crash. The restrictions come as a burst before the kill and none after, so no
 * fresh job sweeps up what the dead worker left claimed. The statements it held must still be sent, within a bound (their claim, twice
 * TDB_TIMEOUT_MS, and a second), by the jobs that were running.
 */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const tdb = await new TransparencyDatabaseStandIn().start();
    // Under the rig's TDB_TIMEOUT_MS, long enough for a call to be in flight when the worker dies.
    tdb.delayMs = 1500;
    await rig.transparencyAccount(rig.studioId, { baseUrl: tdb.url, token: tdb.platform('studio') });
    if (!rig.procs.get('webhooks') || rig.procs.get('webhooks')!.child.exitCode !== null)
      await rig.launch('webhooks');
    const placed: string[] = [];
    const refusedPlacements: number[] = [];
    try {
      const r = await underLoad(rig, opts, 'transparency', async () => {
        // Players of the studio's game (a studio sanctions only those), restricted every 100 ms.
        const targets = await rig.players(`tdb${Date.now().toString(36)}`, 40);
        await rig.pool.query(
          `INSERT INTO player_games (player_id, game_id) SELECT id, $2 FROM players WHERE service_id = ANY($1)
           ON CONFLICT DO NOTHING`,
          [targets, rig.gameId],
        );
        const place = async (i: number) => {
          const res = await fetch(`${rig.apiUrl}/v1/player/${targets[i % targets.length]}/sanctions`, {
            method: 'POST',
            headers: rig.headers,
            body: JSON.stringify({ type: 'chat_restriction', reason: 'drill', durationSeconds: 600 }),
          }).catch(() => undefined);
          if (res?.status === 201) placed.push(((await res.json()) as { id: string }).id);
          else refusedPlacements.push(res?.status ?? 0);
        };
        // A burst, as a studio's tool places them: several submissions in flight at once.
        await Promise.all(Array.from({ length: 20 }, (_, i) => place(i)));
        await waitUntil('a submission in flight', async () => tdb.inFlight > 0, 20_000);
        const inFlight = tdb.inFlight;
        // Nothing new is placed from here on: the crash is quiet (the reports' load goes on), so no
        // fresh statements job comes to sweep up what the dead worker left claimed.
        await killOutboundAndCutRedis(rig, opts.faultSeconds);
        return {
          lines: [
            `SIGKILLed the webhooks worker with ${inFlight} submission(s) in flight after a burst of 20 restrictions, then Redis cut for ${fmt(opts.faultSeconds * 1000)}; ${placed.length} restrictions placed (201) before it, none after`,
          ],
          checks: [],
        };
      });
      const puids = new Set(placed.map((id) => `sanction-${id}`));
      const sentAll = await waitUntil(
        'every statement sent',
        async () => {
          const { rows } = await rig.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM transparency_statements WHERE sanction_id = ANY($1) AND state = 'sent'`,
            [placed],
          );
          return rows[0]!.n === placed.length;
        },
        90_000,
      ).then(
        () => true,
        () => false,
      );
      const stored = tdb.stored.filter((s) => puids.has(s.statement.puid as string));
      const perPuid = new Map<string, number>();
      for (const s of stored)
        perPuid.set(s.statement.puid as string, (perPuid.get(s.statement.puid as string) ?? 0) + 1);
      const invalid = stored.filter((s) => Object.keys(validateStatement(s.statement)).length > 0);
      const checks: Check[] = [
        {
          name: 'the burst of restrictions was placed',
          ok: placed.length > 0 && refusedPlacements.length === 0,
          detail: `${placed.length} placed; ${refusedPlacements.length} not (${[...new Set(refusedPlacements)].join(', ')})`,
        },
        { name: 'every statement sent', ok: sentAll, detail: `${placed.length} placed` },
        {
          name: 'each reached the database exactly once',
          ok: perPuid.size === placed.length && [...perPuid.values()].every((n) => n === 1),
          detail: `${perPuid.size} of ${placed.length} held; ${[...perPuid.values()].filter((n) => n > 1).length} more than once`,
        },
        {
          name: 'under the studio’s account, valid by its rules',
          ok: stored.every((s) => s.platform === 'studio') && invalid.length === 0,
          detail: `${invalid.length} invalid`,
        },
      ];
      r.lines.push(
        `the database: ${tdb.calls.length} calls (${tdb.calls.filter((c) => c.status === 201).length} taken, ${tdb.calls.filter((c) => c.status === 422).length} answered 422), ${stored.length} statements of the drill held`,
      );
      return {
        what: 'SIGKILL the statements worker mid-call and cut Redis while restrictions are placed',
        ...r,
        checks: [...r.checks, ...checks],
      };
    } finally {
      await rig.transparencyAccount(rig.studioId);
      await tdb.close();
    }
  },
};
export default drill;
