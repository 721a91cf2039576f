/** Building blocks of the OpenAPI document, shared by its parts. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('ErrorResponse') } },
});
export const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
export const dateTime = { type: 'string', format: 'date-time' };
