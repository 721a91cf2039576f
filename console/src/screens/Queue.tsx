import { useEffect, useRef, useState } from 'react';
import { LIMITS, OFFENSE_TYPES, SEVERITIES as SEVERITY_LIST } from '../generated/contract';
import { Link, useNavigate, useSearchParams } from 'react-router';
import {
  claimCase,
  deleteSavedFilter,
  listCases,
  listQueues,
  listSavedFilters,
  queueCounts,
  resolveCase,
  saveFilter,
  type Case,
  type Session,
} from '../api';
import { age, when } from '../format';
import { describeError, useLoad, useShortcuts } from '../hooks';
import { AppealList } from './Appeals';
import { ErrorLine } from '../components/ErrorLine';

const TABS = [
  ['open', 'Open'],
  ['overdue', 'Overdue'],
  ['assigned', 'Assigned to me'],
  ['escalated', 'Escalated'],
  ['appeals', 'Appeals'],
  ['resolved', 'Resolved'],
] as const;
type Tab = (typeof TABS)[number][0];
/** Offense kinds and severities as the API states them (the generated contract). */
export const TYPES: readonly Case['type'][] = OFFENSE_TYPES;
export const SEVERITIES: readonly Case['highestSeverity'][] = SEVERITY_LIST;

/** Cases a page of the queue shows, and each further page adds. */
const PAGE = 50;

