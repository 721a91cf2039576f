import { pathParam } from '../../params.js';
import { joiBody } from '../../contract.js';
import { closed, json, moderatorErrors, problem, serviceIdParam } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { tagSchema } from '../../../common/usecases/tags.js';

/** The OpenAPI operations of tags (routes.ts beside it); api/openapi.ts assembles them. */
const caseIdParam = pathParam('caseId');
const tagParam = pathParam('tag');
const tags = closed({ tags: { type: 'array', items: { type: 'string' } } });

const ops = (of: 'case' | 'player', parameter: object) => {
  const name = of === 'case' ? 'Case' : 'Player';
  return {
    list: {
      get: {
        operationId: `list${name}Tags`,
        tags: ['moderation'],
        summary: `A ${of}'s tags, in order`,
        security: moderatorSecurity,
        parameters: [parameter],
        responses: { 200: json(tags, 'The tags.'), 404: problem(`No such ${of}.`), ...moderatorErrors },
      },
      post: {
        operationId: `add${name}Tag`,
        tags: ['moderation'],
        summary: `Tag a ${of} (a tag it has already changes nothing)`,
        description: 'Moderators only; the queue filters by a case tag (tag=).',
        security: moderatorSecurity,
        parameters: [parameter],
        requestBody: joiBody(tagSchema),
        responses: {
          200: json(tags, 'The tags after.'),
          400: problem('Not a tag: 1 to 32 letters, digits, _ or -.'),
          403: problem(protectedTag),
          404: problem(`No such ${of}.`),
          415: problem('Body is not JSON.'),
          ...moderatorErrors,
        },
      },
    },
    one: {
      delete: {
        operationId: `remove${name}Tag`,
        tags: ['moderation'],
        summary: `Remove a tag from a ${of}`,
        security: moderatorSecurity,
        parameters: [parameter, tagParam],
        responses: {
          200: json(tags, 'The tags after.'),
          403: problem(protectedTag),
          404: problem(`No such ${of}, or it has no such tag.`),
          ...moderatorErrors,
        },
      },
    },
  };
};

const protectedTag = 'protected_tag: only admins set or remove a protected tag (PROTECTED_TAGS).';

const onCase = ops('case', caseIdParam);
const onPlayer = ops('player', serviceIdParam);
export const paths = {
  '/v1/admin/cases/{caseId}/tags': onCase.list,
  '/v1/admin/cases/{caseId}/tags/{tag}': onCase.one,
  '/v1/admin/players/{serviceId}/tags': onPlayer.list,
  '/v1/admin/players/{serviceId}/tags/{tag}': onPlayer.one,
};
