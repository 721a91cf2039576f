import { pathParam } from '../../params.js';
import { joiBody } from '../../contract.js';
import { closed, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { savedFilterSchema } from '../../../common/usecases/saved-filters.js';

/** The OpenAPI operations of saved filters (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
  '/v1/admin/saved-filters': {
    get: {
      operationId: 'listSavedFilters',
      tags: ['moderation'],
      summary: "The signed-in moderator's saved queue filters, by name",
      security: moderatorSecurity,
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('SavedFilter') } }), 'Their filters.'),
        ...moderatorErrors,
      },
    },
    post: {
      operationId: 'saveFilter',
      tags: ['moderation'],
      summary: "Save the queue's filters under a name of the moderator's own",
      security: moderatorSecurity,
      requestBody: joiBody(savedFilterSchema),
      responses: {
        201: json(ref('SavedFilter'), 'Saved.'),
        400: problem('No name, or a filter the queue does not take.'),
        409: problem('filter_exists: you already have a filter of that name.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/saved-filters/{filterId}': {
    delete: {
      operationId: 'deleteSavedFilter',
      tags: ['moderation'],
      summary: 'Delete one of your saved filters',
      security: moderatorSecurity,
      parameters: [pathParam('filterId')],
      responses: {
        204: { description: 'Deleted.' },
        404: problem('No such filter of yours.'),
        ...moderatorErrors,
      },
    },
  },
};

/** Components of the document that only this feature's answers use. */
export const schemas = {
  SavedFilter: closed({
    id: { type: 'string' },
    name: { type: 'string' },
    filters: { type: 'object', additionalProperties: { type: 'string' } },
  }),
} as const;