/** The review queue: tabs, filters, sorting, keyboard selection, live claims and bulk actions. */
export function QueueScreen({ session }: { session: Session }) {
  const [params, setParams] = useSearchParams();
  const tab = (TABS.find(([t]) => t === params.get('tab'))?.[0] ?? 'open') as Tab;
  const filter = {
    type: params.get('type') ?? '',
    severity: params.get('severity') ?? '',
    claimed: params.get('claimed') ?? 'any',
    serviceId: params.get('player') ?? '',
    tag: params.get('tag') ?? '',
    queue: params.get('queue') ?? '',
    sort: params.get('sort') ?? 'priority',
  };
  // From the address as it is when React applies the change, never a copy taken at an earlier
  // render: two changes in one frame (keys typed fast) both land.
  const set = (name: string, value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  // What is typed in the player filter is the input's own; the address (and the query) follows it a
  // moment later, so typing is never rewritten from the address under the cursor.
  const [playerText, setPlayerText] = useState(filter.serviceId);
  useEffect(() => {
    const wanted = playerText.trim();
    if (wanted === (params.get('player') ?? '')) return;
    const timer = setTimeout(() => set('player', wanted), 250);
    return () => clearTimeout(timer);
  }, [playerText]);
  // A change of the address from elsewhere (back, a link) shows in the input.
  useEffect(() => {
    setPlayerText((typed) => (typed.trim() === filter.serviceId ? typed : filter.serviceId));
  }, [filter.serviceId]);
  const counts = useLoad(queueCounts, [], 2000);
  const queues = useLoad(listQueues, [], 5000);
  // The start of a serviceId or gamer tag; one character is too broad to search by.
  const player = filter.serviceId.length >= 2 ? filter.serviceId : undefined;
  const query = {
    status: tab === 'resolved' ? ('resolved' as const) : ('open' as const),
    overdue: tab === 'overdue' ? true : undefined,
    assigned: tab === 'assigned' ? ('mine' as const) : undefined,
    // An admin's own assignments include the escalated cases given to them.
    escalated:
      tab === 'escalated'
        ? ('only' as const)
        : tab === 'assigned' && session.moderator.role === 'admin'
          ? ('include' as const)
          : undefined,
    type: filter.type || undefined,
    severity: filter.severity || undefined,
    claimed: filter.claimed,
    player,
    tag: filter.tag || undefined,
    queue: filter.queue || undefined,
    sort: tab === 'resolved' ? undefined : filter.sort,
    limit: PAGE,
  };
  // The first page refreshes every 2 s; further pages are loaded on demand, after the last shown.
  const [further, setFurther] = useState<{ items: Case[]; next: string | null } | null>(null);
  const cases = useLoad(
    async () => (tab === 'appeals' ? undefined : listCases(query)),
    [tab, filter.type, filter.severity, filter.claimed, player, filter.tag, filter.queue, filter.sort],
    2000,
  );
  // Other filters, another list: the further pages of the previous one go.
  useEffect(
    () => setFurther(null),
    [tab, filter.type, filter.severity, filter.claimed, player, filter.tag, filter.queue, filter.sort],
  );
  async function loadMore() {
    const cursor = further ? further.next : cases.data?.nextCursor;
    if (!cursor) return;
    const page = await listCases({ ...query, cursor });
    setFurther((f) => ({ items: [...(f?.items ?? []), ...page.items], next: page.nextCursor }));
  }
  // The tags to filter by: those on the cases listed, and the one chosen (even when none is listed).
  const knownTags = [
    ...new Set([...(cases.data?.items ?? []).flatMap((c) => c.tags), ...(filter.tag ? [filter.tag] : [])]),
  ].sort();
  const moreAvailable = further ? further.next !== null : Boolean(cases.data?.nextCursor);
  const firstIds = new Set((cases.data?.items ?? []).map((c) => c.id));
  const items: Case[] = [
    ...(cases.data?.items ?? []),
    ...(further?.items ?? []).filter((c) => !firstIds.has(c.id)),
  ];
  const [cursor, setCursor] = useState(0);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [bulkResults, setBulkResults] = useState<Outcome[]>();
  const navigate = useNavigate();
  const rows = useRef<(HTMLTableRowElement | null)[]>([]);
  useEffect(() => {
    setCursor((c) => Math.min(c, Math.max(items.length - 1, 0)));
  }, [items.length]);
  useEffect(() => {
    rows.current[cursor]?.scrollIntoView?.({ block: 'nearest' });
  }, [cursor]);
  const current = items[cursor];
  const toggle = (id: string) =>
    setPicked((p) => {
      const next = new Set(p);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  useShortcuts(
    {
      j: () => setCursor((c) => Math.min(c + 1, items.length - 1)),
      k: () => setCursor((c) => Math.max(c - 1, 0)),
      Enter: () => current && navigate(`/cases/${current.id}`),
      x: () => current && toggle(current.id),
    },
    tab !== 'appeals',
  );
  const count = (t: Tab) => {
    const c = counts.data;
    if (!c) return '';
    if (t === 'assigned' || t === 'escalated') return '';
    return String(
      t === 'open' ? c.open : t === 'overdue' ? c.overdue : t === 'appeals' ? c.appeals : c.resolved24h,
    );
  };

  return (
    <section aria-labelledby="queue-title">
      <h1 id="queue-title">Review queue</h1>
      <div role="tablist" aria-label="Lists" className="tabs">
        {TABS.filter(([t]) => t !== 'escalated' || session.moderator.role === 'admin').map(([t, label]) => (
          <button
            key={t}
            role="tab"
            type="button"
            aria-selected={tab === t}
            onClick={() => {
              set('tab', t === 'open' ? '' : t);
              setPicked(new Set());
              setCursor(0);
            }}
          >
            {label} <span className="count">{count(t)}</span>
            {t === 'resolved' && <span className="sr-only"> in the last 24 hours</span>}
          </button>
        ))}
      </div>
      {tab === 'appeals' ? (
        <AppealList />
      ) : (
        <>
          <SavedFilters
            params={params}
            apply={(filters) => setParams(new URLSearchParams(filters), { replace: true })}
          />
          <form
            className="filters"
            role="search"
            aria-label="Filter cases"
            onSubmit={(e) => e.preventDefault()}
          >
            <label>
              Queue
              <select value={filter.queue} onChange={(e) => set('queue', e.target.value)}>
                <option value="">all I may see</option>
                {(queues.data?.items ?? [])
                  .filter((q) => q.pending !== null)
                  .map((q) => (
                    <option key={q.key} value={q.key}>
                      {q.name} ({q.pending} open{q.overdue ? `, ${q.overdue} overdue` : ''})
                    </option>
                  ))}
              </select>
            </label>
            <label>
              Player
              <input
                id="filter"
                value={playerText}
                placeholder="start of a serviceId or gamer tag"
                onChange={(e) => setPlayerText(e.target.value)}
              />
            </label>
            <label>
              Tag
              <select value={filter.tag} onChange={(e) => set('tag', e.target.value)}>
                <option value="">any</option>
                {knownTags.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Type
              <select value={filter.type} onChange={(e) => set('type', e.target.value)}>
                <option value="">any</option>
                {TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </label>
            <label>
              Severity
              <select value={filter.severity} onChange={(e) => set('severity', e.target.value)}>
                <option value="">any</option>
                {SEVERITIES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </label>
            <label>
              Claimed
              <select
                value={filter.claimed}
                onChange={(e) => set('claimed', e.target.value === 'any' ? '' : e.target.value)}
              >
                <option value="any">any</option>
                <option value="mine">by me</option>
                <option value="unclaimed">unclaimed</option>
              </select>
            </label>
            {tab !== 'resolved' && (
              <label>
                Sort
                <select
                  value={filter.sort}
                  onChange={(e) => set('sort', e.target.value === 'priority' ? '' : e.target.value)}
                >
                  <option value="priority">priority</option>
                  <option value="age">age (oldest first)</option>
                </select>
              </label>
            )}
          </form>
          <ErrorLine error={cases.error} prefix="Could not load the queue: " />
          {tab !== 'resolved' && items.length > 0 && (
            <BulkBar
              ids={[...picked]}
              me={session.moderator.id}
              cases={items}
              onDone={(results) => {
                setBulkResults(results);
                setPicked(new Set());
                void cases.reload();
                void counts.reload();
              }}
            />
          )}
          {bulkResults && (
            <div role="status" className="summary">
              <p>
                Bulk action: {bulkResults.filter((r) => r.ok).length} of {bulkResults.length} done.
              </p>
              <ul>
                {bulkResults.map((r) => (
                  <li key={r.id} className={r.ok ? 'ok' : 'error'}>
                    <Link to={`/cases/${r.id}`}>{r.name}</Link>: {r.ok ? r.message : `failed (${r.message})`}
                  </li>
                ))}
              </ul>
              <button type="button" onClick={() => setBulkResults(undefined)}>
                Dismiss this summary
              </button>
            </div>
          )}
          {cases.data && items.length === 0 ? (
            <p>No cases here.</p>
          ) : (
            <table className="queue" aria-label="Cases" aria-busy={!cases.data}>
              <thead>
                <tr>
                  <th scope="col">
                    <span className="sr-only">Select</span>
                  </th>
                  <th scope="col">Player</th>
                  <th scope="col">Type</th>
                  <th scope="col">Queue</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Reports</th>
                  <th scope="col">Held</th>
                  <th scope="col">{tab === 'resolved' ? 'Outcome' : 'Age / due'}</th>
                  <th scope="col">Claim</th>
                </tr>
              </thead>
              <tbody>
                {items.map((c, i) => (
                  <tr
                    key={c.id}
                    ref={(el) => {
                      rows.current[i] = el;
                    }}
                    className={i === cursor ? 'current' : undefined}
                    aria-current={i === cursor ? 'true' : undefined}
                    data-case-id={c.id}
                    onClick={() => setCursor(i)}
                  >
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select case of ${c.player.gamerTag}`}
                        checked={picked.has(c.id)}
                        disabled={tab === 'resolved'}
                        onChange={() => toggle(c.id)}
                      />
                    </td>
                    <td>
                      <Link to={`/players/${encodeURIComponent(c.player.serviceId)}`}>
                        {c.player.gamerTag}
                      </Link>
                      <div className="muted">{c.player.serviceId}</div>
                    </td>
                    <td>
                      <Link to={`/cases/${c.id}`}>{c.type} case</Link>
                      {c.urgent && <span className="badge urgent">urgent</span>}
                      {c.tags.length > 0 && (
                        <span className="case-tags">
                          {c.tags.map((t) => (
                            <span key={t} className="badge">
                              {t}
                            </span>
                          ))}
                        </span>
                      )}
                    </td>
                    <td>
                      {c.queue.name}
                      {c.queue.pinned && <span className="muted"> (moved)</span>}
                    </td>
                    <td>
                      <span className={`sev sev-${c.highestSeverity}`}>{c.highestSeverity}</span>
                    </td>
                    <td>{c.priority}</td>
                    <td>{c.reportsCount}</td>
                    <td>{c.heldPoints}</td>
                    <td>
                      {tab === 'resolved' ? (
                        `${c.resolution?.outcome ?? ''} ${when(c.resolution?.resolvedAt)}`
                      ) : (
                        <>
                          {age(c.openedAt)}
                          {c.overdue ? <span className="badge overdue"> overdue</span> : null}
                        </>
                      )}
                    </td>
                    <td className="claim">
                      {c.claim
                        ? c.claim.moderatorId === session.moderator.id
                          ? 'you'
                          : c.claim.username
                        : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {moreAvailable && (
            <button type="button" onClick={() => void loadMore()}>
              More cases
            </button>
          )}
        </>
      )}
    </section>
  );
}

interface Outcome {
  id: string;
  name: string;
  ok: boolean;
  message: string;
}

/**
 * Dismiss or uphold several cases with one note: each is claimed (when not held already) and
 * resolved on its own, in its own transaction with its own audit row; the summary says which went
 * through and why any did not.
 */
function BulkBar({
  ids,
  me,
  cases,
  onDone,
}: {
  ids: string[];
  me: string;
  cases: Case[];
  onDone: (results: Outcome[]) => void;
}) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  // Each case by what a moderator recognises: the player, the kind, how many reports, when opened.
  const name = (id: string) => {
    const c = cases.find((x) => x.id === id);
    if (!c) return `case ${id}`;
    return `${c.player.gamerTag}'s ${c.type} case (${c.reportsCount} report${c.reportsCount === 1 ? '' : 's'}, opened ${age(c.openedAt)})`;
  };
  async function run(outcome: 'dismissed' | 'upheld') {
    if (!note.trim()) return;
    setBusy(true);
    const out: Outcome[] = [];
    for (const id of ids) {
      try {
        const c = cases.find((x) => x.id === id);
        if (!c?.claim || c.claim.moderatorId !== me) await claimCase(id);
        await resolveCase(id, { outcome, note: note.trim() });
        out.push({ id, name: name(id), ok: true, message: outcome });
      } catch (err) {
        out.push({
          id,
          name: name(id),
          ok: false,
          message: describeError(err),
        });
      }
    }
    setBusy(false);
    setNote('');
    onDone(out);
  }
  return (
    <div className="bulk" role="region" aria-label="Bulk action">
      <p>
        {ids.length} case{ids.length === 1 ? '' : 's'} selected (x selects the current one)
      </p>
      <label htmlFor="bulk-note">Note for all (required)</label>
      <textarea id="bulk-note" value={note} onChange={(e) => setNote(e.target.value)} rows={2} />
      <button
        type="button"
        disabled={busy || !note.trim() || ids.length === 0}
        onClick={() => void run('dismissed')}
      >
        Dismiss selected
      </button>
      <button
        type="button"
        disabled={busy || !note.trim() || ids.length === 0}
        onClick={() => void run('upheld')}
      >
        Uphold selected
      </button>
    </div>
  );
}

/** The moderator's saved filters: one click applies one; the current filters save under a name. */
function SavedFilters({
  params,
  apply,
}: {
  params: URLSearchParams;
  apply: (filters: Record<string, string>) => void;
}) {
  const saved = useLoad(listSavedFilters, []);
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const current = Object.fromEntries(
    [...params.entries()].filter(([k]) =>
      ['tab', 'queue', 'type', 'severity', 'claimed', 'player', 'tag', 'sort'].includes(k),
    ),
  );
  return (
    <div className="row" role="group" aria-label="Saved filters">
      {(saved.data?.items ?? []).map((f) => (
        <span key={f.id}>
          <button type="button" onClick={() => apply(f.filters)}>
            {f.name}
          </button>
          <button type="button" onClick={() => void deleteSavedFilter(f.id).then(saved.reload)}>
            <span aria-hidden="true">×</span>
            <span className="sr-only">Delete the saved filter {f.name}</span>
          </button>
        </span>
      ))}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (!name.trim()) return;
          saveFilter(name.trim(), current)
            .then(() => {
              setName('');
              setError(undefined);
              return saved.reload();
            })
            .catch((err: unknown) => setError(describeError(err)));
        }}
      >
        <label>
          Save these filters as
          <input value={name} maxLength={LIMITS.savedFilterName} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" disabled={!name.trim()}>
          Save
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
