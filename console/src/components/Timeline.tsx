import { Link } from 'react-router';
import { api, type Res } from '../api';
import { when } from '../format';
import { useLoad } from '../hooks';
import { ErrorLine } from './ErrorLine';

type Timeline = Res<'/v1/admin/players/{serviceId}/timeline', 'get', 200>;

const WHO: Record<string, string> = { service: 'player-trust', player: 'the player' };

/** Everything that happened to a player in one list, newest first, with who and why (all text). */
export function PlayerTimeline({ serviceId }: { serviceId: string }) {
  const timeline = useLoad(
    () => api<Timeline>('GET', `/v1/admin/players/${encodeURIComponent(serviceId)}/timeline`),
    [serviceId],
    5000,
  );
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ErrorLine error={timeline.error} />
      <table aria-labelledby="timeline-title" aria-busy={!timeline.data}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Why</th>
            <th scope="col">Case</th>
          </tr>
        </thead>
        <tbody>
          {(timeline.data?.items ?? []).map((e, i) => (
            <tr key={`${e.at}-${i}`} data-kind={e.kind}>
              <td>{when(e.at)}</td>
              <td>{e.who.name ?? WHO[e.who.kind] ?? e.who.kind}</td>
              <td>{e.what}</td>
              <td className="report-text">{e.why ?? ''}</td>
              <td>{e.caseId ? <Link to={`/cases/${e.caseId}`}>case</Link> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
