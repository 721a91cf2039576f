import { joiBody } from '../../contract.js';
import { clientHeaders, closed, json, problem, rateLimited, studioErrors } from '../../openapi-parts.js';
import {
  MATCH_PLAYERS_MAX,
  MATCHES_BULK_MAX,
  MATCH_REJECTIONS,
  matchesBodySchema,
  matchSchema,
} from '../../../common/domain/matches.js';

/** The OpenAPI operations of the matches routes (routes.ts beside it); api/openapi.ts assembles them. */

const itemAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['index', 'matchId', 'status'],
  properties: {
    index: { type: 'integer', minimum: 0, description: "The match's place in the request." },
    matchId: { type: ['string', 'null'], description: 'null: the entry had no readable matchId.' },
    status: {
      enum: ['accepted', 'duplicate', 'rejected'],
      description:
        'accepted: queued to be recorded; duplicate: recorded (or sent earlier in this request) with the same players and results, nothing new; rejected: see code.',
    },
    code: { enum: [...MATCH_REJECTIONS], description: 'Only when rejected.' },
    message: { type: 'string', description: 'Only when rejected: what is wrong, for a person.' },
    fields: {
      type: 'array',
      description: 'With validation_failed: each bad field, as matches.<index>.<path>.',
      items: closed({ field: { type: 'string' }, message: { type: 'string' } }),
    },
  },
} as const;

export const matchesAnswer = closed({
  accepted: { type: 'integer', minimum: 0 },
  duplicates: { type: 'integer', minimum: 0 },
  rejected: { type: 'integer', minimum: 0 },
  results: { type: 'array', items: itemAnswer, description: 'One per match sent, in the order sent.' },
});

export const paths = {
  '/v1/matches': {
    post: {
      operationId: 'recordMatches',
      tags: ['matches'],
      summary: 'Finished matches, in bulk: who played, on which team and party, and how it went',
      description: `Up to ${MATCHES_BULK_MAX} matches of the studio's games, each with up to ${MATCH_PLAYERS_MAX} players. Each match is answered on its own, so one bad match never refuses the others: accepted (queued: the matches worker records it within moments), duplicate (a match is recorded once by its matchId; the same players and results again change nothing), or rejected with a code (validation_failed, duplicate_player: a player twice; party_across_teams; match_out_of_range: an end before the start, in the future, more than a day after the start, or older than MATCH_RETENTION_DAYS; unknown_game; unknown_player: not a player of the studio's games; match_conflict: the matchId is recorded with other players or results; invalid_commendation: a player commended themselves or someone not in the match). Nothing is stored for a rejected match. Recording a match counts down, once, the restrictions counted in matches of each player who finished it (leftEarly false), and records, once, its commendations (weighed: 4 quarters from outside the recipient's party, 1 from within it, 0 for a repeat or a return within 7 days or strongly linked accounts), each player's honor and the trust recovery credit of matches finished without a report (docs/studios.md "Commendations and honor"). Counts as one request against the reports rate. docs/studios.md "Matches".`,
      parameters: clientHeaders,
      requestBody: {
        ...joiBody(matchesBodySchema),
        description: `{ matches: [...] }, each match as MatchInput: ${Object.keys(matchSchema.describe().keys ?? {}).join(', ')}.`,
      },
      responses: {
        202: rateLimited(
          json(matchesAnswer, "Each match's answer; at least one was accepted or a duplicate."),
        ),
        400: problem(
          `validation_failed: no matches list, or more than ${MATCHES_BULK_MAX}; matches_rejected: every match was rejected, each match's answer in results (as in a 202). Nothing was stored.`,
        ),
        413: problem('Body too large.'),
        415: problem('Body is not JSON.'),
        ...studioErrors,
      },
    },
  },
} as const;
