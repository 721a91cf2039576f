import type { NormalisedReport, ReportKind, Severity } from './reports.js';

export type PenaltyCaps = Record<'cheating' | 'griefing' | 'toxicity' | 'afk', number>;

/** Points by severity before adjustments; each row's top equals the kind's default cap. */
export const SEVERITY_POINTS: Record<ReportKind, Record<Severity, number>> = {
  anticheat: { low: 5, medium: 10, high: 15, critical: 20 },
  griefing: { low: 3, medium: 6, high: 10, critical: 15 },
  toxicity: { low: 2, medium: 4, high: 7, critical: 10 },
  afk: { low: 1, medium: 2, high: 3, critical: 5 },
};

/**
 * The penalty of one report, from its normalised input alone (documented in the README):
 * - nothing when the flag is false;
 * - anti-cheat: severity points x confidence (1 when absent), rounded;
 * - griefing: severity points (the worst of report and incidents) + 1 per affected player beyond
 *   the first (at most +5) + 1 per incident beyond the first (at most +3);
 * - toxicity: severity points, +3 for hate speech or threats;
 * - AFK: severity points + 1 per occurrence beyond the first (at most +3);
 * then never above the kind's cap.
 */
export function computePenalty(report: NormalisedReport, caps: PenaltyCaps): number {
  if (!report.detected) return 0;
  const base = SEVERITY_POINTS[report.kind][report.severity];
  const d = report.details;
  let points: number;
  switch (report.kind) {
    case 'anticheat':
      points = Math.round(base * ((d.confidence as number | undefined) ?? 1));
      break;
    case 'griefing': {
      const affected = (d.affectedPlayers as number | undefined) ?? 0;
      const incidents = (d.incidents as unknown[] | undefined)?.length ?? 0;
      points = base + Math.min(Math.max(affected - 1, 0), 5) + Math.min(Math.max(incidents - 1, 0), 3);
      break;
    }
    case 'toxicity':
      points = base + (d.category === 'hate_speech' || d.category === 'threats' ? 3 : 0);
      break;
    case 'afk':
      points = base + Math.min(((d.occurrences as number | undefined) ?? 1) - 1, 3);
      break;
  }
  return Math.max(0, Math.min(points, caps[report.type]));
}
