import Joi from 'joi';
import type { Queryable } from '../data/db.js';
import { isUuid } from '../domain/ids.js';
import { AppError, notFound } from '../errors.js';
import { check } from '../validation.js';
import type { Actor } from './moderation.js';
import { caseExists, deleteTag, insertTag, tagsOfSubject } from '../data/repos/tags.js';
import { playerRowId } from '../data/repos/trust.js';

/** A tag: 1 to 32 lower-case letters, digits, _ or -, starting with a letter or digit (any case in). */
export const TAG = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const tagSchema = Joi.object({
  tag: Joi.string()
    .trim()
    .lowercase()
    .pattern(TAG)
    .required()
    .description('1 to 32 letters, digits, _ or -, starting with a letter or digit; kept in lower case.'),
});

export type TagSubject = { kind: 'case'; caseId: string } | { kind: 'player'; serviceId: string };

async function subjectId(db: Queryable, s: TagSubject): Promise<string> {
  if (s.kind === 'case') {
    if (!isUuid(s.caseId) || !(await caseExists(db, s.caseId))) throw notFound(`Case ${s.caseId}`);
    return s.caseId;
  }
  const id = await playerRowId(db, s.serviceId);
  if (!id) throw notFound(`Player ${s.serviceId}`);
  return id;
}

/** The tags of a case or a player, in order. */
export async function tagsOf(db: Queryable, s: TagSubject): Promise<string[]> {
  return tagsOfSubject(db, s.kind, await subjectId(db, s));
}

/** A protected tag (PROTECTED_TAGS) is set and removed by admins only (docs/moderators.md "Tags"). */
function guard(actor: Pick<Actor, 'role'>, tag: string, protectedTags: readonly string[]) {
  if (protectedTags.includes(tag) && actor.role !== 'admin')
    throw new AppError(403, 'protected_tag', `Only admins set or remove the protected tag ${tag}.`);
}

/** Adds a tag (adding one it has changes nothing); answers the tags after. */
export async function addTag(
  db: Queryable,
  actor: Actor,
  s: TagSubject,
  input: unknown,
  protectedTags: readonly string[] = [],
): Promise<string[]> {
  const { tag } = check<{ tag: string }>(tagSchema, input);
  guard(actor, tag, protectedTags);
  const id = await subjectId(db, s);
  await insertTag(db, s.kind, id, tag, actor.id);
  return tagsOf(db, s);
}

/** Removes a tag (removing one it lacks is a 404); answers the tags after. */
export async function removeTag(
  db: Queryable,
  actor: Pick<Actor, 'role'>,
  s: TagSubject,
  tag: string,
  protectedTags: readonly string[] = [],
): Promise<string[]> {
  guard(actor, tag.toLowerCase(), protectedTags);
  const id = await subjectId(db, s);
  if (!(await deleteTag(db, s.kind, id, tag.toLowerCase()))) throw notFound(`Tag ${tag}`);
  return tagsOf(db, s);
}
