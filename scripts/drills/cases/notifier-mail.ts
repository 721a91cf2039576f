import { SmtpStandIn } from '../../lib/smtp-stand-in.js';
import {
  killOutboundAndCutRedis,
  underLoad,
  fmt,
  waitUntil,
  type Check,
  type DrillCase,
} from '../harness.js';

/**
 * Issue 51: notices with an e-mail filed under load while the worker that sends the notifiers' mails
 * is SIGKILLed with a send in flight (the SMTP stand-in holds its final reply back) and Redis is cut:
 * every notice's receipt reaches its notifier exactly once (the stand-in counts a message taken only
 * when its reply reaches a client still connected, as a mail server does); none is left pending.
 */
const drill: DrillCase = {
  kind: 'rig',
  run: async (rig, opts) => {
    const smtp = await new SmtpStandIn().start();
    smtp.delayMs = 1500;
    const previous = rig.env.SMTP_URL;
    rig.env.SMTP_URL = smtp.url;
    rig.env.MAIL_FROM = 'Drill notices <notices@drill.example>';
    // The webhooks worker sends the mails: started (again) with the stand-in as its server.
    const running = rig.procs.get('webhooks');
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await rig.launch('webhooks');
    const filed: { noticeId: string; email: string }[] = [];
    const refused: number[] = [];
    try {
      const r = await underLoad(rig, opts, 'notifier-mail', async () => {
        const tag = `nm${Date.now().toString(36)}`;
        const targets = await rig.players(tag, 20);
        await rig.pool.query(
          `INSERT INTO player_games (player_id, game_id) SELECT id, $2 FROM players WHERE service_id = ANY($1)
           ON CONFLICT DO NOTHING`,
          [targets, rig.gameId],
        );
        const file = async (i: number) => {
          const email = `n${i}-${tag}@drill.example`;
          const res = await fetch(`${rig.apiUrl}/v1/notices`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              gameId: rig.gameId,
              player: targets[i],
              category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
              explanation: 'Slurs in the lobby chat, again and again.',
              name: `Notifier ${i}`,
              email,
              goodFaith: true,
            }),
          }).catch(() => undefined);
          if (res?.status === 201)
            filed.push({ noticeId: ((await res.json()) as { noticeId: string }).noticeId, email });
          else refused.push(res?.status ?? 0);
        };
        await Promise.all(Array.from({ length: 20 }, (_, i) => file(i)));
        await waitUntil('a send in flight', async () => smtp.inFlight > 0, 20_000);
        const inFlight = smtp.inFlight;
        await killOutboundAndCutRedis(rig, opts.faultSeconds);
        return {
          lines: [
            `SIGKILLed the mail worker with ${inFlight} send(s) in flight after 20 notices with an e-mail, then Redis cut for ${fmt(opts.faultSeconds * 1000)}; ${filed.length} notices filed (201)`,
          ],
          checks: [],
        };
      });
      const ids = filed.map((f) => f.noticeId);
      const allSent = await waitUntil(
        'every receipt mail sent',
        async () => {
          const { rows } = await rig.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM notifier_mails WHERE notice_id = ANY($1) AND state = 'sent'`,
            [ids],
          );
          return rows[0]!.n === filed.length;
        },
        90_000,
      ).then(
        () => true,
        () => false,
      );
      const perAddress = new Map<string, number>();
      for (const m of smtp.received) perAddress.set(m.to, (perAddress.get(m.to) ?? 0) + 1);
      const ours = filed.map((f) => perAddress.get(f.email) ?? 0);
      const checks: Check[] = [
        {
          name: 'the notices were filed',
          ok: filed.length === 20 && refused.length === 0,
          detail: `${filed.length} filed; ${refused.length} not (${[...new Set(refused)].join(', ')})`,
        },
        { name: 'every receipt mail recorded sent', ok: allSent, detail: `${filed.length} owed` },
        {
          name: 'each notifier got its receipt exactly once',
          ok: ours.every((n) => n === 1),
          detail: `${ours.filter((n) => n === 1).length} once, ${ours.filter((n) => n === 0).length} never, ${ours.filter((n) => n > 1).length} more than once`,
        },
      ];
      r.lines.push(`the SMTP stand-in took ${smtp.received.length} messages`);
      return {
        what: 'SIGKILL the mail worker mid-send and cut Redis while notices with an e-mail are filed',
        ...r,
        checks: [...r.checks, ...checks],
      };
    } finally {
      if (previous === undefined) delete rig.env.SMTP_URL;
      else rig.env.SMTP_URL = previous;
      await smtp.stop();
    }
  },
};
export default drill;
