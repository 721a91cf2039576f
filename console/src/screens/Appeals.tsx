import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { claimAppeal, decideAppeal, getAppeal, listAppeals, type AppealDetail } from '../api';
import { APPEAL_REASON_WORDS, SANCTION_WORDS, when } from '../format';
import { useAction, useLoad, useShortcuts } from '../hooks';
import { NoticeLine } from '../components/NoticeLine';
import { ErrorLine } from '../components/ErrorLine';
import { OffenseCard } from '../components/Evidence';
import { LIMITS } from '../generated/contract';

/** The open appeals, oldest first (also the queue's Appeals tab). */
export function AppealList() {
  const [status, setStatus] = useState<'open' | 'granted' | 'denied'>('open');
  const page = useLoad(() => listAppeals({ status, limit: 50 }), [status], 3000);
  return (
    <div className="appeal-list">
      <label>
        Show
        <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
          <option value="open">open</option>
          <option value="granted">granted</option>
          <option value="denied">denied</option>
        </select>
      </label>
      <ErrorLine error={page.error} />
      {page.data && page.data.items.length === 0 ? (
        <p>No appeals here.</p>
      ) : (
        <table aria-label="Appeals" aria-busy={!page.data}>
          <thead>
            <tr>
              <th scope="col">Player</th>
              <th scope="col">Appeals</th>
              <th scope="col">Reason</th>
              <th scope="col">Filed</th>
              <th scope="col">Claim</th>
            </tr>
          </thead>
          <tbody>
            {page.data?.items.map((a) => (
              <tr key={a.id}>
                <td>
                  <Link to={`/appeals/${a.id}`}>{a.gamerTag}</Link>{' '}
                  <span className="muted">{a.playerId}</span>
                </td>
                <td>{SUBJECT_WORDS[a.subject.kind]}</td>
                <td>{APPEAL_REASON_WORDS[a.reason]}</td>
                <td>{when(a.createdAt)}</td>
                <td>{a.claim ? 'Claimed' : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function AppealsScreen() {
  return (
    <section aria-labelledby="appeals-title">
      <h1 id="appeals-title">Appeals</h1>
      <AppealList />
    </section>
  );
}

/** One appeal: what it is against, the player's statement (as text), claim and decision. */
export function AppealScreen() {
  const { appealId = '' } = useParams();
  const appeal = useLoad(() => getAppeal(appealId), [appealId], 5000);
  const [decision, setDecision] = useState<'granted' | 'denied' | ''>('');
  const [note, setNote] = useState('');
  /** Sanctions of the contested decision the moderator keeps in force, with the player's ground. */
  const [keep, setKeep] = useState<Record<string, string>>({});
  /** A notifier's complaint denied as manifestly unfounded (DSA Art. 23): a mark against its sender. */
  const [unfounded, setUnfounded] = useState(false);
  const { busy, notice, run } = useAction(appeal.reload);
  // c claims (or renews the claim), as on a case.
  useShortcuts({
    c: () => appeal.data?.status === 'open' && !busy && void run(() => claimAppeal(appealId), 'Claimed.'),
  });
  if (appeal.error) return <ErrorLine error={appeal.error} notFound="No such appeal." />;
  const a = appeal.data;
  if (!a) return <p role="status">Loading the appeal…</p>;
  return (
    <article aria-labelledby="appeal-title">
      <p>
        <Link to="/appeals">← Appeals</Link>
      </p>
      <h1 id="appeal-title">
        {a.subject.kind === 'notice'
          ? `A notifier's complaint about a notice on ${a.context.player.gamerTag}, ${a.status}`
          : `Appeal of ${a.subject.kind === 'offense' ? 'an offense' : 'a sanction'} by ${a.context.player.gamerTag}, ${a.status}`}
      </h1>
      <dl className="figures">
        <div>
          <dt>Player</dt>
          <dd>
            <Link to={`/players/${encodeURIComponent(a.playerId)}`}>{a.context.player.gamerTag}</Link>{' '}
            <span className="muted">{a.playerId}</span>
          </dd>
        </div>
        <div>
          <dt>Trust score</dt>
          <dd>{a.context.player.trustScore}</dd>
        </div>
        <div>
          <dt>Active strikes</dt>
          <dd>{a.context.player.activeStrikes}</dd>
        </div>
        <div>
          <dt>Reason</dt>
          <dd>{APPEAL_REASON_WORDS[a.reason]}</dd>
        </div>
        <div>
          <dt>Filed</dt>
          <dd>
            {when(a.createdAt)} by{' '}
            {a.filedBy.kind === 'player'
              ? 'the player'
              : a.filedBy.kind === 'notifier'
                ? 'the notifier'
                : 'a studio'}
          </dd>
        </div>
      </dl>
      <h2>Statement</h2>
      <p className="report-text">{a.statement}</p>
      <AppealedSubject appeal={a} />
      <section aria-labelledby="recent-offenses">
        <h2 id="recent-offenses">Latest offenses of the player</h2>
        {a.context.recentOffenses.length === 0 ? (
          <p>None.</p>
        ) : (
          <table aria-labelledby="recent-offenses">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Severity</th>
                <th scope="col">Points</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {a.context.recentOffenses.map((o) => (
                <tr key={o._id} aria-current={o._id === a.subject.id ? 'true' : undefined}>
                  <td>{when(o.createdAt)}</td>
                  <td>{o.type}</td>
                  <td>{o.severity}</td>
                  <td>{o.penaltyPoints}</td>
                  <td>{o.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <NoticeLine notice={notice} />
      {a.status === 'open' ? (
        <section className="decide" aria-labelledby="decide-appeal">
          <h2 id="decide-appeal">Decision</h2>
          <button type="button" disabled={busy} onClick={() => void run(() => claimAppeal(a.id), 'Claimed.')}>
            {a.claim ? 'Renew claim (c)' : 'Claim (c)'}
          </button>
          <fieldset>
            <legend>Decision</legend>
            <label>
              <input
                type="radio"
                name="decision"
                checked={decision === 'granted'}
                onChange={() => setDecision('granted')}
              />
              {a.subject.kind === 'notice'
                ? 'Grant: reopen the case of the notice'
                : 'Grant: undo the decision (below)'}
            </label>
            <label>
              <input
                type="radio"
                name="decision"
                checked={decision === 'denied'}
                onChange={() => setDecision('denied')}
              />
              Deny
            </label>
          </fieldset>
          {a.context.ifGranted && (
            <IfGranted appeal={a} keep={keep} setKeep={setKeep} disabled={decision !== 'granted'} />
          )}
          {a.subject.kind === 'notice' && (
            <label>
              <input
                type="checkbox"
                checked={unfounded}
                disabled={decision !== 'denied'}
                onChange={(e) => setUnfounded(e.target.checked)}
              />{' '}
              Manifestly unfounded (DSA Art. 23: counts against the notifier)
            </label>
          )}
          <label htmlFor="appeal-note">Note (required)</label>
          <textarea id="appeal-note" rows={3} value={note} onChange={(e) => setNote(e.target.value)} />
          <button
            type="button"
            className="primary"
            disabled={
              busy ||
              !decision ||
              !note.trim() ||
              (decision === 'granted' && Object.values(keep).some((r) => !r.trim()))
            }
            onClick={() =>
              decision &&
              void run(async () => {
                if (!a.claim) await claimAppeal(a.id);
                await decideAppeal(
                  a.id,
                  decision,
                  note.trim(),
                  Object.entries(keep).map(([sanctionId, reason]) => ({ sanctionId, reason: reason.trim() })),
                  decision === 'denied' && unfounded,
                );
              }, `Appeal ${decision}.`)
            }
          >
            Decide
          </button>
        </section>
      ) : (
        <section aria-label="Decision">
          <h2>Decision</h2>
          <p>
            {a.status} on {when(a.decision?.decidedAt)}
          </p>
          {a.decision?.note && <p className="report-text">{a.decision.note}</p>}
          {a.status === 'granted' && a.decision && (
            <p>
              Sanctions revoked: {a.decision.sanctionsRevoked.length}; kept in force:{' '}
              {a.decision.sanctionsKept.length}
              {a.decision.sanctionsKept.map((k) => (
                <span key={k.sanctionId} className="report-text">
                  {' '}
                  ({k.reason})
                </span>
              ))}
            </p>
          )}
        </section>
      )}
    </article>
  );
}

/**
 * What granting undoes, shown before the decision: the points (on the offense above), the case's
 * strike and every sanction the contested decision placed. Each sanction is revoked unless the
 * moderator keeps it, with the reason the player will read.
 */
function IfGranted({
  appeal: a,
  keep,
  setKeep,
  disabled,
}: {
  appeal: AppealDetail;
  keep: Record<string, string>;
  setKeep: (k: Record<string, string>) => void;
  disabled: boolean;
}) {
  const undo = a.context.ifGranted!;
  return (
    <fieldset aria-describedby="if-granted-help">
      <legend>What granting undoes</legend>
      <p id="if-granted-help">
        {a.subject.kind === 'offense' ? 'The offense’s points come back. ' : ''}
        {undo.strikeRemoved ? 'The strike of its case is removed. ' : ''}
        {undo.sanctionsRevoked.length === 0
          ? 'No sanction came with this decision.'
          : 'These sanctions came with the decision and are revoked, unless you keep one and say why:'}
      </p>
      {undo.sanctionsRevoked.map((s) => {
        const kept = s.record.id in keep;
        const label = `${SANCTION_WORDS[s.record.type]}, ${s.scopeName ?? 'every game'}, ${
          s.record.expiresAt ? `until ${when(s.record.expiresAt)}` : 'no end'
        }, placed by ${s.issuedByName}`;
        return (
          <div key={s.record.id} className="keep-sanction">
            {s.appealed ? (
              <p>{label}: the sanction appealed, revoked if granted.</p>
            ) : (
              <>
                <label>
                  <input
                    type="checkbox"
                    checked={kept}
                    disabled={disabled}
                    onChange={(e) => {
                      const next = { ...keep };
                      if (e.target.checked) next[s.record.id] = '';
                      else delete next[s.record.id];
                      setKeep(next);
                    }}
                  />
                  Keep: {label}
                </label>
                {kept && (
                  <>
                    <label htmlFor={`keep-${s.record.id}`}>Why it stays (the player reads this)</label>
                    <textarea
                      id={`keep-${s.record.id}`}
                      rows={3}
                      maxLength={LIMITS.keptReason}
                      value={keep[s.record.id]}
                      disabled={disabled}
                      onChange={(e) => setKeep({ ...keep, [s.record.id]: e.target.value })}
                    />
                  </>
                )}
              </>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

const SUBJECT_WORDS: Record<AppealDetail['subject']['kind'], string> = {
  offense: 'An offense',
  sanction: 'A sanction',
  notice: "A notifier's complaint",
};

/** The decision an appeal is against: its case's outcome, note, moderator and time. */
function DecisionBehind({ decision }: { decision: NonNullable<AppealDetail['context']['offense']>['case'] }) {
  if (!decision) return <p>No review case: no moderator decided it.</p>;
  if (decision.status === 'open') return <p>Its review case is still open.</p>;
  return (
    <>
      <p>
        Case {decision.outcome} by {decision.decidedBy} on {when(decision.resolvedAt ?? undefined)}.
      </p>
      {decision.note && <p className="report-text">{decision.note}</p>}
    </>
  );
}

/** What is appealed, in full: the offense as filed (as text) or the sanction, and the decision behind it. */
function AppealedSubject({ appeal: a }: { appeal: AppealDetail }) {
  const { offense, sanction } = a.context;
  return (
    <section aria-labelledby="appealed-subject">
      <h2 id="appealed-subject">
        {a.subject.kind === 'notice' ? 'The notice, and its dismissal' : 'What is appealed'}
      </h2>
      {offense && (
        <>
          <OffenseCard offense={offense.record} studioName={offense.studioName} />
          <h3>The decision</h3>
          <DecisionBehind decision={offense.case} />
        </>
      )}
      {sanction && (
        <>
          <dl className="figures">
            <div>
              <dt>Sanction</dt>
              <dd>{SANCTION_WORDS[sanction.record.type]}</dd>
            </div>
            <div>
              <dt>Applies to</dt>
              <dd>{sanction.scopeName ?? 'every game (global)'}</dd>
            </div>
            <div>
              <dt>Placed by</dt>
              <dd>{sanction.issuedByName}</dd>
            </div>
            <div>
              <dt>Period</dt>
              <dd>
                {when(sanction.record.startsAt)} to{' '}
                {sanction.record.expiresAt ? when(sanction.record.expiresAt) : 'no end'}
                {sanction.record.revokedAt ? ` (revoked ${when(sanction.record.revokedAt)})` : ''}
              </dd>
            </div>
          </dl>
          <p className="report-text">{sanction.record.reason}</p>
          <h3>The decision</h3>
          <DecisionBehind decision={sanction.case} />
        </>
      )}
    </section>
  );
}
