/**
 * The kinds of personal data a retention run reduces, their windows and a run's result per kind
 * (common/lifecycles/retention.ts runs them; issue 49: below both the repositories and the life cycles).
 */
export type RetentionKind =
  | 'evidence'
  | 'reportText'
  | 'resolvedCases'
  | 'trustHistory'
  | 'audit'
  | 'signIns'
  | 'transparencyPayloads'
  | 'notifierContacts'
  | 'misuseRecords';
export type RetentionDays = Readonly<Record<RetentionKind, number>>;

export interface KindResult {
  kind: RetentionKind;
  windowDays: number;
  cutoff: string;
  /** Rows removed or reduced (a dry run: rows a run would remove now, at most one run's worth). */
  rows: number;
  /** More are due than one run removes (the rest goes with the next runs). */
  more: boolean;
  /** The oldest row still holding the kind after the run, or null when none does. */
  oldest: string | null;
}
