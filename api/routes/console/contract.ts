import { joiBody } from '../../contract.js';
import { closed, json, problem, ref } from '../../openapi-parts.js';
import { sessionBody } from '../admin/schema.js';
import { MODERATOR_ROLES } from '../../../common/data/repos/moderation.js';

/** The OpenAPI operations of the console routes (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
  '/v1/admin/console-session': {
    post: {
      operationId: 'consoleSignIn',
      tags: ['moderation'],
      summary: 'Sign in to the moderator console: an HttpOnly session cookie',
      description:
        'Sets pt_console (HttpOnly, SameSite=Strict, Secure over https). Writes with the cookie must send the csrfToken of this answer in X-CSRF-Token. The session ends after CONSOLE_IDLE_TIMEOUT_SECONDS without a request, or CONSOLE_SESSION_MAX_SECONDS after sign-in. The same lockout as POST /v1/admin/session.',
      requestBody: joiBody(sessionBody),
      responses: {
        201: json(ref('ConsoleSession'), 'Signed in.'),
        400: problem('No username or password.'),
        401: problem('invalid_credentials.'),
        415: problem('Body is not JSON.'),
        429: {
          ...problem('too_many_attempts: the account or address is locked; Retry-After says when.'),
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
        },
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
    get: {
      operationId: 'consoleSession',
      tags: ['moderation'],
      summary: "The console session's moderator and CSRF token",
      security: [{ consoleSession: [] }],
      responses: {
        200: json(ref('ConsoleSession'), 'Signed in.'),
        204: { description: 'No console session cookie: not signed in (a first visit).' },
        401: problem(
          'The session cookie no longer opens a session: it expired (idle or absolute) or was signed out.',
        ),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
    delete: {
      operationId: 'consoleSignOut',
      tags: ['moderation'],
      summary: 'Sign out of the console (X-CSRF-Token required)',
      security: [{ consoleSession: [] }],
      responses: {
        204: { description: 'Signed out; the cookie is cleared.' },
        401: problem('No live session.'),
        403: problem('csrf_failed: no or a wrong X-CSRF-Token.'),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  },
  '/console': {
    get: {
      operationId: 'console',
      tags: ['moderation'],
      summary: 'The moderator console (a single-page app; every /console/... path serves it)',
      responses: {
        200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        503: problem('console_not_built: run npm run build.'),
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'apiReference',
      tags: ['operations'],
      summary: 'This document rendered for reading (Swagger UI, served from here)',
      responses: {
        200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
  },
  '/favicon.ico': {
    get: {
      operationId: 'favicon',
      tags: ['operations'],
      summary: "The service's icon (SVG), for the pages' browser tabs",
      responses: {
        200: { description: 'The icon.', content: { 'image/svg+xml': { schema: { type: 'string' } } } },
      },
    },
  },
  '/': {
    get: {
      operationId: 'landing',
      tags: ['operations'],
      summary:
        'Where to go: every page a person opens (the console, the API reference, the standing page, the notice form) and this document',
      responses: {
        200: {
          description: 'A small page for a browser (Accept: text/html), JSON otherwise.',
          content: {
            'application/json': {
              schema: closed({
                name: { type: 'string' },
                docs: { type: 'string' },
                console: { type: 'string' },
                openapi: { type: 'string' },
                standing: { type: 'string', description: "Players' standing page." },
                notice: {
                  type: 'string',
                  description:
                    'The public notice form (EU DSA Art. 16): anyone reports illegal content or behaviour.',
                },
                noticeStatus: { type: 'string', description: 'Where a notice stands, with its receipt.' },
                mailbox: {
                  type: ['string', 'null'],
                  description:
                    "The development mailbox's page, where the mails to notifiers land when `npm start` runs without SMTP_URL; null otherwise.",
                },
              }),
            },
            'text/html': { schema: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** Components of the document that only this feature's answers use. */
export const schemas = {
  ConsoleSession: closed({
    moderator: closed({
      id: { type: 'string' },
      username: { type: 'string' },
      displayName: { type: 'string' },
      role: { enum: [...MODERATOR_ROLES] },
    }),
    csrfToken: { type: 'string', description: 'Send it in X-CSRF-Token with every write.' },
    idleTimeoutSeconds: { type: 'integer' },
  }),
} as const;
