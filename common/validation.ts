import type Joi from 'joi';
import { fieldErrors, validationError } from './errors.js';

/** Validates input with `schema`: the converted value, or 400 naming every bad field (`root` names the whole). */
export function check<T>(schema: Joi.Schema, value: unknown, root = 'body'): T {
  const { value: v, error } = schema.validate(value, { abortEarly: false });
  if (error) throw validationError(fieldErrors(error.details, root));
  return v as T;
}
