import { headerParam } from '../../params.js';
import { joiBody } from '../../contract.js';
import {
  clientHeaders,
  closed,
  json,
  problem,
  rateLimited,
  ref,
  serviceIdParam,
  tooMany,
} from '../../openapi-parts.js';
import { batchSchema } from './schema.js';
import { REPORT_ENVELOPES, type ReportKind } from '../../../common/domain/reports.js';

/** The OpenAPI operations of the reports routes (routes.ts beside it); api/openapi.ts assembles them. */
/** A report submission: its request rule is the kind's Joi envelope (common/domain/reports.ts). */
function reportOperation(kind: ReportKind, summary: string, bodySchema: string, cap: string) {
  return {
    post: {
      operationId: `submit${bodySchema.replace('Report', '')}Report`,
      tags: ['reports'],
      summary,
      description: `Normalises the report, stores it as an offense and lowers the player's trust score by the penalty rule of this kind (at most ${cap} by default) in one transaction. A report whose flag is false is stored with penalty 0.`,
      parameters: [serviceIdParam, ...clientHeaders, headerParam('Idempotency-Key')],
      requestBody: joiBody(REPORT_ENVELOPES[kind]),
      responses: {
        201: rateLimited(
          json(
            ref('ReportSubmitResponse'),
            'Report stored; its points applied, held for a moderator (status held) or none (status recorded).',
          ),
        ),
        400: problem('Invalid body: the offending fields are listed in errors; nothing was stored.'),
        401: problem('Missing, unknown or wrong client credentials.'),
        404: problem('Unknown player; nothing was stored.'),
        409: problem(
          'idempotency_key_in_flight: the key is held by a request of a version before 1.9.0 that never finished (at most 60 s); duplicate_report: the same reporter already reported this player for this kind in this match (24 h) or, without matchId, within the hour; offenseId names the stored one; nothing was stored again.',
        ),
        413: problem('Body too large.'),
        415: problem('Body is not JSON.'),
        422: problem('Idempotency-Key reused with a different body.'),
        429: tooMany(
          "rate_limited: over the client's report rate; reporter_quota_exceeded: the reporterId used up its reports for the day at this studio. Retry-After says when; nothing was stored.",
        ),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  };
}

export const paths = {
  '/v1/reports/batch': {
    post: {
      operationId: 'submitReportBatch',
      tags: ['reports'],
      summary: 'Submit up to 100 reports of any kinds at once',
      description:
        'Each report is handled exactly as its single endpoint would handle it (validation, idempotency, duplicates, quota, budget) and answered in order with the status and body that endpoint would have sent; a failed one applies nothing, the others are stored. Reports without an Idempotency-Key are filed together, in one statement and one commit. Rate limits count reports, not requests.',
      parameters: clientHeaders,
      requestBody: joiBody(batchSchema),
      responses: {
        207: rateLimited(
          json(
            closed({
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['status', 'body'],
                  properties: {
                    status: {
                      type: 'integer',
                      description: 'What the single endpoint would have answered.',
                    },
                    replayed: { const: true, description: 'An Idempotency-Key replay.' },
                    body: {
                      oneOf: [ref('ReportSubmitResponse'), ref('ErrorResponse')],
                      description: 'The 201 body, or the problem document of the failure.',
                    },
                  },
                },
              },
            }),
            'One result per report, in order.',
          ),
        ),
        400: problem(
          'The envelope is malformed (no reports, more than 100, an unknown kind); nothing was stored.',
        ),
        401: problem('Missing, unknown or wrong client credentials.'),
        413: problem('Body too large.'),
        415: problem('Body is not JSON.'),
        429: tooMany(
          'rate_limited: the reports would take the client over its report rate; nothing was stored.',
        ),
        500: problem('Server error.'),
        503: problem('A backing service is unavailable; retry.'),
      },
    },
  },
  '/v1/anticheat/submitReport/{serviceId}': reportOperation(
    'anticheat',
    'Submit an anti-cheat report',
    'AntiCheatReport',
    '20',
  ),
  '/v1/toxicity/submitReport/{serviceId}': reportOperation(
    'toxicity',
    'Submit a toxicity report',
    'ToxicityReport',
    '10',
  ),
  '/v1/afk/submitReport/{serviceId}': reportOperation('afk', 'Submit an AFK report', 'AfkReport', '5'),
  '/v1/griefing/submitReport/{serviceId}': reportOperation(
    'griefing',
    'Submit a griefing report',
    'GriefingReport',
    '15',
  ),
};
