import fs from 'node:fs';
import path from 'node:path';
import { UnrecoverableError, type Job } from 'bullmq';
import { findAccount, sanctionDecisions } from '../../common/data/repos/transparency.js';
import { TDB_LIMITS, transparencyStatement } from '../../common/domain/transparency-statement.js';
import {
  claimDue,
  nextDue,
  recordAttemptFailed,
  recordRefused,
  recordSent,
  type ClaimedStatement,
} from '../../common/lifecycles/transparency-statement.js';
import { submitStatements } from '../../common/net/transparency-database.js';
import { openWebhookSecret } from '../../common/security/webhook-secrets.js';
import { putBack, type ProcessorDeps } from '../run.js';

/** Calls one job makes at most before it leaves the rest of a long backlog to the next job. */
const ROUNDS = 20;

/** The wait before a statement's next attempt after a passing failure: TDB_RETRY_BASE_MS doubling, at most 30 min. */
export const statementRetryDelay = (baseMs: number, attempts: number) =>
  Math.min(baseMs * 2 ** Math.min(20, Math.max(0, attempts - 1)), 1_800_000);

/**
 * Submits a platform's pending statements to the DSA Transparency Database (issue 35), up to 100 a
 * call, until none is due (common/lifecycles/transparency-statement.ts holds their states). The whole
 * call is taken or refused, so a refusal is read statement by statement: one the database names is
 * refused with its words; one whose puid it already holds counts as sent; the rest go again at once.
 * A passing failure (429, 5xx, the network, a token refused) leaves the claimed ones pending until
 * their next attempt and puts this job back until then, so the job that met the failure retries it.
 * An account in dry-run mode writes the statements as JSON lines (TDB_DRY_RUN_FILE) instead.
 */
export const statementsProcessor = (deps: ProcessorDeps) => async (job: Job, token?: string) => {
  const platform = (job.data as { platform?: unknown }).platform;
  if (typeof platform !== 'string') throw new UnrecoverableError('a statements job names no platform');
  const account = await findAccount(deps.pool, platform);
  // No account any more: its statements stay pending (shown to admins) until one is configured.
  if (!account) return { platform, skipped: 'no account' };
  const metric = (outcome: string, n: number) =>
    n && deps.metrics?.transparencyStatements.inc({ outcome }, n);
  const done = { sent: 0, alreadyHeld: 0, refused: 0 };
  let round = 0;
  for (; round < ROUNDS; round++) {
    const claimed = await claimDue(
      deps.pool,
      platform,
      TDB_LIMITS.batch,
      Math.ceil((2 * deps.config.tdbTimeoutMs) / 1000),
    );
    if (claimed.length === 0) break;
    const facts = await sanctionDecisions(
      deps.pool,
      claimed.map((c) => c.sanctionId),
    );
    const items = claimed.map((c) => ({
      claim: c,
      body: transparencyStatement(facts.get(c.sanctionId)!, {
        territorialScope: deps.config.tdbTerritorialScope,
      }),
    }));

    if (account.mode === 'dry-run') {
      fs.mkdirSync(path.dirname(deps.config.tdbDryRunFile), { recursive: true });
      fs.appendFileSync(
        deps.config.tdbDryRunFile,
        items.map((i) => `${JSON.stringify({ platform, statement: i.body })}\n`).join(''),
      );
      await recordSent(
        deps.pool,
        items.map((i) => ({ id: i.claim.id, body: i.body, uuid: null, permalink: null })),
        true,
      );
      metric('dry_run', items.length);
      done.sent += items.length;
      continue;
    }

    const outcome = await submitStatements(
      { baseUrl: account.baseUrl!, token: openWebhookSecret(account.tokenSealed!, deps.pepper) },
      items.map((i) => i.body),
      deps.config.tdbTimeoutMs,
    );
    if (outcome.kind === 'created') {
      const answered = new Map(outcome.statements.map((s) => [s.puid, s]));
      await recordSent(
        deps.pool,
        items.map((i) => ({
          id: i.claim.id,
          body: i.body,
          uuid: answered.get(i.claim.puid)?.uuid ?? null,
          permalink: answered.get(i.claim.puid)?.permalink ?? null,
        })),
        false,
      );
      metric('sent', items.length);
      done.sent += items.length;
      continue;
    }
    if (outcome.kind === 'refused') {
      const held = new Set(outcome.existingPuids);
      const refused = items.flatMap((i, k) =>
        outcome.byIndex.has(k) && !held.has(i.claim.puid)
          ? [{ id: i.claim.id, body: i.body, refusal: outcome.byIndex.get(k) }]
          : [],
      );
      const alreadyHeld = items.filter((i) => held.has(i.claim.puid));
      // A refusal that names no statement of the call (its shape unknown): each is refused with the
      // database's whole answer, not retried blindly for ever.
      const unnamed = refused.length === 0 && alreadyHeld.length === 0;
      const refusedAll = unnamed
        ? items.map((i) => ({ id: i.claim.id, body: i.body, refusal: outcome.body }))
        : refused;
      await recordSent(
        deps.pool,
        alreadyHeld.map((i) => ({ id: i.claim.id, body: i.body, uuid: null, permalink: null })),
        false,
      );
      await recordRefused(deps.pool, refusedAll);
      // The rest were refused only with their neighbours: released for the next round, at once.
      const rest = unnamed
        ? []
        : items.filter((i, k) => !held.has(i.claim.puid) && !outcome.byIndex.has(k)).map((i) => i.claim.id);
      await recordAttemptFailed(
        deps.pool,
        rest,
        'sent again: the call was refused for other statements',
        new Date(),
      );
      metric('already_held', alreadyHeld.length);
      metric('refused', refusedAll.length);
      done.alreadyHeld += alreadyHeld.length;
      done.refused += refusedAll.length;
      if (refusedAll.length)
        deps.log.warn(
          { platform, refused: refusedAll.length, jobId: job.id },
          'the DSA Transparency Database refused statements; they wait for an admin (GET /v1/admin/transparency/statements?state=refused)',
        );
      continue;
    }
    // A passing failure: the claimed statements wait; this job comes back when the first is due.
    const attempts = Math.max(...claimed.map((c: ClaimedStatement) => c.attempts));

    const at = new Date(
      Date.now() +
        Math.max(outcome.retryAfterMs ?? 0, statementRetryDelay(deps.config.tdbRetryBaseMs, attempts)),
    );
    await recordAttemptFailed(
      deps.pool,
      claimed.map((c) => c.id),
      outcome.error,
      at,
    );
    deps.log.warn(
      { platform, error: outcome.error, retryAt: at.toISOString() },
      'DSA Transparency Database submission failed; retrying',
    );
    return putBack(job, token, at.getTime());
  }
  // A backlog longer than one job's rounds: this job runs again at once for the rest.
  if (round === ROUNDS) return putBack(job, token, Date.now());
  // Nothing due now, but statements still pending: claimed by a submission that may have died with
  // its worker (the claim runs out at twice the call's timeout), or waiting for their next attempt.
  // This job comes back for them then instead of completing: a completed job's id makes every later
  // add of it (the reconciler's, the stalled job's rerun) a no-op, so nothing else would send them
  // while the service is quiet. A second after the claim ends, spread so the jobs do not meet.
  const due = await nextDue(deps.pool, platform);
  if (due) return putBack(job, token, Math.max(Date.now(), due.getTime()) + 1000 + Math.random() * 1000);
  return { platform, ...done };
};
