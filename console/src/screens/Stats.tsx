import { getStats } from '../api';
import { duration } from '../format';
import { useLoad } from '../hooks';
import { ErrorLine } from '../components/ErrorLine';

/**
 * The team's figures: open and overdue now; per queue (and the appeals) pending, overdue, inbound,
 * resolved and median handling time with each moderator's share; per day inbound, resolved and median
 * handling time.
 */
export function StatsScreen() {
  const stats = useLoad(() => getStats(14), [], 10000);
  if (stats.error) return <ErrorLine error={stats.error} />;
  const s = stats.data;
  if (!s) return <p role="status">Loading the figures…</p>;
  const max = Math.max(1, ...s.days.map((d) => Math.max(d.inbound, d.resolved)));
  return (
    <section aria-labelledby="stats-title">
      <h1 id="stats-title">Stats</h1>
      <dl className="figures">
        <div>
          <dt>Open cases</dt>
          <dd>{s.open}</dd>
        </div>
        <div>
          <dt>Overdue</dt>
          <dd>{s.overdue}</dd>
        </div>
      </dl>
      <h2 id="per-queue">Per queue, the last 14 days</h2>
      <table aria-labelledby="per-queue">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Pending</th>
            <th scope="col">Overdue</th>
            <th scope="col">Inbound</th>
            <th scope="col">Resolved</th>
            <th scope="col">Median handling time</th>
            <th scope="col">By moderator (resolved, median)</th>
          </tr>
        </thead>
        <tbody>
          {[
            ...s.queues.map((q) => ({ ...q, label: q.name })),
            { ...s.appeals, key: 'appeals', label: 'Appeals', overdue: null, resolved: s.appeals.decided },
          ].map((q) => (
            <tr key={q.key}>
              <th scope="row">{q.label}</th>
              <td>{q.pending}</td>
              <td>{q.overdue ?? '—'}</td>
              <td>{q.inbound}</td>
              <td>{q.resolved}</td>
              <td>{duration(q.medianHandlingSeconds)}</td>
              <td>
                {q.moderators.length === 0
                  ? '—'
                  : q.moderators
                      .map((m) => `${m.username}: ${m.resolved}, ${duration(m.medianHandlingSeconds)}`)
                      .join('; ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2 id="per-day">Per day, the last 14 days (UTC)</h2>
      <table aria-labelledby="per-day">
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Inbound</th>
            <th scope="col">Resolved</th>
            <th scope="col">Median handling time</th>
          </tr>
        </thead>
        <tbody>
          {s.days.map((d) => (
            <tr key={d.date}>
              <td>{d.date}</td>
              <td>
                <meter min={0} max={max} value={d.inbound} aria-label={`${d.inbound} inbound`} /> {d.inbound}
              </td>
              <td>
                <meter min={0} max={max} value={d.resolved} aria-label={`${d.resolved} resolved`} />{' '}
                {d.resolved}
              </td>
              <td>{duration(d.medianHandlingSeconds)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
