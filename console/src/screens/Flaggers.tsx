import { useState, type FormEvent } from 'react';
import {
  listTrustedFlaggers,
  registerTrustedFlagger,
  reinstateTrustedFlagger,
  suspendTrustedFlagger,
  type TrustedFlagger,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { LIMITS, NOTICE_CATEGORIES } from '../generated/contract';
import { NoticeLine } from '../components/NoticeLine';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';

/** The Transparency Database categories a flagger may be trusted for, in words (from the document). */
const AREAS = NOTICE_CATEGORIES;
const areaWords = (a: string) => AREAS.find(([k]) => k === a)?.[1] ?? a;

/**
 * Trusted flaggers (admins; DSA Art. 22, docs/moderators.md "Notices"): register an organisation a coordinator
 * awarded the status (its key shown once), see each one's accuracy, suspend one with a reason (asked
 * on the page) and reinstate it. Every name is rendered as text.
 */
export function FlaggersScreen() {
  const list = useLoad(listTrustedFlaggers, []);
  const { busy, notice, run } = useAction(list.reload);
  const [key, setKey] = useState<{ name: string; key: string } | null>(null);
  const [suspending, setSuspending] = useState<TrustedFlagger | null>(null);
  const [reason, setReason] = useState('');

  async function register(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const areas = data.getAll('areas').map(String);
    await run(async () => {
      const made = await registerTrustedFlagger({
        name: String(data.get('name')).trim(),
        coordinator: String(data.get('coordinator')).trim(),
        areas,
      });
      setKey({ name: made.name, key: made.apiKey });
      form.reset();
    }, 'Registered: give the organisation its key now; it is not shown again.');
  }
  async function suspend(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!suspending || !reason.trim()) return;
    const f = suspending;
    await run(async () => {
      await suspendTrustedFlagger(f.id, reason.trim());
      setSuspending(null);
      setReason('');
    }, `${f.name} suspended: its notices are refused.`);
  }

  return (
    <article aria-labelledby="flaggers-title">
      <h1 id="flaggers-title">Trusted flaggers</h1>
      <p>
        Organisations a Digital Services Coordinator awarded the status (DSA Art. 22): their notices go ahead
        in the queue, in the areas they are trusted for.
      </p>
      <NoticeLine notice={notice} />
      {key && (
        <p role="status" className="notice">
          The key of {key.name}: <code>{key.key}</code>
        </p>
      )}
      <ErrorLine error={list.error} />
      {list.data && list.data.items.length === 0 && <p>No trusted flagger is registered.</p>}
      {list.data && list.data.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Organisation</th>
              <th scope="col">Trusted for</th>
              <th scope="col">Awarded by</th>
              <th scope="col">Notices (decided, upheld)</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((f) => (
              <tr key={f.id}>
                <td>{f.name}</td>
                <td>{f.areas.map(areaWords).join(', ')}</td>
                <td>{f.coordinator}</td>
                <td>
                  {f.notices} ({f.decided}, {f.upheld}
                  {f.accuracy !== null ? `: ${Math.round(f.accuracy * 100)}% upheld` : ''})
                </td>
                <td>
                  {f.suspended
                    ? `suspended ${f.suspendedAt ? when(f.suspendedAt) : ''}: ${f.suspendReason ?? ''}`
                    : 'active'}
                </td>
                <td>
                  {f.suspended ? (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => void run(() => reinstateTrustedFlagger(f.id), `${f.name} reinstated.`)}
                    >
                      Reinstate {f.name}
                    </button>
                  ) : (
                    <button type="button" disabled={busy} onClick={() => setSuspending(f)}>
                      Suspend {f.name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {suspending && (
        <form onSubmit={suspend} aria-labelledby="suspend-title">
          <h2 id="suspend-title">Suspend {suspending.name}</h2>
          <label>
            Why (kept and audited)
            <textarea
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              required
              maxLength={LIMITS.flaggerSuspendReason}
            />
          </label>
          <button type="submit" disabled={busy || !reason.trim()}>
            Suspend
          </button>{' '}
          <button type="button" onClick={() => (setSuspending(null), setReason(''))}>
            Cancel
          </button>
        </form>
      )}
      <form onSubmit={register} aria-labelledby="register-title">
        <h2 id="register-title">Register an organisation</h2>
        <label>
          Name <input name="name" required maxLength={LIMITS.flaggerName} autoComplete="off" />
        </label>
        <label>
          Awarding coordinator{' '}
          <input name="coordinator" required maxLength={LIMITS.flaggerCoordinator} autoComplete="off" />
        </label>
        <fieldset>
          <legend>Trusted for</legend>
          {AREAS.map(([value, words]) => (
            <label key={value}>
              <input type="checkbox" name="areas" value={value} /> {words}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          Register
        </button>
      </form>
    </article>
  );
}
