import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { listAudit, type AuditEntry } from '../api';
import { when } from '../format';
import { useLoad } from '../hooks';
import { ErrorLine } from '../components/ErrorLine';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who acted, by name: a moderator's username or the studio's name. */
const actor = (a: AuditEntry) => a.moderator?.username ?? (a.studio ? `${a.studio.name} (studio)` : '—');

/** What an action was about, by name: the player, or the reporter with its studio. */
function About({ entry: a }: { entry: AuditEntry }) {
  if (a.player)
    return (
      <Link to={`/players/${encodeURIComponent(a.player.serviceId)}`}>
        {a.player.gamerTag} <span className="muted">{a.player.serviceId}</span>
      </Link>
    );
  if (a.reporter)
    return (
      <>
        reporter {a.reporter.reporterId} <span className="muted">of {a.reporter.studioName}</span>
      </>
    );
  return <>—</>;
}

/** The audit log (admins only; the API refuses anyone else), filterable by moderator, player and case. */
export function AuditScreen() {
  // What is typed is the input's; the query follows it a moment later (no request per key).
  const [typed, setTyped] = useState({ moderator: '', player: '', caseId: '' });
  const [filter, setFilter] = useState(typed);
  useEffect(() => {
    const timer = setTimeout(() => setFilter(typed), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const [more, setMore] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const caseIdValid = filter.caseId === '' || UUID.test(filter.caseId);
  const query = {
    moderator: filter.moderator.trim() || undefined,
    player: filter.player.trim() || undefined,
    caseId: filter.caseId.trim() || undefined,
  };
  const page = useLoad(async () => {
    if (!caseIdValid) return undefined;
    const p = await listAudit({ ...query, limit: 50 });
    setMore([]);
    setCursor(p.nextCursor);
    return p;
  }, [query.moderator, query.player, query.caseId]);
  async function loadMore() {
    if (!cursor) return;
    const p = await listAudit({ ...query, limit: 50, cursor });
    setMore((m) => [...m, ...p.items]);
    setCursor(p.nextCursor);
  }
  const items = [...(page.data?.items ?? []), ...more];
  const field = (name: keyof typeof typed) => ({
    value: typed[name],
    onChange: (e: { target: { value: string } }) => setTyped((t) => ({ ...t, [name]: e.target.value })),
  });
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        className="filters"
        role="search"
        aria-label="Filter the audit log"
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          Moderator
          <input id="filter" placeholder="username" {...field('moderator')} />
        </label>
        <label>
          Player
          <input placeholder="serviceId" {...field('player')} />
        </label>
        <label>
          Case id
          <input {...field('caseId')} />
        </label>
        {!caseIdValid && (
          <p className="error" role="alert">
            A case id is the id in a case's address.
          </p>
        )}
      </form>
      <ErrorLine error={page.error} />
      <table aria-label="Audit entries" aria-busy={!page.data}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">About</th>
            <th scope="col">Case</th>
            <th scope="col">Score</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr key={a.id}>
              <td>{when(a.createdAt)}</td>
              <td>{actor(a)}</td>
              <td>{a.summary}</td>
              <td>
                <About entry={a} />
              </td>
              <td>{a.caseId ? <Link to={`/cases/${a.caseId}`}>case</Link> : '—'}</td>
              <td>
                {a.trustScoreBefore === null ? '—' : `${a.trustScoreBefore} → ${a.trustScoreAfter ?? '—'}`}
              </td>
              <td className="report-text">{a.note ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.data && items.length === 0 && <p>No entries.</p>}
      {cursor && (
        <button type="button" onClick={() => void loadMore()}>
          Older entries
        </button>
      )}
    </section>
  );
}
