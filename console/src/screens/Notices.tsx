import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  liftMeasure,
  listMeasures,
  listNotices,
  markUnfounded,
  type MisuseMeasure,
  type NoticePage,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { LIMITS } from '../generated/contract';
import { NoticeLine } from '../components/NoticeLine';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';

type NoticeItem = NoticePage['items'][number];

const STATUS_WORDS: Record<NoticeItem['status'], string> = {
  received: 'received',
  in_review: 'in review',
  action_taken: 'action taken',
  no_action: 'no action',
};

/** Who a measure or notice counts against, in words: never an e-mail or address (only their HMAC is kept). */
function senderWords(s: MisuseMeasure['sender']): string {
  if (s.kind === 'reporter') return `in-game reporter ${s.reporterId ?? ''}`;
  if (s.kind === 'trusted_flagger') return `trusted flagger ${s.name ?? ''}`;
  return `notifier ${(s.key ?? '').slice(0, 12)}…`;
}

/**
 * Notices (DSA Art. 16, 20, 23; docs/moderators.md "Notices"): the latest notices with where each stands and its
 * complaint; a dismissed one may be marked manifestly unfounded (a note asked on the page), a mark
 * against its sender. Below, the warnings and suspensions those marks led to; an admin lifts a
 * suspension with a note. Every text is rendered as text.
 */
