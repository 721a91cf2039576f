import { useRef, useState, type KeyboardEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  claimCase,
  getCase,
  getPlayer,
  listCases,
  assignCase,
  escalateCase,
  listQueues,
  listTemplates,
  releaseCase,
  resolveCase,
  setReporterMuted,
  type DecisionTemplate,
  type Resolution,
  type Session,
} from '../api';
import { OffenseCard, asText } from '../components/Evidence';
import { PlayerHeader } from '../components/PlayerHeader';
import { LinkedAccounts } from '../components/LinkedAccounts';
import { categoryWords, SANCTION_WORDS, when } from '../format';
import { useAction, useLoad, useShortcuts } from '../hooks';
import { NoticeLine } from '../components/NoticeLine';
import { ErrorLine } from '../components/ErrorLine';
import { Notes } from '../components/Notes';
import { Tags } from '../components/Tags';
import { LIMITS, NEEDS_PERIOD, NOTICE_CATEGORIES, SANCTION_TYPES } from '../generated/contract';

/** The sanction choices: none, then every type the API takes (the generated contract), in words. */

export const SANCTION_CHOICES: readonly (readonly [string, string])[] = [
  ['', 'no sanction'],
  ...SANCTION_TYPES.map((t) => [t, SANCTION_WORDS[t].toLowerCase()] as const),
];
/** Whether a sanction needs a period (a warning may have one, a permanent ban may not). */
export const needsPeriod = (type: string) => (NEEDS_PERIOD as readonly string[]).includes(type);

