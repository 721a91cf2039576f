import { useState, type FormEvent } from 'react';
import {
  approveActingRule,
  decideWave,
  listActingRules,
  listWaves,
  makeWave,
  type Session,
  type Wave,
  type WaveInput,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { NoticeLine } from '../components/NoticeLine';
import { SANCTION_WORDS, when } from '../format';
import { LIMITS, NEEDS_PERIOD, SANCTION_TYPES } from '../generated/contract';
import { useAction, useLoad } from '../hooks';

/** Where a wave stands, in words. */
export const WAVE_STATE_WORDS: Record<Wave['state'], string> = {
  awaiting_approval: 'awaiting a second moderator',
  scheduled: 'scheduled',
  running: 'running',
  done: 'done',
  cancelled: 'cancelled',
  rolling_back: 'rolling back',
  rolled_back: 'rolled back',
};

/** Progress in words: what was placed (and revoked, skipped) of the wave's players. */
export const progressWords = (w: Wave) =>
  [
    `${w.placed} of ${w.size} placed`,
    w.skipped ? `${w.skipped} skipped` : '',
    w.revoked ? `${w.revoked} revoked` : '',
  ]
    .filter(Boolean)
    .join(', ');

/** Service ids or case ids pasted one a line, or separated by commas or spaces. */
const idsOf = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/**
 * Ban waves (docs/moderators.md "Waves"): make one from players or review cases pasted in, scheduled for a time;
 * follow its progress; cancel one before it runs, roll back one that ran, each with a reason asked on
 * the page. A large or permanent wave waits for a second moderator (the Approvals screen). Every name
 * and reason is rendered as text.
 */
export function WavesScreen({ session }: { session: Session }) {
  const waves = useLoad(() => listWaves(), [], 5_000);
  const { busy, notice, run } = useAction(waves.reload);
  const [type, setType] = useState<Wave['sanction']['type']>('temporary_ban');
  const [asking, setAsking] = useState<{ wave: Wave; what: 'cancel' | 'rollback' } | null>(null);
  const [reason, setReason] = useState('');
  const needsPeriod = (NEEDS_PERIOD as readonly string[]).includes(type);

  async function make(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const ids = idsOf(String(data.get('ids')));
    const hours = Number(data.get('hours'));
    const runAt = String(data.get('runAt'));
    const body: WaveInput = {
      name: String(data.get('name')).trim(),
      sanction: {
        type,
        reason: String(data.get('reason')).trim(),
        ...(needsPeriod || (type === 'warning' && hours)
          ? { durationSeconds: Math.round(hours * 3600) }
          : {}),
      },
      ...(runAt ? { runAt: new Date(runAt).toISOString() } : {}),
      ...(data.get('of') === 'cases' ? { cases: ids } : { players: ids }),
    };
    await run(
      async () => {
        const made = await makeWave(body);
        form.reset();
        return made;
      },
      (made) =>
        `Wave ${made.name} made for ${made.size} players: ${WAVE_STATE_WORDS[made.state]}` +
        (made.unmatched.length ? `. Not matched (left out): ${made.unmatched.join(', ')}` : '.'),
    );
  }

  async function decide(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!asking || !reason.trim()) return;
    const { wave, what } = asking;
    await run(
      async () => {
        await decideWave(wave.id, what, reason.trim());
        setAsking(null);
        setReason('');
      },
      what === 'cancel'
        ? `Wave ${wave.name} cancelled: nothing is placed.`
        : `Wave ${wave.name} is being rolled back: each of its sanctions is revoked.`,
    );
  }

  return (
    <article aria-labelledby="waves-title">
      <h1 id="waves-title">Waves</h1>
      <p>
        One decision about many players at one time: each player gets the sanction once, with its own
        statement of reasons. A wave of more players than the limit, or one that bans for good, waits for
        another moderator (an admin) on the Approvals screen.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={waves.error} />
      {waves.data && waves.data.items.length === 0 && <p>No wave yet.</p>}
      {waves.data && waves.data.items.length > 0 && (
        <table>
          <caption>Waves, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Wave</th>
              <th scope="col">Sanction</th>
              <th scope="col">Runs</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col">Made by</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {waves.data.items.map((w) => (
              <tr key={w.id}>
                <td>{w.name}</td>
                <td>
                  {SANCTION_WORDS[w.sanction.type]}: {w.sanction.reason}
                </td>
                <td>{when(w.runAt)}</td>
                <td>
                  {WAVE_STATE_WORDS[w.state]}
                  {w.approval?.by ? ` (approved by ${w.approval.by.name ?? 'an admin'})` : ''}
                  {w.cancelled ? `: ${w.cancelled.reason ?? ''}` : ''}
                  {w.rollBack ? `: ${w.rollBack.reason ?? ''}` : ''}
                </td>
                <td>{progressWords(w)}</td>
                <td>{w.createdBy.name ?? w.createdBy.kind}</td>
                <td>
                  {(w.state === 'awaiting_approval' || w.state === 'scheduled') && (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => setAsking({ wave: w, what: 'cancel' })}
                    >
                      Cancel {w.name}
                    </button>
                  )}
                  {w.state === 'done' && (
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => setAsking({ wave: w, what: 'rollback' })}
                    >
                      Roll back {w.name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {asking && (
        <form onSubmit={decide} aria-labelledby="decide-title">
          <h2 id="decide-title">
            {asking.what === 'cancel' ? 'Cancel' : 'Roll back'} {asking.wave.name}
          </h2>
          <label>
            Why (kept and audited
            {asking.what === 'rollback' ? '; each player reads it as the revocation’s reason' : ''})
            <textarea
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              required
              maxLength={asking.what === 'cancel' ? LIMITS.waveCancelReason : LIMITS.waveRollbackReason}
            />
          </label>
          <button type="submit" disabled={busy || !reason.trim()}>
            {asking.what === 'cancel' ? 'Cancel the wave' : 'Roll back the wave'}
          </button>{' '}
          <button type="button" onClick={() => (setAsking(null), setReason(''))}>
            Keep it
          </button>
        </form>
      )}
      <form onSubmit={make} aria-labelledby="make-title">
        <h2 id="make-title">Make a wave</h2>
        <label>
          Name <input name="name" required maxLength={LIMITS.waveName} autoComplete="off" />
        </label>
        <label>
          Sanction
          <select value={type} onChange={(e) => setType(e.target.value as Wave['sanction']['type'])}>
            {SANCTION_TYPES.map((t) => (
              <option key={t} value={t}>
                {SANCTION_WORDS[t]}
              </option>
            ))}
          </select>
        </label>
        {type !== 'permanent_ban' && (
          <label>
            For how many hours {needsPeriod ? '' : '(optional)'}
            <input name="hours" type="number" min={1} step={1} required={needsPeriod} />
          </label>
        )}
        <label>
          Reason (each player reads it)
          <textarea name="reason" required maxLength={LIMITS.waveReason} />
        </label>
        <label>
          Runs at (your time; empty: now)
          <input name="runAt" type="datetime-local" />
        </label>
        <fieldset>
          <legend>The players, by</legend>
          <label>
            <input type="radio" name="of" value="players" defaultChecked /> player id
          </label>
          <label>
            <input type="radio" name="of" value="cases" /> review case id (each case&apos;s player)
          </label>
        </fieldset>
        <label>
          Ids, one a line
          <textarea name="ids" required rows={6} />
        </label>
        <button type="submit" disabled={busy}>
          Make the wave
        </button>
        <p>Signed in as {session.moderator.displayName}: a wave you make is audited as yours.</p>
      </form>
    </article>
  );
}

/** An approval's cell: its author reads that another admin approves it (the service refuses them too). */
function ApproveCell(p: { yours: boolean; busy: boolean; label: string; onApprove: () => void }) {
  return (
    <td>
      {p.yours ? (
        'yours: another admin approves it'
      ) : (
        <button type="button" disabled={p.busy} onClick={p.onApprove}>
          {p.label}
        </button>
      )}
    </td>
  );
}

/**
 * Approvals (admins; docs/moderators.md "Waves" and "Rules": four eyes): the waves and the live rules that place
 * sanctions that wait for a second moderator, each approved by an admin who did not make or save it
 * (the service refuses them too).
 */
export function ApprovalsScreen({ session }: { session: Session }) {
  const waiting = useLoad(() => listWaves('awaiting_approval'), [], 10_000);
  const rules = useLoad(listActingRules, [], 10_000);
  const waitingRules = (rules.data?.items ?? []).filter((r) => r.approval.awaiting);
  const { busy, notice, run } = useAction(() => Promise.all([waiting.reload(), rules.reload()]));
  return (
    <article aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <p>
        Waves that name many players or ban for good, and live rules that place sanctions, wait here for a
        second moderator. Read what each does before you approve it; you cannot approve your own.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={waiting.error} />
      <ErrorLine error={rules.error} />
      {waiting.data && waiting.data.items.length === 0 && <p>No wave waits for approval.</p>}
      {waiting.data && waiting.data.items.length > 0 && (
        <table>
          <caption>Waiting for a second moderator</caption>
          <thead>
            <tr>
              <th scope="col">Wave</th>
              <th scope="col">Sanction</th>
              <th scope="col">Players</th>
              <th scope="col">Runs</th>
              <th scope="col">Made by</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {waiting.data.items.map((w) => (
              <tr key={w.id}>
                <td>{w.name}</td>
                <td>
                  {SANCTION_WORDS[w.sanction.type]}: {w.sanction.reason}
                </td>
                <td>{w.size}</td>
                <td>{when(w.runAt)}</td>
                <td>{w.createdBy.name ?? w.createdBy.kind}</td>
                <ApproveCell
                  yours={w.createdBy.id === session.moderator.id}
                  busy={busy}
                  label={`Approve ${w.name}`}
                  onApprove={() =>
                    void run(
                      () => decideWave(w.id, 'approve'),
                      `Wave ${w.name} approved: it runs at its time.`,
                    )
                  }
                />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rules.data && waitingRules.length === 0 && <p>No rule waits for approval.</p>}
      {waitingRules.length > 0 && (
        <table>
          <caption>Live rules that place sanctions, waiting for a second admin</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Places</th>
              <th scope="col">Saved</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {waitingRules.map((r) => (
              <tr key={r.id}>
                <td>
                  {r.name} (version {r.version})
                </td>
                <td>
                  {r.actions.sanction
                    ? `${r.actions.sanction.type ? SANCTION_WORDS[r.actions.sanction.type] : 'a sanction'}: ${r.actions.sanction.reason ?? ''}`
                    : ''}
                  {r.actions.sanction && r.actions.wave ? '; ' : ''}
                  {r.actions.wave ? 'adds players to a wave' : ''}
                </td>
                <td>{when(r.updatedAt)}</td>
                <ApproveCell
                  yours={r.savedBy === session.moderator.id}
                  busy={busy}
                  label={`Approve rule ${r.name}`}
                  onApprove={() =>
                    void run(() => approveActingRule(r.id), `Rule ${r.name} approved: it acts live from now.`)
                  }
                />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
