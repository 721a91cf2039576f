import Joi from 'joi';
import type { Queryable } from '../data/db.js';
import { NEEDS_PERIOD, SANCTION_TYPES, type SanctionType } from '../domain/sanctions.js';
import { notFound, validationError } from '../errors.js';
import { check, text } from '../validation.js';
import { SANCTION_LIMITS } from './sanctions.js';
import { isUuid } from '../domain/ids.js';
import { OUTCOMES, type Outcome } from '../data/repos/moderation.js';
import {
  activeTemplates,
  archiveTemplateRow,
  insertTemplate,
  type DecisionTemplate,
} from '../data/repos/templates.js';

export type { DecisionTemplate } from '../data/repos/templates.js';

/** A decision template as an admin writes it (the reason is what the player reads). */
export const templateSchema = Joi.object({
  title: text(100).required().description('What moderators see on the key, e.g. "Aimbot: 7-day ban".'),
  outcome: Joi.string()
    .valid(...OUTCOMES)
    .required(),
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

/** The templates in use, oldest first: their order is their key (1, 2, ...) in the console. */
export async function listTemplates(db: Queryable): Promise<DecisionTemplate[]> {
  return activeTemplates(db);
}

/** A new template (admins): the same rules a sanction's period follows. */
export async function createTemplate(
  db: Queryable,
  adminId: string,
  body: unknown,
): Promise<DecisionTemplate> {
  const v = check<{
    title: string;
    outcome: Outcome;
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
  return insertTemplate(db, {
    title: v.title,
    outcome: v.outcome,
    sanctionType: v.sanctionType ?? null,
    durationSeconds: v.durationSeconds ?? null,
    playerReason: v.playerReason,
    createdBy: adminId,
  });
}

/** Archives a template (admins): it leaves the panel; what was decided with it stays as it was. */
export async function archiveTemplate(db: Queryable, id: string): Promise<void> {
  if (!isUuid(id) || !(await archiveTemplateRow(db, id))) throw notFound(`Template ${id}`);
}
