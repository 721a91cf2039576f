import { pathParam } from '../../params.js';
import { joiBody } from '../../contract.js';
import { closed, dateTime, json, moderatorErrors, problem, ref } from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { SANCTION_TYPES } from '../../../common/domain/sanctions.js';
import { templateSchema } from '../../../common/usecases/templates.js';
import { OUTCOMES } from '../../../common/data/repos/moderation.js';

/** The OpenAPI operations of the decision templates (routes.ts beside it); api/openapi.ts assembles them. */
const templateId = pathParam('templateId');

export const paths = {
  '/v1/admin/templates': {
    get: {
      operationId: 'listDecisionTemplates',
      tags: ['moderation'],
      summary:
        'The decision templates in use (canned reasons), oldest first: the console keys them 1, 2, ...',
      security: moderatorSecurity,
      responses: {
        200: json(closed({ items: { type: 'array', items: ref('DecisionTemplate') } }), 'The templates.'),
        ...moderatorErrors,
      },
    },
    post: {
      operationId: 'createDecisionTemplate',
      tags: ['moderation'],
      summary: 'Add a decision template (admins)',
      description:
        "A template sets a decision's outcome, optionally a sanction's type and duration (upheld only; a restriction or a temporary ban needs a duration, a permanent ban has none), and the reason the player reads in the statement of reasons.",
      security: moderatorSecurity,
      requestBody: joiBody(templateSchema),
      responses: {
        201: json(ref('DecisionTemplate'), 'Added.'),
        400: problem('A missing or bad field, or a sanction the outcome or type does not allow.'),
        403: problem('forbidden: admins only.'),
        415: problem('Body is not JSON.'),
        ...moderatorErrors,
      },
    },
  },
  '/v1/admin/templates/{templateId}': {
    delete: {
      operationId: 'archiveDecisionTemplate',
      tags: ['moderation'],
      summary: 'Archive a decision template (admins): it leaves the decision panel',
      security: moderatorSecurity,
      parameters: [templateId],
      responses: {
        204: { description: 'Archived.' },
        403: problem('forbidden: admins only.'),
        404: problem('No such template in use.'),
        ...moderatorErrors,
      },
    },
  },
};

/** Components of the document that only this feature's answers use. */
export const schemas = {
  DecisionTemplate: closed({
    id: { type: 'string' },
    title: { type: 'string' },
    outcome: { enum: OUTCOMES },
    sanctionType: { enum: [...SANCTION_TYPES, null] },
    durationSeconds: { type: ['integer', 'null'] },
    playerReason: { type: 'string', description: "The reason the player reads in the decision's statement." },
    createdAt: dateTime,
  }),
} as const;
