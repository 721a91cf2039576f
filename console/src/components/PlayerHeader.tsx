import { Link } from 'react-router';
import type { PlayerView } from '../api';
import { when } from '../format';

/** Who the player is and where they stand: score, strikes, sanctions in force. */
export function PlayerHeader({ view, link = true }: { view: PlayerView; link?: boolean }) {
  const active = view.sanctions.filter((s) => s.active);
  const p = view.player;
  return (
    <section className="player-header" aria-label="Player">
      <h2>
        {link ? <Link to={`/players/${encodeURIComponent(p.serviceId)}`}>{p.gamerTag}</Link> : p.gamerTag}{' '}
        <span className="muted">{p.serviceId}</span>
      </h2>
      <dl className="figures">
        <div>
          <dt>Trust score</dt>
          <dd data-testid="trust-score">{p.trustScore}</dd>
        </div>
        <div>
          <dt>Active strikes</dt>
          <dd>{view.activeStrikes}</dd>
        </div>
        <div>
          <dt>KYC</dt>
          <dd>{p.isKycVerified ? 'verified' : 'no'}</dd>
        </div>
        <div>
          <dt>Sanctions in force</dt>
          <dd>
            {active.length === 0
              ? 'none'
              : active
                  .map(
                    (s) =>
                      `${s.type}${s.matches ? ` for ${s.matches.left} more matches` : s.expiresAt ? ` until ${when(s.expiresAt)}` : ''}`,
                  )
                  .join('; ')}
          </dd>
        </div>
      </dl>
    </section>
  );
}
