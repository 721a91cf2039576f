import Joi from 'joi';
import { fieldErrors, validationError } from './errors.js';

/** Validates input with `schema`: the converted value, or 400 naming every bad field (`root` names the whole). */
export function check<T>(schema: Joi.Schema, value: unknown, root = 'body'): T {
  const { value: v, error } = schema.validate(value, { abortEarly: false });
  if (error) throw validationError(fieldErrors(error.details, root));
  return v as T;
}

/**
 * Text a person writes and another reads (a note, a reason, a statement, a name): trimmed, 1 to `max`
 * characters, so never blank (the document says so with a pattern: api/contract.ts reads the trim).
 */
export const text = (max: number) => Joi.string().trim().min(1).max(max);
