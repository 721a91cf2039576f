import {
  CATEGORY_WORDS,
  COMPLAINT_WORDS,
  NOTIFIER_REDRESS,
  REVERSED_WORDS,
  STANDING_WORDS,
  type NoticeStanding,
} from './notices.js';
import { utcWords } from './statement-of-reasons.js';

/**
 * The e-mails a notifier gets (issue 51; docs/moderators.md "Notices": "E-mail to the notifier"): the receipt of
 * a notice (DSA Art. 16(4)), each decision on it (Art. 16(5)), and the receipt and decision of a
 * complaint (Art. 20(5)). A mail holds what was decided and how to go further, never anything of the
 * player beyond the outcome: no name, no gamer tag, no words of theirs. Each is plain text with an
 * HTML twin in which every string the notifier or the studio gave (the notifier's name, the game's
 * title) is escaped.
 */
export const MAIL_KINDS = [
  'notice_received',
  'notice_decided',
  'complaint_received',
  'complaint_decided',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const MAIL_STATES = ['pending', 'sent', 'rejected', 'failed', 'withdrawn'] as const;
export type MailState = (typeof MAIL_STATES)[number];

/** What each kind tells, as recorded when it was owed (the decision it tells, not the one of when it is sent). */
export interface MailFacts {
  notice_received: { receivedAt: string; category: string; game: string };
  notice_decided: {
    status: Extract<NoticeStanding, 'action_taken' | 'no_action'>;
    reversed: boolean;
    decidedAt: string;
    category: string;
    game: string;
    /** Until when the notifier may contest it (a dismissal); null when it cannot be. */
    contestUntil: string | null;
  };
  complaint_received: { filedAt: string; game: string };
  complaint_decided: { status: 'granted' | 'denied'; decidedAt: string; game: string };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
/** A line of a mail's subject: one line, whatever a studio named its game. */
const oneLine = (s: string) =>
  s
    .replace(/[\r\n\t\u2028\u2029]+/g, ' ')
    .trim()
    .slice(0, 120);

/**
 * The mail of `kind`. `link` opens the notice's status page with its receipt (the secret in the
 * fragment, which browsers never send to a server); `name` is the notifier's own (null: none given).
 */
export function renderMail<K extends MailKind>(
  kind: K,
  facts: MailFacts[K],
  ctx: { noticeId: string; name: string | null; link: string },
): RenderedMail {
  const f = facts as MailFacts[MailKind];
  const game = oneLine((f as { game: string }).game);
  let subject: string;
  const paragraphs: string[] = [];
  switch (kind) {
    case 'notice_received': {
      const r = f as MailFacts['notice_received'];
      subject = `We received your notice about a player of ${game}`;
      paragraphs.push(
        `We received your notice about a player of ${game} on ${utcWords(r.receivedAt)}, for: ${CATEGORY_WORDS[r.category] ?? r.category}.`,
        'A moderator will review it. We will write to you again when it is decided.',
      );
      break;
    }
    case 'notice_decided': {
      const d = f as MailFacts['notice_decided'];
      subject = `The decision on your notice about a player of ${game}`;
      paragraphs.push(
        d.reversed ? REVERSED_WORDS : STANDING_WORDS[d.status],
        `Decided on ${utcWords(d.decidedAt)}, by a moderator; no automated means were used.`,
      );
      if (d.contestUntil)
        paragraphs.push(
          `You may contest this decision, free of charge, until ${utcWords(d.contestUntil)}: open the link below. A moderator other than the one who decided reads your complaint.`,
        );
      paragraphs.push(NOTIFIER_REDRESS);
      break;
    }
    case 'complaint_received': {
      subject = `We received your complaint about the decision on your notice`;
      paragraphs.push(COMPLAINT_WORDS.open, 'We will write to you again when it is decided.');
      break;
    }
    case 'complaint_decided': {
      const c = f as MailFacts['complaint_decided'];
      subject = `The decision on your complaint`;
      paragraphs.push(
        COMPLAINT_WORDS[c.status],
        `Decided on ${utcWords(c.decidedAt)}.`,
        ...(c.status === 'granted' ? ['We will write to you again when the notice is decided.'] : []),
        NOTIFIER_REDRESS,
      );
      break;
    }
    default:
      throw new Error(`no mail of kind ${String(kind)}`);
  }
  const greeting = ctx.name ? `Hello ${ctx.name},` : 'Hello,';
  const linkWords =
    'Where your notice stands, and what you can still do, is on its page (the link holds your receipt: keep this e-mail to yourself):';
  const footer = `Notice ${ctx.noticeId}. You get this e-mail because you gave this address with your notice. The player you reported is never told who you are.`;
  const text = [greeting, ...paragraphs, `${linkWords}\n${ctx.link}`, footer].join('\n\n') + '\n';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1b1f24; max-width: 40rem;">
<p>${esc(greeting)}</p>
${paragraphs.map((p) => `<p>${esc(p)}</p>`).join('\n')}
<p>${esc(linkWords)}<br><a href="${esc(ctx.link)}">Open your notice's page</a></p>
<p style="color: #4b5563; font-size: .875rem;">${esc(footer)}</p>
</body></html>
`;
  return { subject, text, html };
}

/** The link a mail carries: the status page, the receipt in the fragment (never sent to a server, nor logged). */
export const statusLink = (base: string, noticeId: string, secret: string) =>
  `${base.replace(/\/+$/, '')}/notice/status#${new URLSearchParams({ id: noticeId, secret }).toString()}`;

/**
 * How a failed send ends: `rejected` when the server refused the recipient or the message for good
 * (an SMTP 5xx to RCPT TO or DATA: a bounce at the door), else `retry` (a 4xx, a refused or dropped
 * connection, a timeout, an authentication the operator must mend).
 */
export function mailFailureOf(err: unknown): { outcome: 'rejected' | 'retry'; error: string } {
  const e = err as { responseCode?: number; command?: string; code?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const command = String(e.command ?? '').toUpperCase();
  // A 5xx at MAIL FROM refuses our sender address: the operator's to mend, so it is retried (and alerts).
  const atRecipient = command.startsWith('RCPT') || command === 'DATA';
  // A server's words often repeat the address: it is personal data, and never kept or logged.
  const message = String(e.message ?? err).replace(/[^\s<>"'@]+@[^\s<>"']+/g, '[address]');
  const words = `${e.code ?? 'ERROR'}${code ? ` ${code}` : ''}${command ? ` at ${command}` : ''}: ${message.slice(0, 300)}`;
  if (code !== undefined && code >= 500 && code < 600 && atRecipient)
    return { outcome: 'rejected', error: words };
  return { outcome: 'retry', error: words };
}

/** The wait before a mail's next attempt: MAIL_RETRY_BASE_MS doubling, at most an hour. */
export const mailRetryDelay = (baseMs: number, attempts: number) =>
  Math.min(baseMs * 2 ** Math.min(20, Math.max(0, attempts - 1)), 3_600_000);
