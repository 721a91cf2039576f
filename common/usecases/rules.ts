import { lockPlayerRow, setPointsHold } from '../data/repos/trust.js';
import Joi from 'joi';
import { encodeKeys, oneKey, pageOf, CURSOR } from '../cursor.js';
import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { insertAudit } from '../data/repos/moderation.js';
import { findQueue } from '../data/repos/review-queues.js';
import {
  backtestCases,
  caseFacts,
  findRule,
  inCooldown,
  listMatches,
  openCasesMatching,
  openCasesOfPlayer,
  openCasesOfPlayers,
  studiosOfCase,
  listRules,
  runningRules,
  type RuleInsights,
} from '../data/repos/rules.js';
import { isUuid } from '../domain/ids.js';
import {
  actionsSchema,
  conditionsSchema,
  effectiveActions,
  RULE_MODES,
  RULE_TRIGGERS,
  ruleMatches,
  type RuleTrigger,
  type RuleActions,
  type RuleConditions,
} from '../domain/rules.js';
import { AppError, notFound, validationError } from '../errors.js';
import { escalateToSenior, moveToQueue, raisePriorityFloor } from '../lifecycles/review-case.js';
import { addMember, lockWave } from '../lifecycles/wave.js';
import { findWave } from '../data/repos/waves.js';
import {
  lockRule,
  recordApproval,
  recordMatch,
  recordRule,
  recordSave,
  stopAtCap,
  type RuleInput,
  type RuleRow,
} from '../lifecycles/rule.js';
import type { Logger } from '../logger.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';
import { listTemplates } from './templates.js';
import { addTag } from './tags.js';
import { emitEvents } from '../lifecycles/webhook-delivery.js';
import { applySanction } from './sanctions.js';
import { forgetRuleTriggers, type PlayerTrigger } from './rule-triggers.js';
import { ruleSanctionedCase } from '../data/repos/sanctions.js';
import type { OutboxRow } from '../queues/outbox.js';

/**
 * Rules that act on their own (issue 38; docs/moderators.md "Rules"): admins write them as data, each save a new
 * version; in background mode a rule records what it would have done and changes nothing, in live
 * mode it acts, at most once a player within its cooldown, and stops when it acted more than its cap
 * within the cap's window. Rules weigh a case each time reports are filed into it (the review
 * worker, after the filing commits). The life cycle is common/lifecycles/rule.ts.
 */

export const ruleSchema = Joi.object({
  name: text(200).required(),
  trigger: Joi.string()
    .valid(...RULE_TRIGGERS)
    .default('filing')
    .description(
      'What makes it weigh: filing (reports filed into a case, the default), sanction_placed (a sanction placed on the player: their open cases), schedule (open cases, every RULES_SCHEDULE_INTERVAL_MS), evasion_suspected (an evasion suspicion recorded for the player by the sign-in check: their open cases).',
    ),
  mode: Joi.string()
    .valid(...RULE_MODES)
    .required()
    .description(
      'draft: nothing; background: records each match and what it would do, changes nothing; live: acts.',
    ),
  conditions: conditionsSchema.required(),
  actions: actionsSchema.required(),
  cooldownSeconds: Joi.number()
    .integer()
    .min(0)
    .max(365 * 86_400)
    .default(86_400)
    .description('A rule matches a player at most once within this (default a day).'),
  capCount: Joi.number()
    .integer()
    .min(1)
    .max(1_000_000)
    .default(100)
    .description('A live rule that acted this many times within capWindowSeconds stops (until saved again).'),
  capWindowSeconds: Joi.number()
    .integer()
    .min(60)
    .max(30 * 86_400)
    .default(3600),
});

export const matchListSchema = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: CURSOR,
});

