import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import {
  erasePlayer,
  getErasure,
  getPlayer,
  placeSanction,
  revokeSanction,
  type Erasure,
  type SanctionRequest,
} from '../api';
import { OffenseCard } from '../components/Evidence';
import { PlayerHeader } from '../components/PlayerHeader';
import { TrustChart } from '../components/TrustChart';
import { when } from '../format';
import { StatementState } from './Transparency';
import { useAction, useLoad } from '../hooks';
import { NoticeLine } from '../components/NoticeLine';
import { needsPeriod, SANCTION_CHOICES } from './Case';
import { ErrorLine } from '../components/ErrorLine';
import { Notes } from '../components/Notes';
import { Tags } from '../components/Tags';
import { COUNTED_IN_MATCHES, LIMITS } from '../generated/contract';
import { PlayerTimeline } from '../components/Timeline';
import { LinkedAccounts } from '../components/LinkedAccounts';

/** One player: score history as a chart, offenses, cases, sanctions (place, revoke) and appeals. */
export function PlayerScreen({ isAdmin = false }: { isAdmin?: boolean }) {
  const { serviceId = '' } = useParams();
  const view = useLoad(() => getPlayer(serviceId), [serviceId]);
  const { notice, setNotice: setMessage, fail: report } = useAction(view.reload);
  // The sanction being revoked, and the reason for it (asked on the page, not in a browser prompt).
  const [revoking, setRevoking] = useState<string | null>(null);
  const [revokeReason, setRevokeReason] = useState('');
  // Erasure asks for the player's id typed back (on the page, not a browser prompt): it cannot be undone.
  const [erasing, setErasing] = useState(false);
  const [typedId, setTypedId] = useState('');
  // An erasure asked for on this screen, followed until it is done: then the screen stops showing
  // what was erased (it showed it beside "not found" until reloaded).
  const [erasure, setErasure] = useState<Erasure | null>(null);

  async function erase(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (typedId !== serviceId) return;
    try {
      let asked = await erasePlayer(serviceId);
      setErasing(false);
      setTypedId('');
      setErasure(asked);
      // Applied by a worker within moments: followed for up to a minute, then the Data requests screen has it.
      for (let i = 0; i < 60 && asked.state === 'pending'; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        asked = await getErasure(asked.id);
        setErasure(asked);
      }
    } catch (err) {
      report(err);
    }
  }

  if (erasure && erasure.state !== 'awaiting_confirmation')
    return (
      <article aria-labelledby="erased-title">
        <h1 id="erased-title">
          {erasure.state === 'done' ? "This player's personal data was erased" : 'Erasing this player…'}
        </h1>
        <p role="status">
          {erasure.state === 'done'
            ? `Erasure ${erasure.id}, done ${when(erasure.completedAt!)}. The counts and the decisions stay, under the player's record id ${erasure.playerRecordId}; nothing here names the player any more.`
            : erasure.state === 'cancelled'
              ? `Erasure ${erasure.id} was cancelled.`
              : `Erasure ${erasure.id} is being applied; this screen shows nothing of the player meanwhile.`}
        </p>
        {erasure.receiptWords && (
          <>
            <h2>What was removed</h2>
            <ul aria-label="What was removed">
              {erasure.receiptWords.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          </>
        )}
        <p>
          <Link to="/erasures">All data requests</Link>
        </p>
      </article>
    );

  async function place(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    const type = String(form.get('type'));
    const days = Number(form.get('days'));
    // A chat or matchmaking restriction may last a number of finished matches instead of days.
    const matches = Number(form.get('matchCount') || 0);
    const counted = matches > 0 && (COUNTED_IN_MATCHES as readonly string[]).includes(type);
    const body: SanctionRequest = {
      type: type as SanctionRequest['type'],
      reason: String(form.get('reason')).trim(),
      ...(counted ? { matches } : needsPeriod(type) ? { durationSeconds: Math.round(days * 86400) } : {}),
    };
    try {
      const done = await placeSanction(serviceId, body);
      setMessage({
        kind: 'ok',
        text:
          'state' in done
            ? `${type} waits for a second moderator: an admin approves it on the Approvals screen.`
            : `${type} placed.`,
      });
      formEl.reset();
      await view.reload();
    } catch (err) {
      report(err);
    }
  }
  async function revoke(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!revoking || !revokeReason.trim()) return;
    try {
      await revokeSanction(serviceId, revoking, revokeReason.trim());
      setMessage({ kind: 'ok', text: 'Sanction revoked.' });
      setRevoking(null);
      setRevokeReason('');
      await view.reload();
    } catch (err) {
      report(err);
    }
  }

  if (view.error) return <ErrorLine error={view.error} notFound="No such player." />;
  const v = view.data;
  if (!v) return <p role="status">Loading the player…</p>;
  return (
    <article aria-labelledby="player-title">
      <h1 id="player-title">Player {v.player.gamerTag}</h1>
      <PlayerHeader view={v} link={false} />
      {isAdmin && (
        <ul className="plain" aria-label="Exports">
          <li>
            <a
              href={`/v1/admin/players/${encodeURIComponent(v.player.serviceId)}/export?copy=player`}
              download
            >
              The player&rsquo;s copy of their data (JSON)
            </a>{' '}
            : the answer to their data-access request (GDPR Art. 15, 20), with nobody else&rsquo;s data
          </li>
          <li>
            <a href={`/v1/admin/players/${encodeURIComponent(v.player.serviceId)}/export`} download>
              Internal export of everything held (JSON)
            </a>{' '}
            : for moderators and the operator; it holds reporters&rsquo;, studios&rsquo; and moderators&rsquo;
            data, so it is not for the player
          </li>
        </ul>
      )}
      {isAdmin && !erasing && (
        <p>
          <button type="button" className="danger" onClick={() => setErasing(true)}>
            Erase this player's personal data
          </button>{' '}
          (an erasure request: GDPR Art. 17)
        </p>
      )}
      {isAdmin && erasing && (
        <form onSubmit={erase} aria-labelledby="erase-title">
          <h2 id="erase-title">Erase {v.player.serviceId}</h2>
          <p>
            Name, gamer tag, password, KYC, the words and evidence of the reports about them, their appeals'
            words, notes and tags are removed for good; the counts and the decisions stay. This cannot be
            undone.
          </p>
          <label>
            Type the player's id to confirm{' '}
            <input value={typedId} onChange={(e) => setTypedId(e.target.value)} autoComplete="off" required />
          </label>{' '}
          <button type="submit" className="danger" disabled={typedId !== serviceId}>
            Erase for good
          </button>{' '}
          <button type="button" onClick={() => (setErasing(false), setTypedId(''))}>
            Cancel
          </button>
        </form>
      )}
      <NoticeLine notice={notice} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">Trust score history</h2>
        <TrustChart history={v.trustHistory} current={v.player.trustScore} />
        <details>
          <summary>Every change ({v.trustHistory.length})</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Reason</th>
                <th scope="col">Change</th>
                <th scope="col">Score</th>
              </tr>
            </thead>
            <tbody>
              {v.trustHistory.map((h, i) => (
                <tr key={h.id ?? i}>
                  <td>{when(h.createdAt)}</td>
                  <td>{h.reason}</td>
                  <td>{h.scoreAfter - h.scoreBefore}</td>
                  <td>
                    {h.scoreBefore} → {h.scoreAfter}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </section>
      <Tags
        path={`/v1/admin/players/${encodeURIComponent(v.player.serviceId)}/tags`}
        tags={v.tags}
        label="Tags of this player"
        onChange={view.reload}
      />
      <PlayerTimeline serviceId={v.player.serviceId} />
      <Notes
        path={`/v1/admin/players/${encodeURIComponent(v.player.serviceId)}/notes`}
        label="Notes on this player"
      />
      <section aria-labelledby="cases-title">
        <h2 id="cases-title">Cases</h2>
        {v.cases.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul>
            {v.cases.map((c) => (
              <li key={c.id}>
                <Link to={`/cases/${c.id}`}>
                  {c.type} case, {c.status}
                  {c.resolution ? ` (${c.resolution.outcome})` : ''}
                </Link>{' '}
                <span className="muted">opened {when(c.openedAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <LinkedAccounts serviceId={serviceId} sanctions={v.sanctions} onChange={view.reload} />
      <section aria-labelledby="sanctions-title">
        <h2 id="sanctions-title">Sanctions</h2>
        {v.sanctions.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Scope</th>
                <th scope="col">From – until</th>
                <th scope="col">State</th>
                <th scope="col">EU database</th>
                <th scope="col">Reason</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {v.sanctions.map((s) => (
                <tr key={s.id}>
                  <td>{s.type}</td>
                  <td>
                    {s.scope === 'global' ? 'every game (global)' : (v.studioNames[s.scope] ?? s.scope)}
                  </td>
                  <td>
                    {when(s.startsAt)} –{' '}
                    {s.matches && s.matches.left > 0
                      ? `${s.matches.left} of ${s.matches.total} matches left`
                      : s.expiresAt
                        ? when(s.expiresAt)
                        : 'no end'}
                  </td>
                  <td>{s.revokedAt ? 'revoked' : s.active ? 'active' : 'ended'}</td>
                  <td className="report-text">
                    {v.transparencyStatements[s.id] ? (
                      <StatementState s={v.transparencyStatements[s.id]!} />
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className="report-text">{s.reason}</td>
                  <td>
                    {!s.revokedAt && (s.active || !s.expiresAt || Date.parse(s.expiresAt) > Date.now()) && (
                      <button
                        type="button"
                        aria-expanded={revoking === s.id}
                        onClick={() => {
                          setRevoking(s.id);
                          setRevokeReason('');
                        }}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {revoking && (
          <form className="row" onSubmit={(e) => void revoke(e)} aria-label="Revoke the sanction">
            <label>
              Why is it revoked? (goes into the audit log and to the player)
              <input
                autoFocus
                required
                maxLength={LIMITS.revokeReason}
                value={revokeReason}
                onChange={(e) => setRevokeReason(e.target.value)}
              />
            </label>
            <button type="submit" disabled={!revokeReason.trim()}>
              Revoke {v.sanctions.find((x) => x.id === revoking)?.type ?? 'sanction'}
            </button>
            <button type="button" onClick={() => setRevoking(null)}>
              Cancel
            </button>
          </form>
        )}
        <form className="row" onSubmit={(e) => void place(e)} aria-label="Place a sanction">
          <label>
            Type
            <select name="type" defaultValue="warning">
              {SANCTION_CHOICES.filter(([value]) => value).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Days (restrictions and temporary bans)
            <input name="days" type="number" min="1" max="3650" defaultValue="7" />
          </label>
          <label>
            Or matches (chat and matchmaking restrictions: lasts until the player finishes this many)
            <input name="matchCount" type="number" min="1" max={LIMITS.sanctionMatches} />
          </label>
          <label>
            Reason
            <input name="reason" required maxLength={LIMITS.sanctionReason} />
          </label>
          <button type="submit">Place sanction</button>
        </form>
      </section>
      <section aria-labelledby="appeals-title">
        <h2 id="appeals-title">Appeals</h2>
        {v.appeals.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul>
            {v.appeals.map((a) => (
              <li key={a.id}>
                <Link to={`/appeals/${a.id}`}>
                  {a.reason} appeal of a {a.subject.kind}, {a.status}
                </Link>{' '}
                <span className="muted">{when(a.createdAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="offenses-title">
        <h2 id="offenses-title">Offenses (newest {v.offenses.length})</h2>
        {v.offenses.map((o) => (
          <OffenseCard key={o._id} offense={o} studioName={o.studio ? v.studioNames[o.studio] : undefined} />
        ))}
      </section>
    </article>
  );
}
