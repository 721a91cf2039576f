import { pathParam } from '../../params.js';
import { joiBody } from '../../contract.js';
import {
  closed,
  dateTime,
  json,
  moderatorErrors,
  problem,
  ref,
  serviceIdParam,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { noteSchema } from '../../../common/usecases/notes.js';

/** The OpenAPI operations of internal notes (routes.ts beside it); api/openapi.ts assembles them. */
const caseIdParam = pathParam('caseId');

const thread = (of: 'case' | 'player', parameter: object) => ({
  get: {
    operationId: of === 'case' ? 'listCaseNotes' : 'listPlayerNotes',
    tags: ['moderation'],
    summary:
      of === 'case'
        ? "A case's internal notes, oldest first"
        : "A player's internal notes, on the player and on each of their cases, oldest first",
    description: 'Moderators only; the latest 200. Never shown to a studio or the player.',
    security: moderatorSecurity,
    parameters: [parameter],
    responses: {
      200: json(closed({ items: { type: 'array', items: ref('Note') } }), 'The notes.'),
      404: problem(`No such ${of}.`),
      ...moderatorErrors,
    },
  },
  post: {
    operationId: of === 'case' ? 'addCaseNote' : 'addPlayerNote',
    tags: ['moderation'],
    summary: of === 'case' ? 'Add an internal note to a case' : 'Add an internal note to a player',
    description: 'Audited (add_note, with the note). Never shown to a studio or the player.',
    security: moderatorSecurity,
    parameters: [parameter],
    requestBody: joiBody(noteSchema),
    responses: {
      201: json(ref('Note'), 'Added.'),
      400: problem('The note is missing, blank or too long.'),
      404: problem(`No such ${of}.`),
      415: problem('Body is not JSON.'),
      ...moderatorErrors,
    },
  },
});

export const paths = {
  '/v1/admin/cases/{caseId}/notes': thread('case', caseIdParam),
  '/v1/admin/players/{serviceId}/notes': thread('player', serviceIdParam),
};

/** Components of the document that only this feature's answers use. */
export const schemas = {
  Note: closed({
    id: { type: 'string' },
    caseId: { type: ['string', 'null'], description: 'The case it is on; null: on the player.' },
    author: closed({ id: { type: 'string' }, username: { type: 'string' } }),
    body: { type: 'string' },
    createdAt: dateTime,
  }),
} as const;
