import { useState, type FormEvent } from 'react';
import { archiveTemplate, createTemplate, listTemplates, type DecisionTemplate } from '../api';
import { duration } from '../format';
import { useAction, useLoad } from '../hooks';
import { ErrorLine } from '../components/ErrorLine';
import { NoticeLine } from '../components/NoticeLine';
import { needsPeriod, SANCTION_CHOICES } from './Case';
import { LIMITS } from '../generated/contract';

/** What a template decides, in words. */
export const templateSummary = (t: DecisionTemplate) =>
  `${t.outcome}${t.sanctionType ? `, ${t.sanctionType.replace(/_/g, ' ')}${t.durationSeconds ? ` for ${duration(t.durationSeconds)}` : ''}` : ''}`;

/**
 * Decision templates (admins): the canned reasons every moderator applies with one key in the
 * decision panel (1 for the first, 2 for the second, ...), each with the reason the player reads.
 */
export function TemplatesScreen() {
  const templates = useLoad(listTemplates, []);
  const { busy, notice, run } = useAction(templates.reload);
  const [outcome, setOutcome] = useState<'upheld' | 'dismissed'>('upheld');
  const [sanction, setSanction] = useState('');

  async function add(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const days = Number(data.get('days'));
    await run(async () => {
      await createTemplate({
        title: String(data.get('title')).trim(),
        outcome,
        playerReason: String(data.get('playerReason')).trim(),
        ...(outcome === 'upheld' && sanction
          ? {
              sanctionType: sanction as NonNullable<DecisionTemplate['sanctionType']>,
              ...(needsPeriod(sanction) ? { durationSeconds: Math.round(days * 86_400) } : {}),
            }
          : {}),
      });
      form.reset();
      setSanction('');
    }, 'Template added.');
  }

  const items = templates.data?.items ?? [];
  return (
    <section aria-labelledby="templates-title">
      <h1 id="templates-title">Decision templates</h1>
      <p>
        Moderators apply these in a case's decision panel with one key: 1 for the first, 2 for the second.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={templates.error} />
      {items.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <table aria-label="Decision templates">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Title</th>
              <th scope="col">Decides</th>
              <th scope="col">Reason the player reads</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((t, i) => (
              <tr key={t.id}>
                <td>{i < 9 ? i + 1 : '—'}</td>
                <td>{t.title}</td>
                <td>{templateSummary(t)}</td>
                <td className="report-text">{t.playerReason}</td>
                <td>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => void run(() => archiveTemplate(t.id), 'Template archived.')}
                  >
                    Archive <span className="sr-only">{t.title}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={(e) => void add(e)} aria-labelledby="add-template">
        <h2 id="add-template">Add a template</h2>
        <label>
          Title
          <input name="title" required maxLength={LIMITS.templateTitle} />
        </label>
        <fieldset>
          <legend>Outcome</legend>
          <label>
            <input
              type="radio"
              name="outcome"
              checked={outcome === 'upheld'}
              onChange={() => setOutcome('upheld')}
            />
            Uphold
          </label>
          <label>
            <input
              type="radio"
              name="outcome"
              checked={outcome === 'dismissed'}
              onChange={() => setOutcome('dismissed')}
            />
            Dismiss
          </label>
        </fieldset>
        {outcome === 'upheld' && (
          <label>
            Sanction
            <select value={sanction} onChange={(e) => setSanction(e.target.value)}>
              {SANCTION_CHOICES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        )}
        {outcome === 'upheld' && needsPeriod(sanction) && (
          <label>
            Days
            <input name="days" type="number" min="1" max="3650" defaultValue="7" />
          </label>
        )}
        <label>
          Reason the player reads
          <textarea name="playerReason" required maxLength={LIMITS.playerReason} rows={3} />
        </label>
        <button type="submit" disabled={busy}>
          Add template
        </button>
      </form>
    </section>
  );
}
