import { getStats } from '../api';
import { duration } from '../format';
import { useLoad } from '../hooks';
import { ErrorLine } from '../components/ErrorLine';

/** The team's figures: open and overdue now; per day inbound, resolved and median handling time. */
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
      <table aria-label="Per day, the last 14 days (UTC)">
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
