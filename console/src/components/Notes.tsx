import { useState } from 'react';
import { LIMITS } from '../generated/contract';
import { api, type Schemas } from '../api';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';
import { ErrorLine } from './ErrorLine';
import { NoticeLine } from './NoticeLine';

type Note = Schemas['Note'];

/**
 * The internal notes thread of a case or a player (moderators only; never shown to a studio or the
 * player). Every note is text, whoever wrote it; adding one is audited.
 */
export function Notes({ path, label }: { path: string; label: string }) {
  const notes = useLoad(() => api<{ items: Note[] }>('GET', path), [path], 5000);
  const { busy, notice, run } = useAction(notes.reload);
  const [body, setBody] = useState('');
  const id = `notes-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{label}</h2>
      <ErrorLine error={notes.error} />
      {notes.data && notes.data.items.length === 0 && <p>No notes yet.</p>}
      <ol className="notes">
        {(notes.data?.items ?? []).map((n) => (
          <li key={n.id}>
            <p className="muted">
              {n.author.username}, {when(n.createdAt)}
              {n.caseId && !path.includes('/cases/') ? ' (on a case)' : ''}
            </p>
            <p className="report-text">{n.body}</p>
          </li>
        ))}
      </ol>
      <NoticeLine notice={notice} />
      <label htmlFor={`${id}-new`}>New note (moderators only)</label>
      <textarea
        id={`${id}-new`}
        rows={2}
        maxLength={LIMITS.note}
        value={body}
        onChange={(e) => setBody(e.target.value)}
      />
      <button
        type="button"
        disabled={busy || !body.trim()}
        onClick={() =>
          void run(async () => {
            await api<Note>('POST', path, { body: body.trim() });
            setBody('');
          }, 'Note added.')
        }
      >
        Add note
      </button>
    </section>
  );
}
