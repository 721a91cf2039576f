import Joi from 'joi';
import { isUniqueViolation, type Queryable } from '../data/db.js';
import { isUuid } from '../domain/ids.js';
import { AppError, notFound } from '../errors.js';
import { check, text } from '../validation.js';
import type { Actor } from './moderation.js';
import {
  deleteSavedFilterRow,
  insertSavedFilter,
  savedFiltersOf,
  type SavedFilter,
} from '../data/repos/saved-filters.js';

export type { SavedFilter } from '../data/repos/saved-filters.js';

/** The queue's filters a saved filter may hold: what GET /v1/admin/cases takes, nothing else. */
const FILTER_KEYS = ['tab', 'queue', 'type', 'severity', 'claimed', 'player', 'tag', 'sort'] as const;

export const savedFilterSchema = Joi.object({
  name: text(60).required(),
  filters: Joi.object(Object.fromEntries(FILTER_KEYS.map((k) => [k, Joi.string().trim().max(64).allow('')])))
    .required()
    .description(`The queue's filters: any of ${FILTER_KEYS.join(', ')}.`),
});

/** The signed-in moderator's saved filters, by name. */
export async function listSavedFilters(db: Queryable, actor: Actor): Promise<SavedFilter[]> {
  return savedFiltersOf(db, actor.id);
}

/** Saves the current filters under a name of the moderator's own (409 filter_exists for a name in use). */
export async function saveFilter(db: Queryable, actor: Actor, input: unknown): Promise<SavedFilter> {
  const v = check<{ name: string; filters: Record<string, string> }>(savedFilterSchema, input);
  const filters = Object.fromEntries(Object.entries(v.filters).filter(([, value]) => value !== ''));
  try {
    const id = await insertSavedFilter(db, actor.id, v.name, filters);
    return { id, name: v.name, filters };
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(409, 'filter_exists', `You already have a filter named ${v.name}.`);
    throw err;
  }
}

/** Deletes one of the moderator's own saved filters. */
export async function deleteSavedFilter(db: Queryable, actor: Actor, id: string): Promise<void> {
  if (!isUuid(id) || !(await deleteSavedFilterRow(db, actor.id, id))) throw notFound(`Saved filter ${id}`);
}
