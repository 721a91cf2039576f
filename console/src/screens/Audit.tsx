import { useState } from 'react';
import { Link } from 'react-router';
import { listAudit, type AuditEntry } from '../api';
import { when } from '../format';
import { useLoad } from '../hooks';
import { ErrorLine } from '../components/ErrorLine';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The audit log (admins only; the API refuses anyone else), filterable by case and moderator. */
export function AuditScreen() {
  const [caseId, setCaseId] = useState('');
  const [moderatorId, setModeratorId] = useState('');
  const [more, setMore] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const valid = (s: string) => s === '' || UUID.test(s);
  const page = useLoad(async () => {
    if (!valid(caseId) || !valid(moderatorId)) return undefined;
    const p = await listAudit({
      caseId: caseId || undefined,
      moderatorId: moderatorId || undefined,
      limit: 50,
    });
    setMore([]);
    setCursor(p.nextCursor);
    return p;
  }, [caseId, moderatorId]);
  async function loadMore() {
    if (!cursor) return;
    const p = await listAudit({
      caseId: caseId || undefined,
      moderatorId: moderatorId || undefined,
      limit: 50,
      cursor,
    });
    setMore((m) => [...m, ...p.items]);
    setCursor(p.nextCursor);
  }
  const items = [...(page.data?.items ?? []), ...more];
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
          Case id
          <input id="filter" value={caseId} onChange={(e) => setCaseId(e.target.value.trim())} />
        </label>
        <label>
          Moderator id
          <input value={moderatorId} onChange={(e) => setModeratorId(e.target.value.trim())} />
        </label>
        {(!valid(caseId) || !valid(moderatorId)) && (
          <p className="error" role="alert">
            Ids are UUIDs.
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
            <th scope="col">Case</th>
            <th scope="col">Score</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr key={a.id}>
              <td>{when(a.createdAt)}</td>
              <td>{a.moderator?.username ?? `studio ${a.studioId ?? ''}`}</td>
              <td>
                {a.action}
                {a.outcome ? ` (${a.outcome})` : ''}
              </td>
              <td>{a.caseId ? <Link to={`/cases/${a.caseId}`}>case</Link> : '—'}</td>
              <td>
                {a.trustScoreBefore ?? '—'} → {a.trustScoreAfter ?? '—'}
              </td>
              <td className="report-text">{a.note ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {cursor && (
        <button type="button" onClick={() => void loadMore()}>
          Older entries
        </button>
      )}
    </section>
  );
}
