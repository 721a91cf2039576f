import type { Queryable } from '../db.js';
import type { Outcome } from './moderation.js';
import type { SanctionType } from '../../domain/sanctions.js';

/** A decision template (docs/moderators.md "Decision templates"), as the API shows it. */
export interface DecisionTemplate {
  id: string;
  title: string;
  outcome: Outcome;
  sanctionType: SanctionType | null;
  durationSeconds: number | null;
  playerReason: string;
  createdAt: string;
}

const COLUMNS = `id, title, outcome, sanction_type, duration_seconds, player_reason, created_at`;
const fromRow = (r: {
  id: string;
  title: string;
  outcome: Outcome;
  sanction_type: SanctionType | null;
  duration_seconds: number | null;
  player_reason: string;
  created_at: Date;
}): DecisionTemplate => ({
  id: r.id,
  title: r.title,
  outcome: r.outcome,
  sanctionType: r.sanction_type,
  durationSeconds: r.duration_seconds,
  playerReason: r.player_reason,
  createdAt: r.created_at.toISOString(),
});

/** The templates in use (not archived), oldest first. */
export async function activeTemplates(db: Queryable): Promise<DecisionTemplate[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM decision_templates WHERE archived_at IS NULL ORDER BY created_at, id`,
  );
  return rows.map(fromRow);
}

export async function insertTemplate(
  db: Queryable,
  t: Omit<DecisionTemplate, 'id' | 'createdAt'> & { createdBy: string },
): Promise<DecisionTemplate> {
  const { rows } = await db.query(
    `INSERT INTO decision_templates (title, outcome, sanction_type, duration_seconds, player_reason, created_by)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [t.title, t.outcome, t.sanctionType, t.durationSeconds, t.playerReason, t.createdBy],
  );
  return fromRow(rows[0]);
}

/** Archives a template in use; false when there is none by that id (or it is archived already). */
export async function archiveTemplateRow(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE decision_templates SET archived_at = now()
      WHERE id = $1::uuid AND archived_at IS NULL`,
    [id],
  );
  return Boolean(rowCount);
}
