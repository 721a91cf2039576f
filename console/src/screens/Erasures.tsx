import {
  decideErasure,
  listErasures,
  retentionOverview,
  runRetention,
  type Erasure,
  type RetentionRun,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { NoticeLine } from '../components/NoticeLine';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';

const STATE_WORDS: Record<Erasure['state'], string> = {
  awaiting_confirmation: 'awaiting an admin',
  pending: 'being applied',
  done: 'done',
  cancelled: 'cancelled',
};

const RUN_BY_WORDS: Record<RetentionRun['requestedBy'], string> = {
  schedule: 'the schedule',
  operator: 'the admin tool',
  admin: 'an admin',
};

/**
 * Data requests (admins; docs/compliance.md "Personal data"): studios' requests to erase a player who also plays
 * another studio's games wait here for an admin to confirm or cancel; below, the latest erasures with
 * their receipts. An erasure names the player only by their internal id. Retention: each kind's window,
 * what is due, a run now and the latest runs.
 */
export function ErasuresScreen() {
  const awaiting = useLoad(() => listErasures('awaiting_confirmation'), [], 15_000);
  const recent = useLoad(() => listErasures(), []);
  const retention = useLoad(() => retentionOverview(), []);
  const { busy, notice, run } = useAction(async () => {
    await Promise.all([awaiting.reload(), recent.reload(), retention.reload()]);
  });

  const decide = (e: Erasure, decision: 'confirm' | 'cancel') =>
    run(
      () => decideErasure(e.id, decision),
      decision === 'confirm'
        ? `Erasure ${e.id} confirmed: the player's personal data is being removed.`
        : `Erasure ${e.id} cancelled: nothing was erased.`,
    );

  return (
    <article aria-labelledby="erasures-title">
      <h1 id="erasures-title">Data requests</h1>
      <NoticeLine notice={notice} />
      <section aria-labelledby="awaiting-title">
        <h2 id="awaiting-title">Erasures awaiting an admin</h2>
        {awaiting.error && <ErrorLine error={awaiting.error} />}
        {awaiting.data && awaiting.data.items.length === 0 && <p>None: every request is decided.</p>}
        {awaiting.data && awaiting.data.items.length > 0 && (
          <table>
            <caption>A studio asked; the player also plays another studio&apos;s games.</caption>
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col">Player record</th>
                <th scope="col">Decide</th>
              </tr>
            </thead>
            <tbody>
              {awaiting.data.items.map((e) => (
                <tr key={e.id}>
                  <td>{when(e.requestedAt)}</td>
                  <td>{e.playerRecordId}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => decide(e, 'confirm')}
                    >
                      Confirm erasure {e.id.slice(0, 8)}
                    </button>{' '}
                    <button type="button" disabled={busy} onClick={() => decide(e, 'cancel')}>
                      Cancel erasure {e.id.slice(0, 8)}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="recent-title">
        <h2 id="recent-title">Latest erasures</h2>
        {recent.error && <ErrorLine error={recent.error} />}
        {recent.data && (
          <table>
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col">By</th>
                <th scope="col">State</th>
                <th scope="col">Removed</th>
              </tr>
            </thead>
            <tbody>
              {recent.data.items.map((e) => (
                <tr key={e.id}>
                  <td>{when(e.requestedAt)}</td>
                  <td>{e.requestedBy}</td>
                  <td>{STATE_WORDS[e.state]}</td>
                  <td>
                    {e.receiptWords && (
                      <ul className="plain">
                        {e.receiptWords.map((w) => (
                          <li key={w}>{w}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="retention-title">
        <h2 id="retention-title">Retention</h2>
        {retention.error && <ErrorLine error={retention.error} />}
        {retention.data && (
          <>
            <p>
              Each kind of personal data is removed or reduced once past its window, by a run every{' '}
              {Math.round(retention.data.intervalMs / 60_000)} minutes. What a decision still stands on (a
              case still open, an appeal still pending) stays.
            </p>
            <table>
              <caption>Each kind: its window, what is due now and the oldest row still holding it.</caption>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Window (days)</th>
                  <th scope="col">Due now</th>
                  <th scope="col">Oldest held</th>
                </tr>
              </thead>
              <tbody>
                {retention.data.kinds.map((k) => (
                  <tr key={k.kind}>
                    <td>{k.what}</td>
                    <td>{k.windowDays}</td>
                    <td>{k.wouldRemove}</td>
                    <td>{k.oldestHeld ? when(k.oldestHeld) : 'none'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p>
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  run(
                    () => runRetention(),
                    (r) =>
                      `Retention ran: ${r.removed} ${r.removed === 1 ? 'row' : 'rows'} past their window removed.`,
                  )
                }
              >
                Run retention now
              </button>
            </p>
            <table>
              <caption>The latest runs, newest first.</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Asked by</th>
                  <th scope="col">Rows removed</th>
                </tr>
              </thead>
              <tbody>
                {retention.data.runs.map((r) => (
                  <tr key={r.id}>
                    <td>{when(r.startedAt)}</td>
                    <td>{r.moderator ? r.moderator.displayName : RUN_BY_WORDS[r.requestedBy]}</td>
                    <td>{r.removed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
    </article>
  );
}
