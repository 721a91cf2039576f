import type { TrustChange } from '../api';
import { when } from '../format';

const W = 640;
/**
 * A tick's label, in UTC as every time on the console: the day over two days or more; the day and
 * time under that; the time to the second under three minutes (a short history's ticks would
 * otherwise all read the same minute).
 */
const tick = (t: number, span: number) => {
  const iso = new Date(t).toISOString(); // 2026-11-26T06:33:42.000Z
  if (span >= 2 * 86_400_000) return iso.slice(0, 10);
  if (span >= 3 * 60_000) return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  return iso.slice(11, 19);
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
  // Steps, as the score moves: it holds until a change, then jumps at once (never a slope between).
  const path = [
    `M${x(changes[0]!.createdAt).toFixed(1)},${y(changes[0]!.scoreBefore).toFixed(1)}`,
    ...changes.map((c) => `H${x(c.createdAt).toFixed(1)} V${y(c.scoreAfter).toFixed(1)}`),
  ].join(' ');
  // Four ticks from the first change to the last, each label said once (a tick reading as the one
  // before it is left out).
  const ticks = [0, 1 / 3, 2 / 3, 1]
    .map((f) => ({ f, label: tick(t0 + f * (t1 - t0), t1 - t0) }))
    .filter((k, i, all) => i === 0 || k.label !== all[i - 1]!.label);
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
        {/* The time axis (UTC): the first and last change and two ticks between. */}
        <line x1={PAD} x2={W - PAD} y1={H - PAD} y2={H - PAD} className="grid" />
        {ticks.map(({ f, label }) => (
          <text
            key={f}
            x={PAD + f * (W - 2 * PAD)}
            y={H - PAD + 18}
            textAnchor={f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}
            className="axis time"
          >
            {label}
          </text>
        ))}
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
      <figcaption>Each point is one change (times in UTC); hover or see the table for its reason.</figcaption>
    </figure>
  );
}
