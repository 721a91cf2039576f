/**
 * Shapes of the `trusted-flagger` tables the repositories read and the life cycle writes (issue 49: states and
 * row types live below both, so no repository imports a life cycle).
 */
import type { TdbCategory } from '../../domain/transparency-statement.js';

/** A trusted flagger's row (common/lifecycles/trusted-flagger.ts writes it). */
export interface FlaggerRow {
  id: string;
  name: string;
  areas: TdbCategory[];
  coordinator: string;
  created_at: Date;
  suspended_at: Date | null;
  suspend_reason: string | null;
}
