import { useState } from 'react';
import { api } from '../api';
import { useAction } from '../hooks';
import { NoticeLine } from './NoticeLine';
import { LIMITS } from '../generated/contract';

/** A case's or a player's tags: each one removable, a new one added by name (moderators only). */
export function Tags({
  path,
  tags,
  label,
  onChange,
}: {
  path: string;
  tags: string[];
  label: string;
  onChange: () => Promise<unknown>;
}) {
  const { busy, notice, run } = useAction(onChange);
  const [tag, setTag] = useState('');
  const id = `tags-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section aria-labelledby={id} className="tags">
      <h2 id={id}>{label}</h2>
      {tags.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul className="row">
          {tags.map((t) => (
            <li key={t}>
              <span className="badge">{t}</span>{' '}
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  void run(() => api('DELETE', `${path}/${encodeURIComponent(t)}`), `Tag ${t} removed.`)
                }
              >
                Remove <span className="sr-only">tag {t}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const name = tag.trim();
          if (!name) return;
          void run(async () => {
            await api('POST', path, { tag: name });
            setTag('');
          }, `Tagged ${name.toLowerCase()}.`);
        }}
      >
        <label>
          New tag
          <input
            value={tag}
            maxLength={LIMITS.tag}
            pattern="[A-Za-z0-9][A-Za-z0-9_\-]*"
            onChange={(e) => setTag(e.target.value)}
          />
        </label>
        <button type="submit" disabled={busy || !tag.trim()}>
          Add tag
        </button>
      </form>
      <NoticeLine notice={notice} />
    </section>
  );
}
