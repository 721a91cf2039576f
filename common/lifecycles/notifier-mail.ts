import type { Queryable } from '../data/db.js';
import { mailedNoticesOfOffenses } from '../data/repos/notices.js';
import type { MailFacts, MailKind, MailState } from '../domain/notifier-mail.js';
import { JOB_NAMES, QUEUES } from '../queues/index.js';
import type { OutboxRow } from '../queues/outbox.js';
import { traceFields } from '../tracing/spans.js';
import { canContest, standingOf } from './notice.js';

/**
 * The e-mails owed to notifiers (issue 51; docs/moderators.md "Notices": "E-mail to the notifier"), the only code
 * that writes notifier_mails (a test holds it to that). A mail is owed in the transaction of what it
 * tells (the filing, the decision, the complaint), so it is owed exactly when that happened, and its
 * job's outbox row is written with it:
 *
 *   pending --(the SMTP server took it)--> sent
 *   pending --(a 5xx to the recipient or the message: a bounce at the door)--> rejected
 *   pending --(a 4xx or no server, past MAIL_RETRY_HOURS)--> failed
 *   pending --(the notice holds no e-mail any more: retention took it)--> withdrawn
 *
 * A send claims its mail (claimed_until, twice the call's timeout): a worker that dies mid-call lets it
 * go, and the one that sends it next uses the same Message-ID. A notice whose notifier gave no e-mail
 * owes none.
 */

/**
 * In the caller's transaction: a mail of `kind` owed to the notifier of `noticeId`, with its job's
 * outbox row (job id `mail-<id>`); nothing when the notice holds no e-mail.
 */
export async function recordMail<K extends MailKind>(
  db: Queryable,
  mail: { noticeId: string; kind: K; facts: MailFacts[K] },
): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    `WITH m AS (
       INSERT INTO notifier_mails (notice_id, kind, facts)
       SELECT n.id, $2, $3::jsonb FROM notices n WHERE n.id = $1 AND n.notifier_email IS NOT NULL
       RETURNING id)
     INSERT INTO outbox (queue, job_name, job_id, payload, shard_key)
     SELECT $4, $5, 'mail-' || m.id, jsonb_build_object('mailId', m.id) || $6::jsonb, NULL::uuid FROM m
     RETURNING id::text, queue, job_name, job_id, payload, shard_key`,
    [
      mail.noticeId,
      mail.kind,
      JSON.stringify(mail.facts),
      QUEUES.webhooks,
      JOB_NAMES.sendMail,
      JSON.stringify(traceFields()),
    ],
  );
  return rows;
}

/**
 * In the transaction of a decision on these offenses (a case resolved, a player's appeal granted):
 * the decision mail (Art. 16(5)) owed to the notifier of each notice filed as one of them whose
 * standing is now a decision other than the last one it was told. Called after every such
 * transition, it never tells one decision twice, and tells each new one (a reversal, a decision after
 * a granted complaint).
 */
export async function tellDecisions(
  db: Queryable,
  offenseIds: readonly string[],
  ctx: { complaintDays: number; now: Date },
): Promise<OutboxRow[]> {
  const out: OutboxRow[] = [];
  for (const r of await mailedNoticesOfOffenses(db, offenseIds)) {
    const { status, reversed, decidedAt } = standingOf(r);
    if ((status !== 'action_taken' && status !== 'no_action') || !decidedAt) continue;
    const told = r.told as Partial<MailFacts['notice_decided']> | null;
    const at = decidedAt.toISOString();
    if (told && told.status === status && told.reversed === reversed && told.decidedAt === at) continue;
    const contest = canContest(r, r.complaint_id !== null, decidedAt, ctx.complaintDays, ctx.now);
    out.push(
      ...(await recordMail(db, {
        noticeId: r.id,
        kind: 'notice_decided',
        facts: {
          status,
          reversed,
          decidedAt: at,
          category: r.category,
          game: r.game_title,
          contestUntil: contest.possible ? contest.until!.toISOString() : null,
        },
      })),
    );
  }
  return out;
}

export interface ClaimedMail {
  id: string;
  noticeId: string;
  kind: MailKind;
  facts: MailFacts[MailKind];
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: Date;
  /** The notice's e-mail and name as they are now (null: retention took them). */
  recipient: string | null;
  name: string | null;
  secretSealed: Buffer | null;
}

/**
 * Claims mail `id` for one send, for `claimSeconds`, when it is pending and due; else where it stands
 * (`due`: when a pending one may be claimed next). Undefined when there is no such mail.
 */
export async function claimMail(
  db: Queryable,
  id: string,
  claimSeconds: number,
): Promise<{ claimed: ClaimedMail } | { state: MailState; due: Date | null } | undefined> {
  const { rows } = await db.query<{
    id: string;
    notice_id: string;
    kind: MailKind;
    facts: MailFacts[MailKind];
    attempts: number;
    created_at: Date;
    notifier_email: string | null;
    notifier_name: string | null;
    secret_sealed: Buffer | null;
  }>(
    `UPDATE notifier_mails m
        SET claimed_until = now() + make_interval(secs => $2), attempts = m.attempts + 1, updated_at = now()
       FROM notices n
      WHERE m.id = $1 AND n.id = m.notice_id AND m.state = 'pending' AND m.next_attempt_at <= now()
        AND (m.claimed_until IS NULL OR m.claimed_until < now())
      RETURNING m.id, m.notice_id, m.kind, m.facts, m.attempts, m.created_at, n.notifier_email, n.notifier_name,
                n.secret_sealed`,
    [id, claimSeconds],
  );
  const r = rows[0];
  if (r)
    return {
      claimed: {
        id: r.id,
        noticeId: r.notice_id,
        kind: r.kind,
        facts: r.facts,
        attempts: r.attempts,
        createdAt: r.created_at,
        recipient: r.notifier_email,
        name: r.notifier_name,
        secretSealed: r.secret_sealed,
      },
    };
  const { rows: at } = await db.query<{ state: MailState; due: Date | null }>(
    `SELECT state, CASE WHEN state = 'pending'
                        THEN greatest(next_attempt_at, coalesce(claimed_until, next_attempt_at)) END AS due
       FROM notifier_mails WHERE id = $1`,
    [id],
  );
  return at[0];
}

/** The SMTP server took it, under `messageId`. */
export async function recordMailSent(db: Queryable, id: string, messageId: string): Promise<void> {
  await db.query(
    `UPDATE notifier_mails SET state = 'sent', sent_at = now(), message_id = $2, claimed_until = NULL,
            last_error = NULL, updated_at = now()
      WHERE id = $1 AND state = 'pending'`,
    [id, messageId.slice(0, 300)],
  );
}

/** It ends unsent: refused for good (rejected), out of retries (failed), or no address left (withdrawn). */
export async function recordMailEnded(
  db: Queryable,
  id: string,
  state: Extract<MailState, 'rejected' | 'failed' | 'withdrawn'>,
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE notifier_mails SET state = $2, last_error = $3, claimed_until = NULL, updated_at = now()
      WHERE id = $1 AND state = 'pending'`,
    [id, state, error.slice(0, 1000)],
  );
}

/** An attempt that failed for a passing reason: released, to be tried again at `nextAt`. */
export async function recordMailRetry(db: Queryable, id: string, error: string, nextAt: Date): Promise<void> {
  await db.query(
    `UPDATE notifier_mails SET claimed_until = NULL, last_error = $2, next_attempt_at = $3, updated_at = now()
      WHERE id = $1 AND state = 'pending'`,
    [id, error.slice(0, 1000), nextAt],
  );
}
