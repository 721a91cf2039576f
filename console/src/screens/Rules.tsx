import { useState, type FormEvent } from 'react';
import {
  backtestRule,
  listActingRules,
  listTemplates,
  listWaves,
  saveActingRule,
  type ActingRule as Rule,
  type ActingRuleInput as RuleInput,
  type Backtest,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { NoticeLine } from '../components/NoticeLine';
import { SANCTION_WORDS, when } from '../format';
import { CASE_SOURCES, LIMITS, OFFENSE_TYPES, SEVERITIES } from '../generated/contract';
import { useAction, useLoad } from '../hooks';

const MODE_WORDS: Record<Rule['mode'], string> = {
  draft: 'draft (weighs nothing)',
  background: 'background (records what it would do)',
  live: 'live (acts)',
};

const TRIGGER_WORDS: Record<Rule['trigger'], string> = {
  filing: 'when reports are filed into a case',
  sanction_placed: "when a sanction is placed on the player (the player's open cases)",
  schedule: 'on the schedule (open cases, every few minutes)',
  evasion_suspected: "when the player is suspected of evading a ban (the player's open cases)",
  match_recorded:
    "when a match is recorded that the player left early or that counted down their restriction (the player's open cases)",
};

/** A rule's conditions in words, for the list. */
function conditionWords(c: Rule['conditions']): string {
  const parts: string[] = [];
  if (c.types) parts.push(`kind ${c.types.join(' or ')}`);
  if (c.minSeverity) parts.push(`severity ${c.minSeverity} or more`);
  if (c.sources) parts.push(`from ${c.sources.join(' or ')}`);
  if (c.minReports !== undefined) parts.push(`${c.minReports}+ reports`);
  if (c.minDistinctReporters !== undefined) parts.push(`${c.minDistinctReporters}+ reporters`);
  if (c.minDistinctGames !== undefined) parts.push(`${c.minDistinctGames}+ games`);
  if (c.maxTrustScore !== undefined) parts.push(`score ${c.maxTrustScore} or less`);
  if (c.playerTags) parts.push(`tagged ${c.playerTags.join(' or ')}`);
  if (c.queues) parts.push(`in ${c.queues.join(' or ')}`);
  if (c.noActiveSanction) parts.push('no sanction in force');
  if (c.evasionSuspected !== undefined)
    parts.push(c.evasionSuspected ? 'suspected of evading a ban' : 'not suspected of evading a ban');
  if (c.minOpenHours !== undefined) parts.push(`open ${c.minOpenHours}+ hours`);
  if (c.minConfidence !== undefined) parts.push(`confidence ${c.minConfidence}+`);
  if (c.minActiveStrikes !== undefined) parts.push(`${c.minActiveStrikes}+ strikes in force`);
  if (c.minDistinctStudios !== undefined) parts.push(`${c.minDistinctStudios}+ studios`);
  if (c.minReporterCredibility !== undefined)
    parts.push(`a reporter of credibility ${c.minReporterCredibility}+`);
  if (c.burst) parts.push(`${c.burst.reports}+ reports within ${c.burst.withinSeconds / 60} minutes`);
  if (c.leftEarly)
    parts.push(`left ${c.leftEarly.atLeast}+ of the last ${c.leftEarly.matches} matches early`);
  if (c.maxRestrictionMatchesLeft !== undefined)
    parts.push(`a restriction with ${c.maxRestrictionMatchesLeft} or fewer matches left`);
  return parts.join(', ');
}

function actionWords(a: Rule['actions']): string {
  const parts: string[] = [];
  if (a.priority !== undefined) parts.push(`priority at least ${a.priority}`);
  if (a.queue) parts.push(`move to ${a.queue}`);
  if (a.escalate) parts.push('escalate');
  if (a.notify) parts.push('tell the reporting studios');
  if (a.wave) parts.push('add the player to a wave');
  if (a.holdPoints) parts.push(`hold the player's points ${a.holdPoints.hours} h`);
  if (a.releaseHold) parts.push("end a hold on the player's points");
  if (a.tag) parts.push(`tag the player ${a.tag}`);
  if (a.sanction)
    parts.push(`place a ${SANCTION_WORDS[a.sanction.type ?? 'warning']}: ${a.sanction.reason ?? ''}`);
  return parts.join(', ');
}

const num = (v: FormDataEntryValue | null) => (v === null || String(v).trim() === '' ? undefined : Number(v));
const list = (v: FormDataEntryValue | null) => {
  const items = String(v ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  return items.length ? items : undefined;
};

/** The rule the form says (undefined fields left out). */
function ruleOf(data: FormData): RuleInput {
  const types = data.getAll('types').map(String) as NonNullable<RuleInput['conditions']['types']>;
  const sources = data.getAll('sources').map(String) as NonNullable<RuleInput['conditions']['sources']>;
  const conditions: RuleInput['conditions'] = {
    ...(types.length ? { types } : {}),
    ...(data.get('minSeverity')
      ? { minSeverity: String(data.get('minSeverity')) as Rule['conditions']['minSeverity'] }
      : {}),
    ...(sources.length ? { sources } : {}),
    ...(num(data.get('minReports')) !== undefined ? { minReports: num(data.get('minReports')) } : {}),
    ...(num(data.get('minDistinctReporters')) !== undefined
      ? { minDistinctReporters: num(data.get('minDistinctReporters')) }
      : {}),
    ...(num(data.get('minDistinctGames')) !== undefined
      ? { minDistinctGames: num(data.get('minDistinctGames')) }
      : {}),
    ...(num(data.get('maxTrustScore')) !== undefined
      ? { maxTrustScore: num(data.get('maxTrustScore')) }
      : {}),
    ...(list(data.get('playerTags')) ? { playerTags: list(data.get('playerTags')) } : {}),
    ...(data.get('noActiveSanction') ? { noActiveSanction: true } : {}),
    ...(data.get('evasionSuspected') ? { evasionSuspected: data.get('evasionSuspected') === 'yes' } : {}),
    ...(num(data.get('minOpenHours')) !== undefined ? { minOpenHours: num(data.get('minOpenHours')) } : {}),
    ...(num(data.get('minConfidence')) !== undefined
      ? { minConfidence: num(data.get('minConfidence')) }
      : {}),
    ...(num(data.get('minDistinctStudios')) !== undefined
      ? { minDistinctStudios: num(data.get('minDistinctStudios')) }
      : {}),
    ...(num(data.get('minReporterCredibility')) !== undefined
      ? { minReporterCredibility: num(data.get('minReporterCredibility')) }
      : {}),
    ...(num(data.get('minActiveStrikes')) !== undefined
      ? { minActiveStrikes: num(data.get('minActiveStrikes')) }
      : {}),
    ...(num(data.get('leftEarlyAtLeast')) !== undefined
      ? {
          leftEarly: {
            atLeast: num(data.get('leftEarlyAtLeast'))!,
            matches: num(data.get('leftEarlyMatches')) ?? 10,
          },
        }
      : {}),
    ...(num(data.get('maxRestrictionMatchesLeft')) !== undefined
      ? { maxRestrictionMatchesLeft: num(data.get('maxRestrictionMatchesLeft')) }
      : {}),
    ...(num(data.get('burstReports')) !== undefined
      ? {
          burst: {
            reports: num(data.get('burstReports'))!,
            withinSeconds: Math.round((num(data.get('burstMinutes')) ?? 10) * 60),
          },
        }
      : {}),
  };
  const actions: RuleInput['actions'] = {
    ...(num(data.get('priority')) !== undefined ? { priority: num(data.get('priority')) } : {}),
    ...(String(data.get('queue') ?? '').trim() ? { queue: String(data.get('queue')).trim() } : {}),
    ...(data.get('escalate') ? { escalate: true as const } : {}),
    ...(data.get('notify') ? { notify: true as const } : {}),
    ...(data.get('waveId') ? { wave: { waveId: String(data.get('waveId')) } } : {}),
    ...(num(data.get('holdHours')) !== undefined
      ? { holdPoints: { hours: num(data.get('holdHours'))! } }
      : {}),
    ...(data.get('releaseHold') ? { releaseHold: true as const } : {}),
    ...(String(data.get('tag') ?? '').trim() ? { tag: String(data.get('tag')).trim() } : {}),
    ...(data.get('templateId') ? { sanction: { templateId: String(data.get('templateId')) } } : {}),
  };
  return {
    name: String(data.get('name')).trim(),
    mode: String(data.get('mode')) as Rule['mode'],
    trigger: String(data.get('trigger') ?? 'filing') as Rule['trigger'],
    conditions,
    actions,
    ...(num(data.get('cooldownHours')) !== undefined
      ? { cooldownSeconds: Math.round(num(data.get('cooldownHours'))! * 3600) }
      : {}),
    ...(num(data.get('capCount')) !== undefined ? { capCount: num(data.get('capCount')) } : {}),
  };
}

/**
 * Rules (docs/moderators.md "Rules"): each rule with its mode, version and insights (matches, actions, agreement
 * with moderators); admins write one, try it on the last days first (the backtest) and save it as a
 * draft, in the background or live. Every name is rendered as text.
 */
export function RulesScreen({ isAdmin }: { isAdmin: boolean }) {
  const rules = useLoad(listActingRules, [], 15_000);
  const templates = useLoad(listTemplates, []);
  const sanctioning = (templates.data?.items ?? []).filter((t) => t.sanctionType);
  const waves = useLoad(() => listWaves(), []);
  const openWaves = (waves.data?.items ?? []).filter(
    (w) => (w.state === 'scheduled' || w.state === 'awaiting_approval') && w.createdBy.kind === 'moderator',
  );
  const { busy, notice, run } = useAction(rules.reload);
  const [editing, setEditing] = useState<Rule | null>(null);
  const [tried, setTried] = useState<Backtest | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const body = ruleOf(new FormData(form));
    const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    if (submitter?.value === 'backtest') {
      const days = num(new FormData(form).get('days')) ?? 30;
      await run(
        async () => {
          const result = await backtestRule(body.conditions, days);
          setTried(result);
          return result;
        },
        (r) => `Backtest over ${r.days} days: ${r.matched} of ${r.cases} cases would have matched.`,
      );
      return;
    }
    await run(
      async () => {
        const saved = await saveActingRule(body, editing?.id);
        setEditing(null);
        form.reset();
        return saved;
      },
      (r) =>
        `Rule ${r.name} saved (version ${r.version}, ${MODE_WORDS[r.mode]})` +
        (r.approval.awaiting
          ? ': it places sanctions, so it waits for another admin on the Approvals screen.'
          : '.'),
    );
  }

  const e = editing;
  return (
    <article aria-labelledby="rules-title">
      <h1 id="rules-title">Rules</h1>
      <p>
        Rules weigh a case each time reports are filed into it. Try one on the last days first, run it in the
        background to see what it would do, then let it act. A live rule acts once a player within its
        cooldown and stops at its cap.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={rules.error} />
      {rules.data && rules.data.items.length === 0 && <p>No rule yet.</p>}
      {rules.data && rules.data.items.length > 0 && (
        <table>
          <caption>Rules and what they did</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Mode</th>
              <th scope="col">When</th>
              <th scope="col">Then</th>
              <th scope="col">Matches (day, week)</th>
              <th scope="col">Agreement (30 days)</th>
              {isAdmin && (
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rules.data.items.map((r) => (
              <tr key={r.id}>
                <td>
                  {r.name} (version {r.version})
                </td>
                <td>
                  {MODE_WORDS[r.mode]}
                  {r.approval.awaiting
                    ? "; waits for a second admin's approval (records only until then)"
                    : ''}
                  {r.stopped ? `; stopped ${when(r.stopped.at)}: ${r.stopped.reason}` : ''}
                </td>
                <td>
                  {TRIGGER_WORDS[r.trigger]}: {conditionWords(r.conditions)}
                </td>
                <td>{actionWords(r.actions)}</td>
                <td>
                  {r.insights.matchesLastDay}, {r.insights.matchesLastWeek} ({r.insights.actedLastWeek} acted)
                </td>
                <td>
                  {r.insights.decidedUpheld} upheld, {r.insights.decidedDismissed} dismissed
                </td>
                {isAdmin && (
                  <td>
                    <button type="button" onClick={() => (setEditing(r), setTried(null))}>
                      Edit {r.name}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {isAdmin && (
        <form onSubmit={submit} aria-labelledby="rule-form-title" key={e?.id ?? 'new'}>
          <h2 id="rule-form-title">{e ? `Edit ${e.name}` : 'Write a rule'}</h2>
          <label>
            Name{' '}
            <input
              name="name"
              required
              maxLength={LIMITS.ruleName}
              defaultValue={e?.name}
              autoComplete="off"
            />
          </label>
          <label>
            Mode
            <select name="mode" defaultValue={e?.mode ?? 'background'}>
              {(Object.keys(MODE_WORDS) as Rule['mode'][]).map((m) => (
                <option key={m} value={m}>
                  {MODE_WORDS[m]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Weighs
            <select name="trigger" defaultValue={e?.trigger ?? 'filing'}>
              {(Object.keys(TRIGGER_WORDS) as Rule['trigger'][]).map((t) => (
                <option key={t} value={t}>
                  {TRIGGER_WORDS[t]}
                </option>
              ))}
            </select>
          </label>
          <fieldset>
            <legend>When (every condition given holds)</legend>
            <fieldset>
              <legend>Kind of case</legend>
              {OFFENSE_TYPES.map((t) => (
                <label key={t}>
                  <input
                    type="checkbox"
                    name="types"
                    value={t}
                    defaultChecked={e?.conditions.types?.includes(t)}
                  />{' '}
                  {t}
                </label>
              ))}
            </fieldset>
            <label>
              Severity at least
              <select name="minSeverity" defaultValue={e?.conditions.minSeverity ?? ''}>
                <option value="">any</option>
                {SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            <fieldset>
              <legend>Reports from</legend>
              {CASE_SOURCES.map((s) => (
                <label key={s}>
                  <input
                    type="checkbox"
                    name="sources"
                    value={s}
                    defaultChecked={e?.conditions.sources?.includes(s)}
                  />{' '}
                  {s}
                </label>
              ))}
            </fieldset>
            <label>
              Reports at least{' '}
              <input name="minReports" type="number" min={1} defaultValue={e?.conditions.minReports} />
            </label>
            <label>
              Distinct reporters at least{' '}
              <input
                name="minDistinctReporters"
                type="number"
                min={1}
                defaultValue={e?.conditions.minDistinctReporters}
              />
            </label>
            <label>
              Distinct games at least{' '}
              <input
                name="minDistinctGames"
                type="number"
                min={1}
                defaultValue={e?.conditions.minDistinctGames}
              />
            </label>
            <label>
              Trust score at most{' '}
              <input
                name="maxTrustScore"
                type="number"
                min={0}
                max={100}
                defaultValue={e?.conditions.maxTrustScore}
              />
            </label>
            <label>
              Player tagged (any of){' '}
              <input name="playerTags" defaultValue={e?.conditions.playerTags?.join(' ')} />
            </label>
            <label>
              <input
                type="checkbox"
                name="noActiveSanction"
                defaultChecked={e?.conditions.noActiveSanction}
              />{' '}
              No sanction in force
            </label>
            <label>
              Ban evasion{' '}
              <select
                name="evasionSuspected"
                defaultValue={
                  e?.conditions.evasionSuspected === undefined
                    ? ''
                    : e.conditions.evasionSuspected
                      ? 'yes'
                      : 'no'
                }
              >
                <option value="">either</option>
                <option value="yes">suspected (an open evasion suspicion)</option>
                <option value="no">not suspected</option>
              </select>
            </label>
            <label>
              Detection confidence at least (0 to 1){' '}
              <input
                name="minConfidence"
                type="number"
                min={0}
                max={1}
                step="any"
                defaultValue={e?.conditions.minConfidence}
              />
            </label>
            <label>
              Distinct studios at least{' '}
              <input
                name="minDistinctStudios"
                type="number"
                min={1}
                defaultValue={e?.conditions.minDistinctStudios}
              />
            </label>
            <label>
              A reporter's credibility at least (0 to 1){' '}
              <input
                name="minReporterCredibility"
                type="number"
                min={0}
                max={1}
                step="any"
                defaultValue={e?.conditions.minReporterCredibility}
              />
            </label>
            <label>
              Strikes in force at least{' '}
              <input
                name="minActiveStrikes"
                type="number"
                min={1}
                defaultValue={e?.conditions.minActiveStrikes}
              />
            </label>
            <label>
              Matches left early at least{' '}
              <input
                name="leftEarlyAtLeast"
                type="number"
                min={1}
                max={100}
                defaultValue={e?.conditions.leftEarly?.atLeast}
              />
            </label>
            <label>
              … of the player's last (matches){' '}
              <input
                name="leftEarlyMatches"
                type="number"
                min={1}
                max={100}
                defaultValue={e?.conditions.leftEarly?.matches ?? 10}
              />
            </label>
            <label>
              A restriction counted in matches with at most this many left{' '}
              <input
                name="maxRestrictionMatchesLeft"
                type="number"
                min={0}
                max={1000}
                defaultValue={e?.conditions.maxRestrictionMatchesLeft}
              />
            </label>
            <label>
              Case open at least (hours){' '}
              <input name="minOpenHours" type="number" min={1} defaultValue={e?.conditions.minOpenHours} />
            </label>
            <label>
              A burst: reports at least{' '}
              <input
                name="burstReports"
                type="number"
                min={2}
                max={200}
                defaultValue={e?.conditions.burst?.reports}
              />
            </label>
            <label>
              within minutes (up to the latest report){' '}
              <input
                name="burstMinutes"
                type="number"
                min={1}
                step="any"
                defaultValue={e?.conditions.burst ? e.conditions.burst.withinSeconds / 60 : 10}
              />
            </label>
          </fieldset>
          <fieldset>
            <legend>Then</legend>
            <label>
              Priority at least{' '}
              <input name="priority" type="number" min={0} max={1000} defaultValue={e?.actions.priority} />
            </label>
            <label>
              Move to queue (key) <input name="queue" defaultValue={e?.actions.queue} />
            </label>
            <label>
              <input type="checkbox" name="escalate" defaultChecked={e?.actions.escalate} /> Escalate to the
              senior role
            </label>
            <label>
              Tag the player <input name="tag" defaultValue={e?.actions.tag} />
            </label>
            <label>
              <input type="checkbox" name="notify" defaultChecked={e?.actions.notify} /> Tell the studios that
              reported (rule.matched)
            </label>
            <label>
              Place a sanction (a decision template){' '}
              <select name="templateId" defaultValue={e?.actions.sanction?.templateId ?? ''}>
                <option value="">none</option>
                {sanctioning.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.title}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Hold the player's points (hours){' '}
              <input
                name="holdHours"
                type="number"
                min={1}
                max={720}
                defaultValue={e?.actions.holdPoints?.hours}
              />
            </label>
            <label>
              <input type="checkbox" name="releaseHold" defaultChecked={e?.actions.releaseHold} /> End a hold
              on the player's points
            </label>
            <label>
              Add the player to a wave{' '}
              <select name="waveId" defaultValue={e?.actions.wave?.waveId ?? ''}>
                <option value="">none</option>
                {openWaves.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </label>
            <p>
              A live rule that places sanctions or adds to a wave acts only once another admin approves it.
            </p>
          </fieldset>
          <label>
            Cooldown a player (hours){' '}
            <input
              name="cooldownHours"
              type="number"
              min={0}
              step="any"
              defaultValue={e ? e.cooldownSeconds / 3600 : 24}
            />
          </label>
          <label>
            Stop after acting this many times in an hour{' '}
            <input name="capCount" type="number" min={1} defaultValue={e?.capCount ?? 100} />
          </label>
          <label>
            Try it on the last days <input name="days" type="number" min={1} max={90} defaultValue={30} />
          </label>
          <button type="submit" value="backtest" disabled={busy}>
            Try it (backtest)
          </button>{' '}
          <button type="submit" value="save" disabled={busy}>
            {e ? 'Save the next version' : 'Save the rule'}
          </button>
          {e && (
            <button type="button" onClick={() => setEditing(null)}>
              Write a new one instead
            </button>
          )}
        </form>
      )}
      {tried && (
        <section aria-labelledby="backtest-title">
          <h2 id="backtest-title">Backtest: the last {tried.days} days</h2>
          <p>
            Of {tried.cases} cases it would have matched {tried.matched} ({tried.players} players): moderators
            upheld {tried.agree} and dismissed {tried.wouldHaveActedWhereDismissed} of them; {tried.pending}{' '}
            are still open. It would have missed {tried.missed} upheld cases.
            {tried.agreement !== null ? ` Agreement: ${Math.round(tried.agreement * 100)}%.` : ''}
          </p>
          {tried.sample.length > 0 && (
            <table>
              <caption>The newest cases it would have matched</caption>
              <thead>
                <tr>
                  <th scope="col">Player</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Moderators decided</th>
                  <th scope="col">Verdict</th>
                </tr>
              </thead>
              <tbody>
                {tried.sample.map((m) => (
                  <tr key={m.caseId}>
                    <td>{m.playerId}</td>
                    <td>{m.kind}</td>
                    <td>{m.decided ?? 'still open'}</td>
                    <td>{m.verdict.replaceAll('_', ' ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </article>
  );
}
