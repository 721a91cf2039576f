import { requestComponents } from './contract.js';
import { errorResponse, ref } from './openapi-parts.js';
import { finishDocument, securitySchemes } from './openapi-security.js';
import { viewSchemas } from '../common/view-schemas.js';
import * as docs from './routes/docs/contract.js';
import * as operations from './routes/operations/contract.js';
import * as health from './routes/health/contract.js';
import * as oauth from './routes/oauth/contract.js';
import * as players from './routes/players/contract.js';
import * as reports from './routes/reports/contract.js';
import * as admin from './routes/admin/contract.js';
import * as consolePages from './routes/console/contract.js';
import * as webhooks from './routes/webhooks/contract.js';
import * as sanctions from './routes/sanctions/contract.js';
import * as appeals from './routes/appeals/contract.js';
import * as templates from './routes/templates/contract.js';
import * as transparency from './routes/transparency/contract.js';
import * as compliance from './routes/compliance/contract.js';
import * as erasures from './routes/erasures/contract.js';
import * as retention from './routes/retention/contract.js';
import * as waves from './routes/waves/contract.js';
import * as rules from './routes/rules/contract.js';
import * as notices from './routes/notices/contract.js';
import * as notes from './routes/notes/contract.js';
import * as tags from './routes/tags/contract.js';
import * as savedFilters from './routes/saved-filters/contract.js';
import * as queues from './routes/review-queues/contract.js';
import * as signals from './routes/signals/contract.js';
import * as matches from './routes/matches/contract.js';

/** The contract's version: the newest entry of CHANGELOG.md (a test holds them equal). */
export const CONTRACT_VERSION = '1.21.1';

/**
 * The OpenAPI 3.1 document, served at /v1/openapi.json. Every response the tests receive is checked
 * against it (test/integration/openapi.test.ts), so it cannot drift from the code unnoticed.
 */
const draft = {
  openapi: '3.1.0',
  info: {
    title: 'player-trust',
    // Moves with the contract (CHANGELOG.md): minor for additions, never a breaking change within /v1.
    version: CONTRACT_VERSION,
    description:
      'Trust profiles and misbehaviour reports for game studios. Errors are RFC 9457 problem documents with a stable code. Within /v1 nothing a client relies on is removed or changes meaning; an operation to be removed is first marked deprecated (deprecated: true here; Deprecation and Sunset headers on its answers) at least six months before its sunset. Changes are listed by version in CHANGELOG.md.',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [{ url: '/' }],
  tags: [
    {
      name: 'oauth',
      description: 'Players sign in to a game (authorization code with PKCE, refresh tokens).',
    },
    {
      name: 'players',
      description: "Players' trust profiles, offenses and trust history, and creating players.",
    },
    { name: 'reports', description: 'Reporting misbehaviour, one at a time or in bulk.' },
    { name: 'moderation', description: 'The review queue for moderators.' },
    { name: 'webhooks', description: "A studio's webhooks (Standard Webhooks) and their delivery log." },
    { name: 'sanctions', description: 'Bans, suspensions, mutes and warnings.' },
    { name: 'appeals', description: 'Appeals of sanctions and offenses.' },
    {
      name: 'rules',
      description:
        'Rules that act on their own: tried in the background first, then live, within a cooldown and a cap.',
    },
    {
      name: 'waves',
      description:
        'Ban waves: one sanction each for many players at one time, approved by a second moderator when large.',
    },
    {
      name: 'notices',
      description: 'Notices from anyone (DSA Art. 16) and trusted flaggers (Art. 22), and where each stands.',
    },
    {
      name: 'transparency',
      description:
        'Statements of reasons sent to the EU’s DSA Transparency Database and its accounts; the transparency report, and the orders and out-of-court disputes it counts.',
    },
    {
      name: 'matches',
      description:
        'Finished matches in bulk: restrictions counted in matches count down as players finish them.',
    },
    { name: 'operations', description: 'Health, readiness, metrics, this document and the queue board.' },
  ],
  paths: {
    ...docs.paths,
    ...operations.paths,
    ...health.paths,
    ...oauth.paths,
    ...players.paths,
    ...reports.paths,
    ...admin.paths,
    ...consolePages.paths,
    ...webhooks.paths,
    ...sanctions.paths,
    ...appeals.paths,
    ...templates.paths,
    ...notes.paths,
    ...tags.paths,
    ...savedFilters.paths,
    ...queues.paths,
    ...transparency.paths,
    ...compliance.paths,
    ...erasures.paths,
    ...retention.paths,
    ...waves.paths,
    ...rules.paths,
    ...notices.paths,
    ...signals.paths,
    ...matches.paths,
  },
  components: {
    securitySchemes,
    responses: {
      MethodNotAllowed: {
        description:
          'method_not_allowed: this path does not take that method; Allow lists the methods it takes (those documented here).',
        headers: { Allow: { schema: { type: 'string' } } },
        content: { 'application/problem+json': { schema: ref('ErrorResponse') } },
      },
    },
    schemas: {
      // Request schemas named in the Joi rules (.id()): the report bodies and their evidence.
      ...requestComponents(),
      // What the views of common/views.ts render.
      ...viewSchemas,
      // What one feature's answers alone use.
      ...oauth.schemas,
      ...health.schemas,
      ...admin.schemas,
      ...consolePages.schemas,
      ...templates.schemas,
      ...notes.schemas,
      ...savedFilters.schemas,
      ...queues.schemas,
      ...transparency.schemas,
      ...compliance.schemas,
      ...erasures.schemas,
      ...retention.schemas,
      ...waves.schemas,
      ...rules.schemas,
      ...notices.schemas,
      ErrorResponse: errorResponse,
    },
  },
} as const;

export const openApiDocument = finishDocument(draft);
