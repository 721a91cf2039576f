import type { Offense } from '../api';
import { safeHttpUrl, when } from '../format';

const REASONS: Record<string, string> = {
  studio_budget: "the studio's daily budget on the player was spent",
  reporter_credibility: "the reporter's credibility is low",
  reporter_muted: 'the reporter is muted',
  no_finding: 'the report found nothing',
  party_report: 'another member of the reporter’s party already reported it in this match',
  brigading: 'possible brigading: the reporter or their party reported the player in other matches too',
  notice: 'a notice, for a moderator',
  evasion_check: 'the sign-in check suspects evasion of a ban, for a moderator',
  rule_hold: 'a rule holds the player’s points',
};

/** What became of the offense's points, in words, whatever its status. */
export function OffenseOutcome({ offense: o }: { offense: Offense }) {
  const by = o.restoredBy === 'appeal' ? 'a granted appeal' : 'a dismissal';
  const why = (o as { statusReason?: string | null }).statusReason;
  const because = why ? ` (${REASONS[why] ?? why})` : '';
  if (o.status === 'applied') return <p className="outcome">Applied: {o.penaltyPoints} points taken.</p>;
  if (o.status === 'held')
    return (
      <p className="outcome">
        Held: {o.penaltyHeld} points wait for a moderator{because}.
      </p>
    );
  if (o.status === 'released')
    return (
      <p className="outcome">Released: the {o.penaltyPoints} held points were taken by an upheld case.</p>
    );
  if (o.status === 'recorded') return <p className="outcome">Recorded: no points{because}.</p>;
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
 * Who filed an offense, in words: a notice is a person's (or a trusted flagger's), sent about a game of
 * the studio, never the studio's own report (issue 49: it read "filed by" the studio).
 */
export function filedBy(source: unknown, studioName: string | undefined): string {
  const game = studioName ? ` about a game of ${studioName}` : '';
  if (source === 'notice') return ` · a notice from a member of the public (DSA Art. 16)${game}`;
  if (source === 'trusted_flagger') return ` · a notice from a trusted flagger (DSA Art. 22)${game}`;
  if (source === 'evasion_check')
    return ` · found by the service's sign-in check: strongly linked to an account under a ban${game ? ` (signals from ${studioName})` : ''}`;
  return studioName ? ` · filed by ${studioName}` : '';
}

/**
 * One offense in full. Every string in it came from a studio's report (attacker-controlled): it is
 * rendered as text only, URLs become links only when they are http(s) (never loaded or embedded),
 * anything else is shown as text.
 */
export function OffenseCard({ offense, studioName }: { offense: Offense; studioName?: string | undefined }) {
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
          {filedBy(o.context?.source, studioName)}
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
          <h3 className="evidence-title">Evidence</h3>
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
