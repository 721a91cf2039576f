import type { LinkedAccounts } from '../api';

type Link = LinkedAccounts['links'][number];
type Among = LinkedAccounts['among'][number];

const W = 520;
const H = 340;
const R = 125;
/** The most accounts drawn; the list beside the picture holds them all. */
const MOST = 16;
const BANS = new Set(['temporary_ban', 'permanent_ban']);

/**
 * A picture of a player's links (issue 53): the player in the middle, each linked account around,
 * its line as thick as the link is strong (dashed when weak), and the links among those accounts
 * drawn between them (a ring of alts shows as one), an account under a ban in force drawn
 * as banned, one suspected of evading a ban ringed. Gamer tags are SVG text nodes, so a tag that
 * holds markup is shown as the characters it is. The table beside it says the same for screen
 * readers and keyboard users; the picture is one image with a description.
 */
export function LinksPicture({ links, among = [] }: { links: Link[]; among?: Among[] }) {
  const drawn = links.slice(0, MOST);
  // The same account may be listed once per studio whose signals link it: drawn where it first is.
  const placeOf = new Map<string, number>();
  drawn.forEach((l, i) => {
    if (!placeOf.has(l.serviceId)) placeOf.set(l.serviceId, i);
  });
  const between = among.filter((a) => a.serviceIds.every((id) => placeOf.has(id)));
  const cx = W / 2;
  const cy = H / 2;
  const at = (i: number) => {
    const a = (i / drawn.length) * 2 * Math.PI - Math.PI / 2;
    return { x: cx + R * Math.cos(a), y: cy + R * Math.sin(a) };
  };
  const strong = links.filter((l) => l.strength >= 0.8).length;
  const banned = links.filter((l) => l.activeSanctions.some((s) => BANS.has(s.type))).length;
  return (
    <figure className="chart links-picture">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="links-pic-title links-pic-desc" width="100%">
        <title id="links-pic-title">This player&apos;s linked accounts</title>
        <desc id="links-pic-desc">
          {`${links.length} linked ${links.length === 1 ? 'account' : 'accounts'}: ${strong} strongly linked, ${banned} under a ban in force${between.length ? `; ${between.length} ${between.length === 1 ? 'link' : 'links'} among them` : ''}.${links.length > MOST ? ` The ${MOST} strongest are drawn.` : ''}`}
        </desc>
        {drawn.map((l, i) => {
          const p = at(i);
          return (
            <line
              key={`edge-${l.studioId}/${l.serviceId}`}
              x1={cx}
              y1={cy}
              x2={p.x}
              y2={p.y}
              className={l.strength >= 0.8 ? 'edge strong' : 'edge weak'}
              strokeWidth={1 + 5 * l.strength}
            />
          );
        })}
        {between.map((a) => {
          const [one, other] = a.serviceIds.map((id) => at(placeOf.get(id)!));
          const p = one!;
          const q = other!;
          return (
            <line
              key={`among-${a.studioId}/${a.serviceIds.join('/')}`}
              x1={p.x}
              y1={p.y}
              x2={q.x}
              y2={q.y}
              className={a.strength >= 0.8 ? 'edge among strong' : 'edge among weak'}
              strokeWidth={1 + 3 * a.strength}
            />
          );
        })}
        <circle cx={cx} cy={cy} r={16} className="node self" />
        <text x={cx} y={cy + 32} textAnchor="middle" className="label">
          this player
        </text>
        {drawn.map((l, i) => {
          const p = at(i);
          const isBanned = l.activeSanctions.some((s) => BANS.has(s.type));
          return (
            <g key={`node-${l.studioId}/${l.serviceId}`} className="account">
              <title>{`${l.gamerTag} (${l.serviceId}): strength ${l.strength.toFixed(2)}`}</title>
              <circle
                cx={p.x}
                cy={p.y}
                r={11}
                className={`node${isBanned ? ' banned' : ''}${l.evasionSuspected ? ' suspected' : ''}`}
              />
              <text x={p.x} y={p.y + (p.y < cy ? -17 : 25)} textAnchor="middle" className="label">
                {l.gamerTag.length > 24 ? `${l.gamerTag.slice(0, 23)}…` : l.gamerTag}
              </text>
              <text x={(cx + p.x) / 2 + 8} y={(cy + p.y) / 2 - 4} textAnchor="start" className="axis">
                {l.strength.toFixed(2)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">
        Line thickness is the link&apos;s strength (dashed: weak, below 0.80); lines between the accounts
        around are their links to each other (a ring of alts); a filled red circle is an account under a ban
        in force; a ring marks one suspected of evading a ban.
      </figcaption>
    </figure>
  );
}
