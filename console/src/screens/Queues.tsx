import { useEffect, useState, type FormEvent } from 'react';
import { CASE_SOURCES, LIMITS } from '../generated/contract';
import { Link } from 'react-router';
import {
  archiveQueue,
  changeQueue,
  createQueue,
  listQueues,
  listRules,
  listStudios,
  saveRules,
  type ReviewQueue,
  type RoutingRule,
  type Session,
  type StudioWithGames,
} from '../api';
import { useAction, useLoad } from '../hooks';
import { categoryWords } from '../format';
import { ErrorLine } from '../components/ErrorLine';
import { NoticeLine } from '../components/NoticeLine';
import { SEVERITIES, TYPES } from './Queue';

/**
 * The contract's pattern as an HTML pattern attribute: anchored by the browser, and read with the `v`
 * flag, where a hyphen ending a class must be escaped.
 */
const htmlPattern = (p: string) => p.replace(/^\^|\$$/g, '').replace(/-\]/g, '\\-]');

const SOURCE_WORDS: Record<NonNullable<RoutingRule['sources']>[number], string> = {
  game: "a game's report",
  notice: 'a notice',
  trusted_flagger: "a trusted flagger's notice",
};

/** A rule in words: "cheating or toxicity, high or worse, from Acme's Skyfall → Senior review". */
export function ruleInWords(rule: RoutingRule, studios: StudioWithGames[]): string {
  const studioName = (id: string) => studios.find((s) => s.id === id)?.name ?? id;
  const gameName = (id: string) => {
    for (const s of studios) {
      const g = s.games.find((x) => x.id === id);
      if (g) return `${s.name}'s ${g.title}`;
    }
    return id;
  };
  const parts = [
    rule.types ? rule.types.join(' or ') : 'any kind',
    rule.minSeverity ? `${rule.minSeverity} or worse` : null,
    rule.studios ? `from ${rule.studios.map(studioName).join(' or ')}` : null,
    rule.games ? `in ${rule.games.map(gameName).join(' or ')}` : null,
    rule.sources ? `with ${rule.sources.map((x) => SOURCE_WORDS[x]).join(' or ')}` : null,
    rule.categories ? `about ${rule.categories.map(categoryWords).join(' or ')}` : null,
  ].filter(Boolean);
  return parts.join(', ');
}

/**
 * The review queues and the rules that route cases into them: every moderator reads them (they say
 * where a case goes and why); admins add, change and archive queues and edit the rules, which apply
 * at once to the open cases nobody moved by hand.
 */
