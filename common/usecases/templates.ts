import Joi from 'joi';
import type { Queryable } from '../data/db.js';
import { NEEDS_PERIOD, SANCTION_TYPES, type SanctionType } from '../domain/sanctions.js';
import { notFound, validationError } from '../errors.js';
import { check, text } from '../validation.js';
import { SANCTION_LIMITS } from './sanctions.js';

/** A decision template as an admin writes it (the reason is what the player reads). */
export const templateSchema = Joi.object({
  title: text(100).required().description('What moderators see on the key, e.g. "Aimbot: 7-day ban".'),
  outcome: Joi.string().valid('upheld', 'dismissed').required(),
  sanctionType: Joi.string()
    .valid(...SANCTION_TYPES)
    .description('A sanction placed with an upheld case; none when left out.'),
  durationSeconds: Joi.number()
    .integer()
    .min(SANCTION_LIMITS.minSeconds)
    .max(SANCTION_LIMITS.maxSeconds)
    .description('Required for restrictions and temporary bans; refused for a permanent ban.'),
  playerReason: text(2000)
    .required()
    .description("The reason the player reads in the decision's statement of reasons."),
});

export interface DecisionTemplate {
  id: string;
  title: string;
  outcome: 'upheld' | 'dismissed';
  sanctionType: SanctionType | null;
  durationSeconds: number | null;
  playerReason: string;
  createdAt: string;
}

const COLUMNS = `id, title, outcome, sanction_type, duration_seconds, player_reason, created_at`;
const fromRow = (r: {
  id: string;
  title: string;
  outcome: 'upheld' | 'dismissed';
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

/** The templates in use, oldest first: their order is their key (1, 2, ...) in the console. */
export async function listTemplates(db: Queryable): Promise<DecisionTemplate[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM decision_templates WHERE archived_at IS NULL ORDER BY created_at, id`,
  );
  return rows.map(fromRow);
}

/** A new template (admins): the same rules a sanction's period follows. */
export async function createTemplate(
  db: Queryable,
  adminId: string,
  body: unknown,
): Promise<DecisionTemplate> {
  const v = check<{
    title: string;
    outcome: 'upheld' | 'dismissed';
    sanctionType?: SanctionType;
    durationSeconds?: number;
    playerReason: string;
  }>(templateSchema, body);
  const fields: { field: string; message: string }[] = [];
  if (v.sanctionType && v.outcome !== 'upheld')
    fields.push({ field: 'sanctionType', message: 'only an upheld case places a sanction' });
  if (v.sanctionType && NEEDS_PERIOD.includes(v.sanctionType) && !v.durationSeconds)
    fields.push({ field: 'durationSeconds', message: `a ${v.sanctionType} needs durationSeconds` });
  if (v.durationSeconds && (!v.sanctionType || v.sanctionType === 'permanent_ban'))
    fields.push({
      field: 'durationSeconds',
      message: 'only a restriction, a temporary ban or a warning has one',
    });
  if (fields.length) throw validationError(fields);
  const { rows } = await db.query(
    `INSERT INTO decision_templates (title, outcome, sanction_type, duration_seconds, player_reason, created_by)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [v.title, v.outcome, v.sanctionType ?? null, v.durationSeconds ?? null, v.playerReason, adminId],
  );
  return fromRow(rows[0]);
}

/** Archives a template (admins): it leaves the panel; what was decided with it stays as it was. */
export async function archiveTemplate(db: Queryable, id: string): Promise<void> {
  const { rowCount } = await db.query(
    `UPDATE decision_templates SET archived_at = now()
      WHERE id = $1::uuid AND archived_at IS NULL`,
    [id],
  );
  if (!rowCount) throw notFound(`Template ${id}`);
}
