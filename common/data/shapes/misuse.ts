/**
 * Shapes of the `misuse` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
/** A misuse measure's row (common/lifecycles/misuse.ts writes it). */
export interface MeasureRow {
  id: string;
  sender_key: string;
  kind: 'warning' | 'suspension';
  marks: number;
  created_at: Date;
  ends_at: Date | null;
  lifted_at: Date | null;
}
