import { json } from '../../openapi-parts.js';

/** The OpenAPI operations of the docs routes (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
  '/v1/openapi.json': {
    get: {
      operationId: 'openApiDocument',
      tags: ['operations'],
      summary: 'This document (OpenAPI 3.1)',
      responses: {
        200: json(
          {
            type: 'object',
            required: ['openapi', 'info', 'paths'],
            properties: {
              openapi: { type: 'string' },
              info: { type: 'object' },
              paths: { type: 'object' },
            },
          },
          'The document (Cache-Control: public, max-age=300).',
        ),
      },
    },
  },
};