export const presentRule = (r: RuleRow & RuleInsights) => ({
  id: r.id,
  name: r.name,
  version: r.version,
  mode: r.mode,
  trigger: r.trigger,
  conditions: r.conditions,
  actions: r.actions,
  cooldownSeconds: r.cooldown_seconds,
  capCount: r.cap_count,
  capWindowSeconds: r.cap_window_seconds,
  stopped: r.stopped_at ? { at: r.stopped_at.toISOString(), reason: r.stop_reason ?? '' } : null,
  savedBy: r.updated_by,
  approval: {
    awaiting: r.awaiting_approval,
    approvedBy: r.approved_by,
    approvedAt: r.approved_at?.toISOString() ?? null,
  },
  updatedAt: r.updated_at.toISOString(),
  insights: {
    matchesLastDay: r.matches_day,
    matchesLastWeek: r.matches_week,
    actedLastWeek: r.acted_week,
    lastMatchAt: r.last_match_at?.toISOString() ?? null,
    decidedUpheld: r.upheld,
    decidedDismissed: r.dismissed,
  },
});
export type RuleView = ReturnType<typeof presentRule>;

async function checkedInput(pool: Pool, body: unknown): Promise<RuleInput> {
  const v = check<RuleInput>(ruleSchema, body);
  if (v.actions.queue !== undefined && !(await findQueue(pool, v.actions.queue)))
    throw validationError([{ field: 'actions.queue', message: 'is not a queue in use' }]);
  if (v.actions.wave !== undefined) {
    const w = await findWave(pool, v.actions.wave.waveId);
    if (!w || !w.created_by_moderator || !['awaiting_approval', 'scheduled'].includes(w.state))
      throw validationError([
        { field: 'actions.wave.waveId', message: "is not a moderator's wave that has not run" },
      ]);
  }
  if (v.actions.sanction !== undefined) {
    // What the rule places is the template's as it is now, copied into this version.
    const t = (await listTemplates(pool)).find((x) => x.id === v.actions.sanction!.templateId);
    if (!t)
      throw validationError([{ field: 'actions.sanction.templateId', message: 'is not a template in use' }]);
    if (!t.sanctionType)
      throw validationError([{ field: 'actions.sanction.templateId', message: 'places no sanction' }]);
    v.actions.sanction = {
      templateId: t.id,
      type: t.sanctionType,
      durationSeconds: t.durationSeconds,
      reason: t.playerReason,
    };
  }
  return v;
}

async function auditSave(db: Queryable, by: Actor, r: RuleRow) {
  await insertAudit(db, {
    moderatorId: by.id,
    caseId: null,
    action: 'save_rule',
    outcome: null,
    note: null,
    trustScoreBefore: null,
    trustScoreAfter: null,
    details: {
      ruleId: r.id,
      name: r.name,
      version: r.version,
      mode: r.mode,
      conditions: r.conditions,
      actions: r.actions,
    },
  });
}

export async function createRule(pool: Pool, by: Actor, body: unknown): Promise<RuleView> {
  const v = await checkedInput(pool, body);
  const id = await withTransaction(pool, async (client) => {
    const r = await recordRule(client, v, by.id);
    await auditSave(client, by, r);
    return r.id;
  });
  cached = undefined;
  forgetRuleTriggers();
  return presentRule((await findRule(pool, id))!);
}

/** Saves a rule again (every field): its next version, audited; a stopped rule runs again. */
export async function saveRule(pool: Pool, by: Actor, id: string, body: unknown): Promise<RuleView> {
  const v = await checkedInput(pool, body);
  await withTransaction(pool, async (client) => {
    const found = isUuid(id) ? await lockRule(client, id) : undefined;
    if (!found) throw notFound(`Rule ${id}`);
    const r = await recordSave(client, id, v, by.id);
    await auditSave(client, by, r);
  });
  cached = undefined;
  forgetRuleTriggers();
  return presentRule((await findRule(pool, id))!);
}

/**
 * A second admin approves a live rule that sanctions (four eyes): not the admin who saved the version
 * (403 own_rule); only a version awaiting approval (409 rule_not_awaiting_approval). Audited with both
 * names: the saver's in the rule's history, the approver's here.
 */