export function NoticesScreen({ isAdmin }: { isAdmin: boolean }) {
  const [cursor, setCursor] = useState<string | undefined>();
  const notices = useLoad(() => listNotices(cursor), [cursor]);
  const [inForce, setInForce] = useState(false);
  const measures = useLoad(() => listMeasures(inForce), [inForce]);
  const { busy, notice, run } = useAction(async () => {
    await Promise.all([notices.reload(), measures.reload()]);
  });
  const [marking, setMarking] = useState<NoticeItem | null>(null);
  const [lifting, setLifting] = useState<MisuseMeasure | null>(null);
  const [note, setNote] = useState('');

  async function mark(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!marking || !note.trim()) return;
    const n = marking;
    await run(
      async () => {
        const r = await markUnfounded(n.offenseId, note.trim());
        setMarking(null);
        setNote('');
        return r;
      },
      (r) =>
        r.measure
          ? `Marked manifestly unfounded. Its sender is now ${
              r.measure.kind === 'warning'
                ? 'warned'
                : `suspended until ${when(r.measure.endsAt ?? undefined)}`
            } (${r.marks} marks).`
          : `Marked manifestly unfounded (${r.marks} marks against its sender).`,
    );
  }
  async function lift(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!lifting || !note.trim()) return;
    const m = lifting;
    await run(
      async () => {
        await liftMeasure(m.id, note.trim());
        setLifting(null);
        setNote('');
      },
      `Suspension of ${senderWords(m.sender)} lifted.`,
    );
  }

  return (
    <article aria-labelledby="notices-title">
      <h1 id="notices-title">Notices</h1>
      <p>
        Notices from anyone (DSA Art. 16) and trusted flaggers (Art. 22). A notifier&apos;s complaint about a
        dismissal is in Appeals. Mark a dismissed notice manifestly unfounded to count it against its sender
        (Art. 23): after the documented counts the sender is warned, then suspended.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={notices.error} />
      {notices.data && notices.data.items.length === 0 && <p>No notice yet.</p>}
      {notices.data && notices.data.items.length > 0 && (
        <table aria-labelledby="notices-title">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Player</th>
              <th scope="col">Game</th>
              <th scope="col">About</th>
              <th scope="col">From</th>
              <th scope="col">Stands</th>
              <th scope="col">Complaint</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {notices.data.items.map((n) => (
              <tr key={n.id}>
                <td>{when(n.receivedAt)}</td>
                <td>
                  <Link to={`/players/${encodeURIComponent(n.player.serviceId)}`}>{n.player.gamerTag}</Link>
                </td>
                <td>{n.game.title}</td>
                <td>{n.categoryWords}</td>
                <td>{n.trustedFlagger ? `trusted flagger ${n.trustedFlagger}` : 'a person'}</td>
                <td>
                  {n.caseId ? (
                    <Link to={`/cases/${n.caseId}`}>{STATUS_WORDS[n.status]}</Link>
                  ) : (
                    STATUS_WORDS[n.status]
                  )}
                  {n.reversed ? ' (reversed on appeal)' : ''}
                  {n.markedUnfounded ? ', marked manifestly unfounded' : ''}
                </td>
                <td>
                  {n.complaint ? <Link to={`/appeals/${n.complaint.id}`}>{n.complaint.status}</Link> : '—'}
                </td>
                <td>
                  {n.status === 'no_action' && !n.reversed && !n.markedUnfounded && (
                    <button type="button" disabled={busy} onClick={() => (setLifting(null), setMarking(n))}>
                      Mark unfounded: {n.player.gamerTag}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {notices.data?.nextCursor && (
        <button type="button" onClick={() => setCursor(notices.data!.nextCursor ?? undefined)}>
          Older notices
        </button>
      )}
      {marking && (
        <NoteForm
          id="mark-title"
          title={`Mark ${marking.player.gamerTag}'s notice manifestly unfounded`}
          label="Why (audited; never shown to the notifier)"
          maxLength={LIMITS.unfoundedNote}
          submit="Mark"
          note={note}
          setNote={setNote}
          busy={busy}
          onSubmit={mark}
          onCancel={() => (setMarking(null), setNote(''))}
        />
      )}

      <section aria-labelledby="measures-title">
        <h2 id="measures-title">Warnings and suspensions (Art. 23)</h2>
        <label>
          <input type="checkbox" checked={inForce} onChange={(e) => setInForce(e.target.checked)} /> Only
          suspensions in force
        </label>
        <ErrorLine error={measures.error} />
        {measures.data && measures.data.items.length === 0 && <p>None.</p>}
        {measures.data && measures.data.items.length > 0 && (
          <table aria-labelledby="measures-title">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Against</th>
                <th scope="col">Measure</th>
                <th scope="col">Marks</th>
                <th scope="col">Until</th>
                {isAdmin && (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {measures.data.items.map((m) => (
                <tr key={m.id}>
                  <td>{when(m.createdAt)}</td>
                  <td>{senderWords(m.sender)}</td>
                  <td>
                    {m.kind}
                    {m.liftedAt ? `, lifted ${when(m.liftedAt)}` : m.inForce ? ', in force' : ''}
                  </td>
                  <td>{m.marks}</td>
                  <td>{m.endsAt ? when(m.endsAt) : '—'}</td>
                  {isAdmin && (
                    <td>
                      {m.inForce && (
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() => (setMarking(null), setLifting(m))}
                        >
                          Lift: {senderWords(m.sender)}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {lifting && (
          <NoteForm
            id="lift-title"
            title={`Lift the suspension of ${senderWords(lifting.sender)}`}
            label="Why (audited)"
            maxLength={LIMITS.liftNote}
            submit="Lift"
            note={note}
            setNote={setNote}
            busy={busy}
            onSubmit={lift}
            onCancel={() => (setLifting(null), setNote(''))}
          />
        )}
      </section>
    </article>
  );
}

/** A decision that needs a note, asked on the page (no browser prompt): its title, the note, submit and cancel. */
function NoteForm(props: {
  id: string;
  title: string;
  label: string;
  /** The note's limit, as the contract states it for the route it goes to. */
  maxLength: number;
  submit: string;
  note: string;
  setNote: (note: string) => void;
  busy: boolean;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
  onCancel: () => void;
}) {
  return (
    <form onSubmit={props.onSubmit} aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <label>
        {props.label}
        <textarea
          value={props.note}
          onChange={(e) => props.setNote(e.target.value)}
          required
          maxLength={props.maxLength}
        />
      </label>
      <button type="submit" disabled={props.busy || !props.note.trim()}>
        {props.submit}
      </button>{' '}
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}
