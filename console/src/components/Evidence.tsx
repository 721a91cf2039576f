import type { Offense } from '../api';
import { safeHttpUrl, when } from '../format';

/** What became of the offense's points, in words: given back, dropped, or still standing. */
export function OffenseOutcome({ offense: o }: { offense: Offense }) {
  const by = o.restoredBy === 'appeal' ? 'a granted appeal' : 'a dismissal';
  if (o.status === 'restored')
    return (
      <p className="outcome">
        Restored: {o.penaltyRestored} of {o.penaltyPoints} points given back by {by}
        {o.restoredAt ? ` on ${when(o.restoredAt)}` : ''}.
      </p>
    );
  if (o.status === 'dropped')
    return (
      <p className="outcome">
        Dropped: the {o.penaltyHeld} held points were never taken ({by}
        {o.restoredAt ? `, ${when(o.restoredAt)}` : ''}).
      </p>
    );
  return null;
}

interface EvidenceItem {
  type?: unknown;
  url?: unknown;
  content?: unknown;
  enrichment?: Record<string, unknown> | null;
}

/** Any value a report carried, as text: strings as they are, anything else as JSON. Never markup. */
export const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * One offense in full. Every string in it came from a studio's report (attacker-controlled): it is
 * rendered as text only, URLs become links only when they are http(s) (never loaded or embedded),
 * anything else is shown as text.
 */
export function OffenseCard({ offense }: { offense: Offense }) {
  const o = offense as Offense & {
    description?: unknown;
    evidence?: EvidenceItem[];
    details?: Record<string, unknown>;
    context?: Record<string, unknown>;
    statusReason?: unknown;
  };
  return (
    <article className="offense" aria-label={`Offense ${o._id}`}>
      <header>
        <strong>{o.type}</strong> <span className={`sev sev-${o.severity}`}>{o.severity}</span>{' '}
        <span>
          {o.penaltyPoints} points{o.penaltyHeld ? `, ${o.penaltyHeld} held` : ''}
        </span>{' '}
        <span className="muted">
          {o.status} · {when(o.createdAt)}
        </span>
      </header>
      <OffenseOutcome offense={o} />
      {o.description !== undefined && o.description !== null && o.description !== '' && (
        <p className="report-text">{asText(o.description)}</p>
      )}
      {o.context && Object.keys(o.context).length > 0 && (
        <dl className="kv">
          {Object.entries(o.context).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{asText(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {o.details && Object.keys(o.details).length > 0 && (
        <details>
          <summary>Report details</summary>
          <dl className="kv">
            {Object.entries(o.details).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>
                  <pre className="report-text">
                    {Array.isArray(v) ? (v as unknown[]).map(asText).join('\n') : asText(v)}
                  </pre>
                </dd>
              </div>
            ))}
          </dl>
        </details>
      )}
      {o.evidence && o.evidence.length > 0 && (
        <div>
          <h4>Evidence</h4>
          <ul className="evidence">
            {o.evidence.map((e, i) => (
              <EvidenceRow key={i} item={e} />
            ))}
          </ul>
        </div>
      )}
      {o.statusReason ? <p className="muted">Status: {asText(o.statusReason)}</p> : null}
    </article>
  );
}

function EvidenceRow({ item }: { item: EvidenceItem }) {
  const href = safeHttpUrl(item.url);
  const en = item.enrichment ?? undefined;
  return (
    <li>
      <span className="tag">{asText(item.type ?? 'item')}</span>{' '}
      {item.content !== undefined && <pre className="report-text">{asText(item.content)}</pre>}
      {item.url !== undefined &&
        (href ? (
          <a href={href} target="_blank" rel="noopener noreferrer nofollow" referrerPolicy="no-referrer">
            {href}
          </a>
        ) : (
          <span className="report-text" title="Not an http(s) link: shown as text">
            {asText(item.url)}
          </span>
        ))}
      {en && (
        <span className="muted enrichment">
          {' '}
          {en.kind === 'url'
            ? `reachable: ${asText(en.reachable)}, status ${asText(en.status ?? '—')}, ${asText(en.contentType ?? 'unknown type')}, ${asText(en.bytes ?? 0)} bytes${en.sha256 ? `, sha256 ${asText(en.sha256).slice(0, 16)}…` : ''}${en.error ? `, error: ${asText((en.error as { message?: unknown }).message ?? en.error)}` : ''}`
            : `${asText(en.chars)} characters, ${asText(en.lines)} lines${en.truncated ? ', truncated' : ''}`}
        </span>
      )}
    </li>
  );
}