export async function approveRule(pool: Pool, by: Actor, id: string): Promise<RuleView> {
  await withTransaction(pool, async (client) => {
    const found = isUuid(id) ? await lockRule(client, id) : undefined;
    if (!found) throw notFound(`Rule ${id}`);
    if (!found.awaiting_approval)
      throw new AppError(409, 'rule_not_awaiting_approval', 'This version of the rule awaits no approval.');
    if (found.updated_by === by.id)
      throw new AppError(
        403,
        'own_rule',
        'A rule that places sanctions needs a second admin: another admin approves it.',
      );
    const r = await recordApproval(client, found, by.id);
    await insertAudit(client, {
      moderatorId: by.id,
      caseId: null,
      action: 'approve_rule',
      outcome: null,
      note: null,
      trustScoreBefore: null,
      trustScoreAfter: null,
      details: { ruleId: r.id, name: r.name, version: r.version, savedBy: r.updated_by, actions: r.actions },
    });
  });
  cached = undefined;
  forgetRuleTriggers();
  return presentRule((await findRule(pool, id))!);
}

export async function getRule(pool: Pool, id: string): Promise<RuleView> {
  const r = isUuid(id) ? await findRule(pool, id) : undefined;
  if (!r) throw notFound(`Rule ${id}`);
  return presentRule(r);
}

export async function listRuleViews(pool: Pool) {
  return { items: (await listRules(pool)).map(presentRule) };
}

export async function listRuleMatches(pool: Pool, id: string, query: unknown) {
  await getRule(pool, id);
  const q = check<{ limit: number; cursor?: string }>(matchListSchema, query, 'query');
  const before = oneKey(q.cursor, (k) => /^\d{1,19}$/.test(k));
  const rows = await listMatches(pool, id, { limit: q.limit, before });
  return pageOf(
    rows,
    q.limit,
    (m) => ({
      ruleVersion: m.rule_version,
      mode: m.mode,
      caseId: m.case_id,
      playerId: m.service_id,
      actions: m.actions,
      at: m.created_at.toISOString(),
    }),
    (last) => encodeKeys([last.id]),
  );
}

/**
 * The running rules, read again at most every second a process (rules change rarely; a filing never
 * waits on them), and at once after this process saved one.
 */
let cached: { at: number; pool: Pool; rules: RuleRow[] } | undefined;
async function rulesNow(pool: Pool): Promise<RuleRow[]> {
  if (cached && cached.pool === pool && Date.now() - cached.at < 1000) return cached.rules;
  const rules = await runningRules(pool);
  cached = { at: Date.now(), pool, rules };
  return rules;
}

export interface RuleOutcome {
  ruleId: string;
  caseId: string;
  mode: 'background' | 'live';
  actions: RuleActions;
}

/**
 * Weighs the running rules against cases reports were just filed into. Each match that would change
 * something takes the rule's row lock (so its cooldown and cap hold across workers), is recorded, and
 * in live mode acts in the same transaction: a case's priority floor, its queue, an escalation, a tag
 * on the player, each audited as the rule's (rule_action, with the rule's id and version, under the
 * admin who saved that version). A live rule at its cap stops instead of acting.
 */
