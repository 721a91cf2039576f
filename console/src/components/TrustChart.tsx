import type { TrustChange } from '../api';
import { when } from '../format';

const W = 640;
/** A tick's label: the day, and the time of day when the whole span is under two days. */
const tick = (t: number, span: number) => {
  const d = new Date(t);
  return span < 2 * 86_400_000
    ? d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
};
const H = 220;
const PAD = 32;

/**
 * The trust score over time: an SVG line (0..100) through every change, each point titled with its
 * reason and points (the table beside it says the same for screen readers and keyboard users).
 */
export function TrustChart({ history, current }: { history: TrustChange[]; current: number }) {
  const changes = [...history].reverse(); // oldest first
  if (changes.length === 0) return <p>No changes yet: the score is {current}.</p>;
  const t0 = Date.parse(changes[0]!.createdAt);
  const t1 = Math.max(Date.parse(changes[changes.length - 1]!.createdAt), t0 + 1);
  const x = (iso: string) => PAD + ((Date.parse(iso) - t0) / (t1 - t0)) * (W - 2 * PAD);
  const y = (score: number) => H - PAD - (score / 100) * (H - 2 * PAD);
  const points = [
    { x: x(changes[0]!.createdAt), y: y(changes[0]!.scoreBefore) },
    ...changes.map((c) => ({ x: x(c.createdAt), y: y(c.scoreAfter) })),
  ];
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="chart-title chart-desc" width="100%">
        <title id="chart-title">Trust score over time</title>
        <desc id="chart-desc">
          {`${changes.length} changes from ${when(changes[0]!.createdAt)} to ${when(changes[changes.length - 1]!.createdAt)}; now ${current}.`}
        </desc>
        {[0, 50, 100].map((v) => (
          <g key={v}>
            <line x1={PAD} x2={W - PAD} y1={y(v)} y2={y(v)} className="grid" />
            <text x={4} y={y(v) + 4} className="axis">
              {v}
            </text>
          </g>
        ))}
        {/* The time axis: the first and last change and two ticks between, each dated. */}
        <line x1={PAD} x2={W - PAD} y1={H - PAD} y2={H - PAD} className="grid" />
        {[0, 1 / 3, 2 / 3, 1].map((f) => {
          const t = t0 + f * (t1 - t0);
          return (
            <text
              key={f}
              x={PAD + f * (W - 2 * PAD)}
              y={H - PAD + 18}
              textAnchor={f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}
              className="axis time"
            >
              {tick(t, t1 - t0)}
            </text>
          );
        })}
        <path d={path} className="line" fill="none" />
        {changes.map((c, i) => (
          <circle
            key={c.id ?? i}
            cx={x(c.createdAt)}
            cy={y(c.scoreAfter)}
            r={4}
            className={`dot dot-${c.reason}`}
          >
            <title>{`${when(c.createdAt)}: ${c.reason}, ${c.scoreAfter - c.scoreBefore >= 0 ? '+' : ''}${c.scoreAfter - c.scoreBefore} (${c.scoreBefore} → ${c.scoreAfter})`}</title>
          </circle>
        ))}
      </svg>
      <figcaption>Each point is one change; hover or see the table for its reason.</figcaption>
    </figure>
  );
}