/** One case: the player, every offense with its evidence, the reporters, and the decision. */
export function CaseScreen({ session }: { session: Session }) {
  const { caseId = '' } = useParams();
  const navigate = useNavigate();
  const kase = useLoad(() => getCase(caseId), [caseId], 3000);
  const player = useLoad(
    () => (kase.data ? getPlayer(kase.data.player.serviceId) : Promise.resolve(undefined)),
    [kase.data?.player.serviceId, kase.data?.status],
  );
  const [outcome, setOutcome] = useState<'upheld' | 'dismissed' | ''>('');
  const [note, setNote] = useState('');
  const [sanctionType, setSanctionType] = useState('');
  const [days, setDays] = useState('7');
  // What the player reads (the statement of reasons), kept apart from the note moderators read.
  const [sanctionReason, setSanctionReason] = useState('');
  const [scope, setScope] = useState('global');
  // The EU database category of the sanction's statement: '' is the notice's (when the case has one)
  // or the kind's; a moderator may choose another (issue 49: the uphold panel could not).
  const [category, setCategory] = useState('');
  // The reporter being muted or unmuted, and the note for the audit log.
  const [muting, setMuting] = useState<{ studioId: string; reporterId: string; mute: boolean } | null>(null);
  const [muteNote, setMuteNote] = useState('');
  const [escalating, setEscalating] = useState(false);
  const [escalationNote, setEscalationNote] = useState('');
  // Where to: '' is the senior role (admins); otherwise a queue's key.
  const [escalateTo, setEscalateTo] = useState('');
  const queues = useLoad(listQueues, []);
  const [assignee, setAssignee] = useState('');
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const templates = useLoad(listTemplates, []);
  const [template, setTemplate] = useState<string | null>(null);
  /** A canned decision: its outcome, sanction and the reason the player reads; the note stays yours. */
  const apply = (t: DecisionTemplate) => {
    setTemplate(t.title);
    setOutcome(t.outcome);
    setSanctionType(t.outcome === 'upheld' ? (t.sanctionType ?? '') : '');
    if (t.durationSeconds) setDays(String(Math.round((t.durationSeconds / 86_400) * 100) / 100));
    setSanctionReason(t.playerReason);
    setScope('global');
    noteRef.current?.focus();
  };
  const c = kase.data;
  // The category the case's notice named (a notifier's or a trusted flagger's choice), if any.
  const noticeCategory = (c?.offenses ?? [])
    .map((o) => (o as { details?: { dsaCategory?: unknown } }).details?.dsaCategory)
    .find((x): x is string => typeof x === 'string');
  const otherQueues = (queues.data?.items ?? []).filter((q) => q.key !== c?.queue.key);
  // An escalated case cannot go to the senior role again: the first other queue is the choice then.
  const destination = escalateTo || (c?.escalation ? (otherQueues[0]?.key ?? '') : '');
  const mine = c?.claim?.moderatorId === session.moderator.id;
  // An escalated case is the admins' to take: a moderator is offered no claim (the API answers 409).
  const mayClaim = !mine && (!c?.escalation || session.moderator.role === 'admin');
  const open = c?.status === 'open';

  const { busy, setBusy, notice, setNotice: setMessage, fail, run: act } = useAction(kase.reload);
  const choose = (o: 'upheld' | 'dismissed') => {
    setOutcome(o);
    noteRef.current?.focus();
  };

  async function submit(next: boolean) {
    if (!c || !open) return;
    if (!outcome) return setMessage({ kind: 'error', text: 'Choose uphold (u) or dismiss (d) first.' });
    if (!note.trim()) {
      noteRef.current?.focus();
      return setMessage({ kind: 'error', text: 'Write a note: it goes into the audit log.' });
    }
    const body: Resolution = { outcome, note: note.trim() };
    if (outcome === 'upheld' && sanctionType) {
      if (!sanctionReason.trim())
        return setMessage({ kind: 'error', text: 'Write the reason the player will read for the sanction.' });
      body.sanction = {
        type: sanctionType as NonNullable<Resolution['sanction']>['type'],
        reason: sanctionReason.trim(),
        scope,
        ...(needsPeriod(sanctionType) ? { durationSeconds: Math.round(Number(days) * 86400) } : {}),
        ...(category && sanctionType !== 'warning'
          ? { dsaCategory: category as NonNullable<NonNullable<Resolution['sanction']>['dsaCategory']> }
          : {}),
      };
    }
    setBusy(true);
    try {
      if (!mine) await claimCase(c.id);
      await resolveCase(c.id, body);
      setOutcome('');
      setNote('');
      setSanctionType('');
      setSanctionReason('');
      setScope('global');
      setCategory('');
      setTemplate(null);
      if (next) {
        const page = await listCases({ status: 'open', claimed: 'unclaimed', limit: 5 });
        const following = page.items.find((x) => x.id !== c.id);
        if (following) navigate(`/cases/${following.id}`);
        else navigate('/', { state: { message: 'The queue is empty.' } });
      } else {
        setMessage({ kind: 'ok', text: `Case ${outcome}.` });
        await kase.reload();
      }
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  const keyed = Object.fromEntries(
    (templates.data?.items ?? []).slice(0, 9).map((t, i) => [String(i + 1), () => open && apply(t)]),
  );
  useShortcuts({
    ...keyed,
    c: () => c && open && mayClaim && void act(() => claimCase(c.id), 'Claimed.'),
    u: () => open && choose('upheld'),
    d: () => open && choose('dismissed'),
    n: () => void submit(true),
  });
  const onNoteKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void submit(true);
    }
  };

  if (kase.error)
    return (
      <>
        {/* What was just done stays said: a case moved to a queue only admins see is gone from view. */}
        <NoticeLine notice={notice} />
        <ErrorLine error={kase.error} notFound="No such case." />
        <p>
          <Link to="/">← Queue</Link>
        </p>
      </>
    );
  if (!c) return <p role="status">Loading the case…</p>;
  return (
    <article aria-labelledby="case-title">
      <p>
        <Link to="/">← Queue</Link>
      </p>
      <h1 id="case-title">
        {c.type} case, {c.status}
      </h1>
      {c.urgent && (
        <p className="urgent-note" role="note">
          <strong>Urgent:</strong> it holds a notice that says a life or safety is at risk, or that a child is
          involved. Decide it first. A threat to life or safety is the studio&apos;s to report to the
          authorities (DSA Art. 18): its webhooks subscribed to notice.urgent were sent the notice when it
          came.
        </p>
      )}
      {player.data && <PlayerHeader view={player.data} />}
      <dl className="figures">
        <div>
          <dt>Priority</dt>
          <dd>{c.priorityScore} of 100</dd>
        </div>
        <div>
          <dt>Reports</dt>
          <dd>{c.reportsCount}</dd>
        </div>
        <div>
          <dt>Highest severity</dt>
          <dd>{c.highestSeverity}</dd>
        </div>
        <div>
          <dt>Points applied / held</dt>
          <dd>
            {c.totalPenalty} / {c.heldPoints}
          </dd>
        </div>
        <div>
          <dt>Due</dt>
          <dd>
            {when(c.dueAt)}
            {c.overdue ? ' (overdue)' : ''}
          </dd>
        </div>
        <div>
          <dt>Queue</dt>
          <dd data-testid="queue">
            {c.queue.name}
            {c.queue.visibleTo === 'admin' ? ' (admins only)' : ''}
            {c.queue.pinned ? ', moved here by hand' : ''}
          </dd>
        </div>
        <div>
          <dt>Assigned to</dt>
          <dd data-testid="assigned">{c.assignedTo ? c.assignedTo.username : 'nobody'}</dd>
        </div>
        {c.escalation && (
          <div>
            <dt>Escalated</dt>
            <dd className="report-text">
              {when(c.escalation.at)}: {c.escalation.note}
            </dd>
          </div>
        )}
        <div>
          <dt>Claim</dt>
          <dd data-testid="claim">
            {c.claim ? `${mine ? 'you' : c.claim.username} until ${when(c.claim.expiresAt)}` : 'unclaimed'}
          </dd>
        </div>
      </dl>
      {c.status === 'open' && (
        <section aria-labelledby="why-first-title">
          <h2 id="why-first-title">Why it stands here in the queue</h2>
          {c.priorityWhy.length === 0 ? (
            <p>Nothing raises it: a low-severity case with no other signal.</p>
          ) : (
            <ul>
              {c.priorityWhy.map((i) => (
                <li key={i.input}>
                  +{i.points}: {i.why}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <NoticeLine notice={notice} />
      {open ? (
        <section className="decide" aria-labelledby="decide-title">
          <h2 id="decide-title">Decision</h2>
          <div className="row">
            {mayClaim && (
              <button
                type="button"
                disabled={busy}
                onClick={() => void act(() => claimCase(c.id), 'Claimed.')}
              >
                Claim (c)
              </button>
            )}
            {!mine && !mayClaim && <p>Escalated to the admins: only an admin can claim it now.</p>}
            {c.claim && (mine || session.moderator.role === 'admin') && (
              <button
                type="button"
                disabled={busy}
                onClick={() => void act(() => releaseCase(c.id), 'Released.')}
              >
                Release
              </button>
            )}
          </div>
          <div className="row" role="group" aria-label="Team">
            {(!c.escalation || session.moderator.role === 'admin') && (
              <button type="button" aria-expanded={escalating} onClick={() => setEscalating((x) => !x)}>
                Escalate or move
              </button>
            )}
            {session.moderator.role === 'admin' && (
              <form
                className="row"
                aria-label="Assign the case"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(
                    () => assignCase(c.id, assignee.trim() || null),
                    assignee.trim() ? `Assigned to ${assignee.trim()}.` : 'Assignment taken back.',
                  );
                  setAssignee('');
                }}
              >
                <label>
                  Assign to (username; empty takes it back)
                  <input
                    value={assignee}
                    maxLength={LIMITS.username}
                    onChange={(e) => setAssignee(e.target.value)}
                  />
                </label>
                <button type="submit" disabled={busy}>
                  Assign
                </button>
              </form>
            )}
          </div>
          {escalating && (
            <form
              className="row"
              aria-label="Escalate the case"
              onSubmit={(e) => {
                e.preventDefault();
                if (!escalationNote.trim()) return;
                const target = queues.data?.items.find((q) => q.key === destination);
                void act(
                  async () => {
                    await escalateCase(c.id, escalationNote.trim(), destination || undefined);
                    setEscalating(false);
                    setEscalationNote('');
                    setEscalateTo('');
                  },
                  target ? `Moved to the ${target.name} queue.` : 'Escalated to the admins.',
                );
              }}
            >
              <label>
                To
                <select value={destination} onChange={(e) => setEscalateTo(e.target.value)}>
                  {!c.escalation && <option value="">the senior role (admins)</option>}
                  {otherQueues.map((q) => (
                    <option key={q.key} value={q.key}>
                      the {q.name} queue{q.visibleTo === 'admin' ? ' (admins only)' : ''}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Why? (audited)
                <input
                  autoFocus
                  required
                  maxLength={LIMITS.escalationNote}
                  value={escalationNote}
                  onChange={(e) => setEscalationNote(e.target.value)}
                />
              </label>
              <button type="submit" disabled={busy || !escalationNote.trim()}>
                Escalate now
              </button>
            </form>
          )}
          {(templates.data?.items.length ?? 0) > 0 && (
            <div className="row" role="group" aria-label="Templates">
              {templates.data!.items.slice(0, 9).map((t, i) => (
                <button key={t.id} type="button" aria-pressed={template === t.title} onClick={() => apply(t)}>
                  {i + 1}: {t.title}
                </button>
              ))}
            </div>
          )}
          <fieldset>
            <legend>Outcome</legend>
            <label>
              <input
                type="radio"
                name="outcome"
                value="upheld"
                checked={outcome === 'upheld'}
                onChange={() => setOutcome('upheld')}
              />
              Uphold (u)
            </label>
            <label>
              <input
                type="radio"
                name="outcome"
                value="dismissed"
                checked={outcome === 'dismissed'}
                onChange={() => setOutcome('dismissed')}
              />
              Dismiss (d): give the points back
            </label>
          </fieldset>
          <label htmlFor="note">Note (required; Ctrl+Enter submits and opens the next case)</label>
          <textarea
            id="note"
            ref={noteRef}
            rows={3}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            onKeyDown={onNoteKey}
          />
          {outcome === 'upheld' && (
            <div className="row">
              <label>
                Sanction
                <select value={sanctionType} onChange={(e) => setSanctionType(e.target.value)}>
                  {SANCTION_CHOICES.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
              {needsPeriod(sanctionType) && (
                <label>
                  Days
                  <input
                    type="number"
                    min="1"
                    max="3650"
                    value={days}
                    onChange={(e) => setDays(e.target.value)}
                  />
                </label>
              )}
              {sanctionType && (
                <>
                  <label>
                    Applies to
                    <select value={scope} onChange={(e) => setScope(e.target.value)}>
                      <option value="global">every game (global)</option>
                      {Object.entries(c.studioNames).map(([id, name]) => (
                        <option key={id} value={id}>
                          the games of {name}
                        </option>
                      ))}
                    </select>
                  </label>
                  {sanctionType !== 'warning' && (
                    <label>
                      Category of its EU database statement
                      <select value={category} onChange={(e) => setCategory(e.target.value)}>
                        <option value="">
                          {noticeCategory
                            ? `the notice's: ${categoryWords(noticeCategory)}`
                            : `the kind's (${c.type})`}
                        </option>
                        {NOTICE_CATEGORIES.map(([value, words]) => (
                          <option key={value} value={value}>
                            {words}
                          </option>
                        ))}
                      </select>
                    </label>
                  )}
                  <label>
                    Reason the player reads (required)
                    {/* Several lines, all of them visible: a reason runs long, and Enter is a new line;
                        Ctrl+Enter submits and opens the next case, as in the note. */}
                    <textarea
                      rows={3}
                      value={sanctionReason}
                      maxLength={LIMITS.sanctionReason}
                      onChange={(e) => setSanctionReason(e.target.value)}
                      onKeyDown={onNoteKey}
                    />
                  </label>
                </>
              )}
            </div>
          )}
          <div className="row">
            <button type="button" disabled={busy} onClick={() => void submit(false)}>
              Submit
            </button>
            <button type="button" className="primary" disabled={busy} onClick={() => void submit(true)}>
              Submit and next (n)
            </button>
          </div>
        </section>
      ) : (
        <section aria-label="Resolution">
          <h2>Resolution</h2>
          <p>
            {c.resolution?.outcome} by {c.resolution?.username ?? '—'} on {when(c.resolution?.resolvedAt)}
            {c.resolution ? `, ${c.resolution.pointsRestored} points restored` : ''}
          </p>
          {c.resolution?.note && <p className="report-text">{c.resolution.note}</p>}
        </section>
      )}
      <Tags
        path={`/v1/admin/cases/${encodeURIComponent(c.id)}/tags`}
        tags={c.tags}
        label="Tags of this case"
        onChange={kase.reload}
      />
      <Notes path={`/v1/admin/cases/${encodeURIComponent(c.id)}/notes`} label="Notes on this case" />
      <section aria-labelledby="offenses-title">
        <h2 id="offenses-title">Offenses ({c.offenses.length})</h2>
        {c.offenses.map((o) => (
          <OffenseCard key={o._id} offense={o} studioName={o.studio ? c.studioNames[o.studio] : undefined} />
        ))}
      </section>
      {/* The player's linked accounts, as on the player screen (docs/linked-accounts.md). */}
      <LinkedAccounts
        serviceId={c.player.serviceId}
        sanctions={player.data?.sanctions ?? []}
        onChange={player.reload}
      />
      <section aria-labelledby="reporters-title">
        <h2 id="reporters-title">Reporters</h2>
        {c.reporters.length === 0 ? (
          <p>No named reporters (system reports).</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Reporter</th>
                <th scope="col">Studio</th>
                <th scope="col">Credibility</th>
                <th scope="col">Upheld / dismissed</th>
                <th scope="col">Muted</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {c.reporters.map((r) => (
                <tr key={`${r.studioId}:${r.reporterId}`}>
                  <td className="report-text">{asText(r.reporterId)}</td>
                  <td>{c.studioNames[r.studioId] ?? r.studioId}</td>
                  <td>{Math.round(r.credibility * 100)}%</td>
                  <td>
                    {r.upheld} / {r.dismissed}
                  </td>
                  <td>{r.muted ? 'yes' : 'no'}</td>
                  <td>
                    <button
                      type="button"
                      aria-expanded={muting?.reporterId === r.reporterId && muting.studioId === r.studioId}
                      onClick={() => {
                        setMuting({ studioId: r.studioId, reporterId: r.reporterId, mute: !r.muted });
                        setMuteNote('');
                      }}
                    >
                      {r.muted ? 'Unmute' : 'Mute'} <span className="sr-only">{asText(r.reporterId)}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {muting && (
          <form
            className="row"
            aria-label={muting.mute ? 'Mute the reporter' : 'Unmute the reporter'}
            onSubmit={(e) => {
              e.preventDefault();
              if (!muteNote.trim()) return;
              void act(
                async () => {
                  await setReporterMuted(muting.studioId, muting.reporterId, muting.mute, muteNote.trim());
                  setMuting(null);
                },
                muting.mute ? 'Reporter muted.' : 'Reporter unmuted.',
              );
            }}
          >
            <label>
              {muting.mute
                ? 'Why mute this reporter? Their reports will take no points and open no case (audited)'
                : 'Why unmute this reporter? (audited)'}
              <input
                autoFocus
                required
                maxLength={LIMITS.muteNote}
                value={muteNote}
                onChange={(e) => setMuteNote(e.target.value)}
              />
            </label>
            <button type="submit" disabled={busy || !muteNote.trim()}>
              Confirm
            </button>
            <button type="button" onClick={() => setMuting(null)}>
              Cancel
            </button>
          </form>
        )}
      </section>
      <section aria-labelledby="audit-title">
        <h2 id="audit-title">History</h2>
        <ul>
          {c.audit.map((a) => (
            <li key={a.id}>
              {when(a.createdAt)}: {a.action}
              {a.outcome ? ` (${a.outcome})` : ''} by {a.moderator?.username ?? 'a studio'}
              {a.note ? <span className="report-text"> — {a.note}</span> : null}
            </li>
          ))}
        </ul>
      </section>
    </article>
  );
}