export async function weighRules(
  pool: Pool,
  caseIds: string[],
  opts: WeighOptions = {},
  trigger: RuleTrigger = 'filing',
): Promise<RuleOutcome[]> {
  const { log } = opts;
  const rules = (await rulesNow(pool)).filter((r) => r.trigger === trigger);
  if (rules.length === 0 || caseIds.length === 0) return [];
  const withTimes = rules.some((r) => r.conditions.burst !== undefined);
  const withMatches = rules.some((r) => r.conditions.leftEarly !== undefined);
  const facts = await caseFacts(pool, [...new Set(caseIds)], withTimes, withMatches);
  const outcomes: RuleOutcome[] = [];
  for (const f of facts)
    for (const candidate of rules) {
      if (!ruleMatches(candidate.conditions, f)) continue;
      if (Object.keys(effectiveActions(candidate.actions, f)).length === 0) continue;
      const outcome = await withTransaction(pool, async (client) => {
        const rule = await lockRule(client, candidate.id);
        if (!rule || rule.mode === 'draft' || rule.stopped_at) return undefined;
        // Awaiting a second admin's approval, a live rule that sanctions only records (as background).
        const mode = rule.awaiting_approval ? 'background' : rule.mode;
        // The facts again under the lock: another rule or worker may have acted meanwhile.
        const [now] = await caseFacts(client, [f.caseId], withTimes, withMatches);
        if (!now || !ruleMatches(rule.conditions, now)) return undefined;
        const actions = effectiveActions(rule.actions, now);
        // A wave that has run (or is full) takes nobody more: that action is gone, not recorded.
        const wave = actions.wave ? await lockWave(client, actions.wave.waveId) : undefined;
        if (
          actions.wave &&
          (!wave ||
            !['awaiting_approval', 'scheduled'].includes(wave.state) ||
            wave.size >= (opts.waveMaxPlayers ?? 10_000))
        )
          delete actions.wave;
        if (actions.sanction !== undefined && (await ruleSanctionedCase(client, rule.id, now.caseId)))
          delete actions.sanction;
        if (Object.keys(actions).length === 0) return undefined;
        if (await inCooldown(client, rule, now.playerId)) return undefined;
        if (await stopAtCap(client, rule, mode)) {
          log?.warn({ ruleId: rule.id, name: rule.name }, 'rule stopped at its cap');
          return undefined;
        }
        await recordMatch(client, {
          rule: { ...rule, mode },
          caseId: now.caseId,
          playerId: now.playerId,
          actions,
        });
        const outbox: OutboxRow[] = [];
        if (mode === 'live') {
          const by = `Rule ${rule.name} (version ${rule.version})`;
          if (actions.priority !== undefined) await raisePriorityFloor(client, now.caseId, actions.priority);
          if (actions.queue !== undefined) await moveToQueue(client, now.caseId, actions.queue);
          if (actions.escalate) await escalateToSenior(client, now.caseId, by);
          if (actions.tag !== undefined)
            await addTag(
              client,
              { id: rule.updated_by, username: 'rule', role: 'admin' },
              { kind: 'player', serviceId: now.serviceId },
              { tag: actions.tag },
            );
          if (actions.wave && wave) await addMember(client, wave, now.playerId);
          if (actions.holdPoints)
            await setPointsHold(
              client,
              now.playerId,
              new Date(Date.now() + actions.holdPoints.hours * 3_600_000),
            );
          if (actions.releaseHold) await setPointsHold(client, now.playerId, null);
          if (actions.sanction !== undefined) {
            await lockPlayerRow(client, now.playerId);
            const placed = await applySanction(client, {
              actor: { kind: 'moderator', id: rule.updated_by },
              player: { rowId: now.playerId, serviceId: now.serviceId },
              sanction: {
                type: actions.sanction.type,
                reason: actions.sanction.reason,
                durationSeconds: actions.sanction.durationSeconds ?? undefined,
              },
              caseId: now.caseId,
              now: new Date(),
              appealWindowDays: opts.appealWindowDays,
              rule: { id: rule.id, version: rule.version, name: rule.name },
            });
            outbox.push(...placed.outbox);
          }
          if (actions.notify)
            outbox.push(
              ...(await emitEvents(client, [
                {
                  type: 'rule.matched',
                  dataByStudio: new Map(
                    (await studiosOfCase(client, now.caseId)).map((studio) => [
                      studio,
                      {
                        caseId: now.caseId,
                        playerId: now.serviceId,
                        kind: now.type,
                        rule: { id: rule.id, name: rule.name, version: rule.version },
                        actions: Object.keys(actions).filter((a) => a !== 'notify'),
                      },
                    ]),
                  ),
                },
              ])),
            );
          await insertAudit(client, {
            moderatorId: rule.updated_by,
            caseId: now.caseId,
            action: 'rule_action',
            outcome: null,
            note: by,
            trustScoreBefore: null,
            trustScoreAfter: null,
            details: {
              ruleId: rule.id,
              ruleVersion: rule.version,
              name: rule.name,
              actions,
              automated: true,
            },
          });
        }
        return { outcome: { ruleId: rule.id, caseId: now.caseId, mode, actions } as RuleOutcome, outbox };
      });
      if (outcome) {
        outcomes.push(outcome.outcome);
        opts.dispatch?.(outcome.outbox);
      }
    }
  return outcomes;
}

