import type Joi from 'joi';
import { fieldErrors, validationError } from './errors.js';

/** Validates operator and moderator input with `schema`: the converted value, or 400 naming every bad field. */
export function check<T>(schema: Joi.Schema, value: unknown): T {
  const { value: v, error } = schema.validate(value, { abortEarly: false });
  if (error) throw validationError(fieldErrors(error.details));
  return v as T;
}
