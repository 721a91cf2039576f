import nodemailer from 'nodemailer';
import { UnrecoverableError, type Job } from 'bullmq';
import { mailFailureOf, mailRetryDelay, renderMail, statusLink } from '../../common/domain/notifier-mail.js';
import {
  claimMail,
  recordMailEnded,
  recordMailRetry,
  recordMailSent,
} from '../../common/lifecycles/notifier-mail.js';
import { openWebhookSecret } from '../../common/security/webhook-secrets.js';
import { putBack, type ProcessorDeps } from '../run.js';

/** The host part of our Message-IDs: the sender address's domain. */
const domainOf = (from: string) => /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'player-trust.localhost';

/**
 * Sends one e-mail to a notifier (issue 51; common/lifecycles/notifier-mail.ts holds its states)
 * through SMTP_URL with nodemailer, one connection a send. The mail is claimed for twice the call's
 * timeout first, so two workers never send it at once and one that dies mid-call lets it go; every
 * attempt carries the same Message-ID (`<mail id@sender's domain>`), so the one duplicate a crash
 * between the server's 250 and our record can make is recognisable as one. A 5xx to the recipient
 * or the message (a bounce at the door) ends it rejected; anything else (a 4xx, no server, a
 * timeout, credentials refused) is retried with backoff until MAIL_RETRY_HOURS after it was owed,
 * then it fails. A mail that waits puts its job back until it is due: it holds no worker, so a dead
 * SMTP server holds up neither the other mails nor the webhooks sharing the queue.
 */
export const mailProcessor = (deps: ProcessorDeps) => {
  const { mail } = deps.config;
  const transport = mail.smtpUrl
    ? nodemailer.createTransport({
        url: mail.smtpUrl,
        connectionTimeout: mail.timeoutMs,
        greetingTimeout: mail.timeoutMs,
        socketTimeout: mail.timeoutMs,
      })
    : undefined;
  // The API's public address (PUBLIC_URL, required in production), else where the API listens, as
  // the API itself says it (api/server.ts).
  const host = deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host;
  const base =
    deps.config.publicUrl ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${deps.config.port}`;
  const domain = domainOf(mail.from);
  const metric = (outcome: string) => deps.metrics?.notifierMails.inc({ outcome });
  let toldUnset = false;

  return async (job: Job, token?: string) => {
    const id = (job.data as { mailId?: unknown }).mailId;
    if (typeof id !== 'string') throw new UnrecoverableError('a mail job names no mail');
    const claim = await claimMail(deps.pool, id, Math.ceil((2 * mail.timeoutMs) / 1000));
    if (!claim) return { mailId: id, skipped: 'no such mail' };
    if (!('claimed' in claim)) {
      // Sent, ended, or another send holds it: a pending one comes back when it is due.
      if (claim.state === 'pending' && claim.due)
        return putBack(job, token, Math.max(Date.now(), claim.due.getTime()) + 1000 + Math.random() * 1000);
      return { mailId: id, state: claim.state };
    }
    const m = claim.claimed;
    if (!m.recipient || !m.secretSealed) {
      await recordMailEnded(deps.pool, id, 'withdrawn', 'the notice holds no e-mail any more (retention)');
      metric('withdrawn');
      return { mailId: id, state: 'withdrawn' };
    }
    const retry = async (error: string) => {
      const deadline = m.createdAt.getTime() + mail.retryHours * 3_600_000;
      const at = Date.now() + mailRetryDelay(mail.retryBaseMs, m.attempts);
      if (at > deadline) {
        await recordMailEnded(deps.pool, id, 'failed', error);
        metric('failed');
        deps.log.error(
          { mailId: id, kind: m.kind, attempts: m.attempts, error },
          'a mail to a notifier could not be sent within MAIL_RETRY_HOURS: it failed',
        );
        return { mailId: id, state: 'failed' };
      }
      await recordMailRetry(deps.pool, id, error, new Date(at));
      metric('retried');
      deps.log.warn(
        { mailId: id, kind: m.kind, attempts: m.attempts, error, retryAt: new Date(at).toISOString() },
        'a mail to a notifier was not sent; retrying',
      );
      return putBack(job, token, at);
    };
    if (!transport) {
      if (!toldUnset)
        deps.log.warn('SMTP_URL is not set: mails to notifiers wait, pending, until a server is configured');
      toldUnset = true;
      return retry('no SMTP server is configured (SMTP_URL)');
    }
    const secret = openWebhookSecret(m.secretSealed, deps.pepper);
    const rendered = renderMail(m.kind, m.facts, {
      noticeId: m.noticeId,
      name: m.name,
      link: statusLink(base, m.noticeId, secret),
    });
    const messageId = `<${id}@${domain}>`;
    try {
      await transport.sendMail({
        from: mail.from,
        to: m.recipient,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        messageId,
        // RFC 3834: an automatic message; auto-responders do not answer it.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    } catch (err) {
      const failure = mailFailureOf(err);
      if (failure.outcome === 'rejected') {
        await recordMailEnded(deps.pool, id, 'rejected', failure.error);
        metric('rejected');
        deps.log.warn({ mailId: id, kind: m.kind, error: failure.error }, 'a mail to a notifier was refused');
        return { mailId: id, state: 'rejected' };
      }
      return retry(failure.error);
    }
    await recordMailSent(deps.pool, id, messageId);
    metric('sent');
    return { mailId: id, state: 'sent' };
  };
};