/** What a weighing needs besides the cases: a logger, the outbox's dispatch, the appeal window. */
export interface WeighOptions {
  log?: Logger;
  dispatch?: (rows: OutboxRow[]) => void;
  appealWindowDays?: number;
  /** WAVE_MAX_PLAYERS: a rule adds nobody to a wave this full. */
  waveMaxPlayers?: number;
}

/** The most open cases a scheduled rule weighs in one round (the next round takes the rest). */
const SCHEDULED_CASES = 500;

/**
 * The schedule's round (the weigh-rules job, every RULES_SCHEDULE_INTERVAL_MS): each running rule
 * triggered by the schedule weighs the open cases its conditions match now, oldest first, at most 500
 * a rule a round; its cooldown keeps it from a player it matched within it.
 */
export async function weighScheduledRules(pool: Pool, opts: WeighOptions = {}): Promise<RuleOutcome[]> {
  const scheduled = (await rulesNow(pool)).filter((r) => r.trigger === 'schedule');
  const cases = new Set<string>();
  for (const rule of scheduled)
    for (const id of await openCasesMatching(pool, rule.conditions, SCHEDULED_CASES)) cases.add(id);
  // Each case once, weighed by every scheduled rule (each still checks its own conditions).
  return weighRules(pool, [...cases], opts, 'schedule');
}

/**
 * Something happened to the player (a sanction placed, an evasion suspicion recorded): the rules
 * triggered by it weigh the player's open cases.
 */
export async function weighAfter(
  pool: Pool,
  trigger: PlayerTrigger,
  playerId: string,
  opts: WeighOptions = {},
): Promise<RuleOutcome[]> {
  return weighRules(pool, await openCasesOfPlayer(pool, playerId), opts, trigger);
}

/** Rules triggered by a recorded match weigh the open cases of the players it named (a job's). */
export async function weighAfterMatches(
  pool: Pool,
  playerIds: readonly string[],
  opts: WeighOptions = {},
): Promise<RuleOutcome[]> {
  return weighRules(pool, await openCasesOfPlayers(pool, playerIds), opts, 'match_recorded');
}

export const backtestSchema = Joi.object({
  conditions: conditionsSchema.required(),
  days: Joi.number()
    .integer()
    .min(1)
    .max(90)
    .default(30)
    .description('The cases opened in the last this many days (1 to 90).'),
});

const BACKTEST_SAMPLE = 50;
const BACKTEST_TIMEOUT_MS = 60_000;

/**
 * A backtest (docs/moderators.md "Rules"): a rule's conditions over the cases opened in the last `days` days, as
 * their figures stand now, against what moderators decided: the cases it would have matched, of those
 * the ones moderators upheld (agree) and dismissed (it would have acted where they did not), the
 * upheld ones it would have missed, and the newest matched cases, each with its player and verdict.
 * Read-only, one statement over the window, under a 60 s statement timeout.
 */
export async function backtestRule(pool: Pool, body: unknown) {
  const v = check<{ conditions: RuleConditions; days: number }>(backtestSchema, body);
  const started = Date.now();
  const result = await backtestCases(pool, v.conditions, v.days, BACKTEST_SAMPLE, BACKTEST_TIMEOUT_MS).catch(
    (err: { code?: string }) => {
      if (err.code === '57014')
        throw new AppError(
          503,
          'service_unavailable',
          `The backtest did not finish within ${BACKTEST_TIMEOUT_MS / 1000} s: try fewer days.`,
        );
      throw err;
    },
  );
  const c = result.counts;
  return {
    days: v.days,
    cases: c.cases,
    matched: c.matched,
    players: c.players,
    agree: c.agree,
    wouldHaveActedWhereDismissed: c.dismissed,
    missed: c.missed,
    pending: c.open,
    agreement: c.agree + c.dismissed ? c.agree / (c.agree + c.dismissed) : null,
    sample: result.sample.map((m) => ({
      playerId: m.service_id,
      caseId: m.case_id,
      kind: m.type,
      decided: m.status === 'open' ? null : m.outcome,
      verdict:
        m.status === 'open'
          ? ('pending' as const)
          : m.outcome === 'upheld'
            ? ('agree' as const)
            : ('would_have_acted_where_dismissed' as const),
    })),
    tookMs: Date.now() - started,
  };
}