export function QueuesScreen({ session }: { session: Session }) {
  const isAdmin = session.moderator.role === 'admin';
  const queues = useLoad(listQueues, [], 5000);
  const rules = useLoad(listRules, []);
  const studios = useLoad(listStudios, []);
  const { busy, notice, run } = useAction(async () => {
    await Promise.all([queues.reload(), rules.reload()]);
  });
  const [editing, setEditing] = useState<string | null>(null);

  async function add(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    await run(async () => {
      const q = await createQueue({
        key: String(data.get('key')).trim(),
        name: String(data.get('name')).trim(),
        description: String(data.get('description')).trim(),
        visibleTo: data.get('visibleTo') === 'admin' ? 'admin' : 'moderator',
      });
      form.reset();
      return q;
    }, 'Queue added. Add a rule to route cases to it.');
  }

  const items = queues.data?.items ?? [];
  return (
    <section aria-labelledby="queues-title">
      <h1 id="queues-title">Queues and routing</h1>
      <p>
        Every case is in one queue: the first rule below that its kind, highest severity and first report's
        studio and game match picks it, else it goes to {items[0]?.name ?? 'General'}. A case is routed again
        when a report raises its severity and when the rules are saved, unless someone moved it to a queue by
        hand.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={queues.error ?? rules.error ?? studios.error} />
      <table aria-label="Queues">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Key</th>
            <th scope="col">Seen by</th>
            <th scope="col">Open</th>
            <th scope="col">Overdue</th>
            <th scope="col">Unclaimed</th>
            {isAdmin && (
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {items.map((q) => (
            <tr key={q.key}>
              <td>
                {q.pending === null ? (
                  q.name
                ) : (
                  <Link to={`/?queue=${encodeURIComponent(q.key)}`}>{q.name}</Link>
                )}
                {q.description && <div className="muted report-text">{q.description}</div>}
              </td>
              <td>
                <code>{q.key}</code>
              </td>
              <td>{q.visibleTo === 'admin' ? 'admins only' : 'every moderator'}</td>
              <td>{q.pending ?? '—'}</td>
              <td>{q.overdue ?? '—'}</td>
              <td>{q.unclaimed ?? '—'}</td>
              {isAdmin && (
                <td>
                  <button
                    type="button"
                    aria-expanded={editing === q.key}
                    onClick={() => setEditing(editing === q.key ? null : q.key)}
                  >
                    Change <span className="sr-only">{q.name}</span>
                  </button>
                  {q.key !== 'general' && (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => void run(() => archiveQueue(q.key), `${q.name} archived.`)}
                    >
                      Archive <span className="sr-only">{q.name}</span>
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {isAdmin && editing && items.find((q) => q.key === editing) && (
        <EditQueue
          queue={items.find((q) => q.key === editing)!}
          busy={busy}
          onSave={(body) =>
            void run(async () => {
              await changeQueue(editing, body);
              setEditing(null);
            }, 'Queue changed.')
          }
        />
      )}
      {isAdmin && (
        <form onSubmit={(e) => void add(e)} aria-labelledby="add-queue">
          <h2 id="add-queue">Add a queue</h2>
          <label>
            Key (lower-case letters, digits and -)
            <input
              name="key"
              required
              maxLength={LIMITS.queueKey}
              pattern={htmlPattern(LIMITS.queueKeyPattern)}
            />
          </label>
          <label>
            Name
            <input name="name" required maxLength={LIMITS.queueName} />
          </label>
          <label>
            What it is for
            <input name="description" maxLength={LIMITS.queueDescription} />
          </label>
          <label>
            Seen by
            <select name="visibleTo" defaultValue="moderator">
              <option value="moderator">every moderator</option>
              <option value="admin">admins only (a senior queue)</option>
            </select>
          </label>
          <button type="submit" disabled={busy}>
            Add queue
          </button>
        </form>
      )}
      {rules.data && studios.data && (
        <RulesEditor
          key={JSON.stringify(rules.data.items)}
          saved={rules.data.items}
          queues={items}
          studios={studios.data.items}
          editable={isAdmin}
          busy={busy}
          onSave={(next) =>
            void run(
              () => saveRules(next),
              (res) =>
                `Rules saved; ${res.rerouted} open case${res.rerouted === 1 ? '' : 's'} moved to the queue the rules now pick.`,
            )
          }
        />
      )}
    </section>
  );
}

function EditQueue({
  queue,
  busy,
  onSave,
}: {
  queue: ReviewQueue;
  busy: boolean;
  onSave: (body: { name: string; description: string; visibleTo?: 'moderator' | 'admin' }) => void;
}) {
  return (
    <form
      aria-labelledby="edit-queue"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const visibleTo = data.get('visibleTo') === 'admin' ? 'admin' : 'moderator';
        onSave({
          name: String(data.get('name')).trim(),
          description: String(data.get('description')).trim(),
          ...(queue.key === 'general' ? {} : { visibleTo }),
        });
      }}
    >
      <h2 id="edit-queue">Change {queue.name}</h2>
      <label>
        Name
        <input name="name" required maxLength={LIMITS.queueName} defaultValue={queue.name} />
      </label>
      <label>
        What it is for
        <input name="description" maxLength={LIMITS.queueDescription} defaultValue={queue.description} />
      </label>
      {queue.key !== 'general' && (
        <label>
          Seen by
          <select name="visibleTo" defaultValue={queue.visibleTo}>
            <option value="moderator">every moderator</option>
            <option value="admin">admins only</option>
          </select>
        </label>
      )}
      <button type="submit" disabled={busy}>
        Save {queue.name}
      </button>
    </form>
  );
}

/** The ordered rules: each a queue and what a case must match; the first match wins. */
function RulesEditor({
  saved,
  queues,
  studios,
  editable,
  busy,
  onSave,
}: {
  saved: RoutingRule[];
  queues: ReviewQueue[];
  studios: StudioWithGames[];
  editable: boolean;
  busy: boolean;
  onSave: (rules: RoutingRule[]) => void;
}) {
  const [rules, setRules] = useState<RoutingRule[]>(saved);
  useEffect(() => setRules(saved), [saved]);
  const changed = JSON.stringify(rules) !== JSON.stringify(saved);
  const update = (i: number, change: Partial<RoutingRule>) =>
    setRules((rs) =>
      rs.map((r, j) => {
        if (j !== i) return r;
        const next: RoutingRule = { ...r, ...change };
        // A criterion emptied is a criterion left out: it matches any case.
        for (const k of ['types', 'studios', 'games', 'sources'] as const)
          if (next[k]?.length === 0) delete next[k];
        if (!next.minSeverity) delete next.minSeverity;
        return next;
      }),
    );
  const move = (i: number, by: number) =>
    setRules((rs) => {
      const next = [...rs];
      const [r] = next.splice(i, 1);
      next.splice(i + by, 0, r!);
      return next;
    });
  const queueName = (key: string) => queues.find((q) => q.key === key)?.name ?? key;
  return (
    <section aria-labelledby="rules-title">
      <h2 id="rules-title">Routing rules</h2>
      {rules.length === 0 && <p>No rules: every case goes to {queues[0]?.name ?? 'General'}.</p>}
      <ol className="rules">
        {rules.map((rule, i) => (
          <li key={i} aria-label={`Rule ${i + 1}`}>
            <p>
              <strong>{ruleInWords(rule, studios)}</strong> → {queueName(rule.queue)}
            </p>
            {editable && (
              <div className="rule-fields">
                <label>
                  Queue
                  <select value={rule.queue} onChange={(e) => update(i, { queue: e.target.value })}>
                    {queues.map((q) => (
                      <option key={q.key} value={q.key}>
                        {q.name}
                      </option>
                    ))}
                  </select>
                </label>
                <fieldset>
                  <legend>Kinds (none ticked: any)</legend>
                  {TYPES.map((k) => (
                    <label key={k}>
                      <input
                        type="checkbox"
                        checked={rule.types?.includes(k) ?? false}
                        onChange={(e) =>
                          update(i, {
                            types: e.target.checked
                              ? [...(rule.types ?? []), k]
                              : (rule.types ?? []).filter((t) => t !== k),
                          })
                        }
                      />
                      {k}
                    </label>
                  ))}
                </fieldset>
                <fieldset>
                  <legend>Holding (none ticked: any)</legend>
                  {CASE_SOURCES.map((k) => (
                    <label key={k}>
                      <input
                        type="checkbox"
                        checked={rule.sources?.includes(k) ?? false}
                        onChange={(e) =>
                          update(i, {
                            sources: e.target.checked
                              ? [...(rule.sources ?? []), k]
                              : (rule.sources ?? []).filter((t) => t !== k),
                          })
                        }
                      />
                      {SOURCE_WORDS[k]}
                    </label>
                  ))}
                </fieldset>
                <label>
                  Severity at least
                  <select
                    value={rule.minSeverity ?? ''}
                    onChange={(e) =>
                      update(i, {
                        minSeverity: (e.target.value || undefined) as RoutingRule['minSeverity'],
                      })
                    }
                  >
                    <option value="">any</option>
                    {SEVERITIES.map((s) => (
                      <option key={s} value={s}>
                        {s}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Studios (none chosen: any)
                  <select
                    multiple
                    size={Math.min(4, Math.max(2, studios.length))}
                    value={rule.studios ?? []}
                    onChange={(e) =>
                      update(i, { studios: [...e.target.selectedOptions].map((o) => o.value) })
                    }
                  >
                    {studios.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Games (none chosen: any)
                  <select
                    multiple
                    size={Math.min(4, Math.max(2, studios.length))}
                    value={rule.games ?? []}
                    onChange={(e) => update(i, { games: [...e.target.selectedOptions].map((o) => o.value) })}
                  >
                    {studios
                      .filter((s) => s.games.length > 0)
                      .map((s) => (
                        <optgroup key={s.id} label={s.name}>
                          {s.games.map((g) => (
                            <option key={g.id} value={g.id}>
                              {g.title}
                            </option>
                          ))}
                        </optgroup>
                      ))}
                  </select>
                </label>
                <div className="row">
                  <button type="button" disabled={i === 0} onClick={() => move(i, -1)}>
                    Move up <span className="sr-only">rule {i + 1}</span>
                  </button>
                  <button type="button" disabled={i === rules.length - 1} onClick={() => move(i, 1)}>
                    Move down <span className="sr-only">rule {i + 1}</span>
                  </button>
                  <button type="button" onClick={() => setRules((rs) => rs.filter((_, j) => j !== i))}>
                    Remove <span className="sr-only">rule {i + 1}</span>
                  </button>
                </div>
              </div>
            )}
          </li>
        ))}
      </ol>
      {editable && (
        <div className="row">
          <button
            type="button"
            onClick={() => setRules((rs) => [...rs, { queue: queues[queues.length - 1]?.key ?? 'general' }])}
          >
            Add a rule
          </button>
          <button type="button" disabled={busy || !changed} onClick={() => onSave(rules)}>
            Save the rules
          </button>
          {changed && <span role="status">Unsaved changes</span>}
        </div>
      )}
    </section>
  );
}
