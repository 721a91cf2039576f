import { json, ref } from '../../openapi-parts.js';

/** The OpenAPI operations of the health routes (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
  '/healthz': {
    get: {
      operationId: 'healthz',
      tags: ['operations'],
      summary: 'The process is up',
      responses: {
        200: json({ type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }, 'Up.'),
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      tags: ['operations'],
      summary: 'PostgreSQL and Redis answer',
      responses: {
        200: json(ref('Readiness'), 'Ready.'),
        503: json(ref('Readiness'), 'A backing service does not answer.'),
      },
    },
  },
};

/** Components of the document that only this feature's answers use. */
export const schemas = {
  Readiness: {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { enum: ['ready', 'unavailable'] },
      checks: {
        type: 'object',
        required: ['postgres', 'redis'],
        properties: { postgres: ref('Check'), redis: ref('Check') },
      },
    },
  },
  Check: {
    type: 'object',
    required: ['ok'],
    properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
  },
} as const;
