import { pathParam } from '../../params.js';
import { joiBody, joiQuery } from '../../contract.js';
import {
  clientHeaders,
  closed,
  dateTime,
  json,
  moderatorErrors,
  problem,
  rateLimited,
  ref,
  studioErrors,
} from '../../openapi-parts.js';
import { moderatorSecurity } from '../../openapi-security.js';
import { SANCTION_TYPES } from '../../../common/data/repos/sanctions.js';
import { MEMBER_STATES, WAVE_STATES } from '../../../common/lifecycles/wave.js';
import {
  memberListSchema,
  studioWaveSchema,
  waveListSchema,
  waveNoteSchema,
  waveSchema,
} from '../../../common/usecases/waves.js';

/** The OpenAPI operations of ban waves (routes.ts beside it; docs/moderators.md "Waves"). */
const waveId = pathParam('waveId');
const conflicts = {
  approve: 'wave_not_awaiting_approval: only a wave awaiting approval is approved.',
  cancel: 'wave_not_cancellable: only a wave not yet started (awaiting approval or scheduled) is cancelled.',
  roll_back: 'wave_not_done: only a wave that has run (done) is rolled back.',
} as const;

/** The operations of one side: moderators under /v1/admin/waves, a studio under /v1/waves. */
function side(studio: boolean) {
  const who = studio ? " (the studio's own)" : '';
  const errors = studio ? studioErrors : moderatorErrors;
  const ok = <R extends object>(r: R) => (studio ? rateLimited(r) : r);
  const common = studio ? { parameters: clientHeaders } : { security: moderatorSecurity };
  const params = (...p: object[]) => (studio ? [...p, ...clientHeaders] : p);
  const id = studio ? 'Studio' : '';
  const decide = (event: 'approve' | 'cancel' | 'roll_back') => ({
    post: {
      operationId: `${event === 'roll_back' ? 'rollBack' : event}${id}Wave`,
      tags: ['waves'],
      summary:
        event === 'approve'
          ? 'Approve a wave awaiting a second moderator (admins; not its maker); it is then scheduled'
          : event === 'cancel'
            ? `Cancel a wave before it runs, with a reason${who}`
            : `Roll back a wave that ran: each sanction it placed is revoked with the reason${who}`,
      ...common,
      parameters: params(waveId),
      ...(event === 'approve' ? {} : { requestBody: joiBody(waveNoteSchema) }),
      responses: {
        ...(event === 'roll_back'
          ? { 202: ok(json(ref('Wave'), 'Rolling back; follow the wave.')) }
          : { 200: ok(json(ref('Wave'), 'The wave as it is now.')) }),
        ...(event === 'approve'
          ? {}
          : { 400: problem('A missing reason.'), 415: problem('Body is not JSON.') }),
        ...(event === 'approve'
          ? { 403: problem('forbidden: admins only; own_wave: the moderator who made it.') }
          : studio
            ? {}
            : { 403: problem('forbidden.') }),
        404: problem('No such wave' + (studio ? ", or not the studio's." : '.')),
        409: problem(conflicts[event]),
        ...errors,
      },
    },
  });
  return {
    root: {
      post: {
        operationId: `create${id}Wave`,
        tags: ['waves'],
        summary: studio
          ? "Make a ban wave of the studio's players: one sanction each, in its games, at one time"
          : 'Make a ban wave: one sanction each for up to WAVE_MAX_PLAYERS players (or the players of cases), at one time',
        description: studio
          ? "Scheduled at once (the studio decides in its own games). Players not of the studio's games, unknown or erased are named in unmatched and left out. The body may be up to WAVE_BODY_LIMIT (2 MB)."
          : 'Scheduled, or awaiting a second moderator (an admin) when it names more than WAVE_APPROVAL_ABOVE players or bans for good (docs/moderators.md "Waves": four eyes). Unknown or erased players (or cases not found) are named in unmatched and left out. The body may be up to WAVE_BODY_LIMIT (2 MB).',
        ...common,
        requestBody: joiBody(studio ? studioWaveSchema : waveSchema),
        responses: {
          201: ok({
            ...json(ref('WaveCreated'), 'Made; Location names the wave to follow.'),
            headers: { Location: { schema: { type: 'string' } } },
          }),
          400: problem('A bad body, more players than WAVE_MAX_PLAYERS, or nobody the caller may sanction.'),
          413: problem('A body over WAVE_BODY_LIMIT.'),
          415: problem('Body is not JSON.'),
          ...errors,
        },
      },
      get: {
        operationId: `list${id}Waves`,
        tags: ['waves'],
        summary: `Waves, newest first${who}`,
        ...common,
        parameters: params(...joiQuery(waveListSchema)),
        responses: {
          200: ok(
            json(
              closed({
                items: { type: 'array', items: ref('Wave') },
                nextCursor: { type: ['string', 'null'] },
              }),
              'A page of waves.',
            ),
          ),
          400: problem('A bad query parameter.'),
          ...errors,
        },
      },
    },
    one: {
      get: {
        operationId: `get${id}Wave`,
        tags: ['waves'],
        summary: `A wave: its state and progress${who}`,
        ...common,
        parameters: params(waveId),
        responses: {
          200: ok(json(ref('Wave'), 'The wave.')),
          404: problem('No such wave' + (studio ? ", or not the studio's." : '.')),
          ...errors,
        },
      },
    },
    members: {
      get: {
        operationId: `list${id}WaveMembers`,
        tags: ['waves'],
        summary: `A wave's players, each with its result (pending, placed with its sanction, skipped, revoked)${who}`,
        ...common,
        parameters: params(waveId, ...joiQuery(memberListSchema)),
        responses: {
          200: ok(
            json(
              closed({
                items: { type: 'array', items: ref('WaveMember') },
                nextCursor: { type: ['string', 'null'] },
              }),
              'A page of members, in a stable order.',
            ),
          ),
          400: problem('A bad query parameter.'),
          404: problem('No such wave' + (studio ? ", or not the studio's." : '.')),
          ...errors,
        },
      },
    },
    approve: decide('approve'),
    cancel: decide('cancel'),
    rollback: decide('roll_back'),
  };
}

const moderators = side(false);
const studios = side(true);
export const paths = {
  '/v1/admin/waves': moderators.root,
  '/v1/admin/waves/{waveId}': moderators.one,
  '/v1/admin/waves/{waveId}/members': moderators.members,
  '/v1/admin/waves/{waveId}/approve': moderators.approve,
  '/v1/admin/waves/{waveId}/cancel': moderators.cancel,
  '/v1/admin/waves/{waveId}/rollback': moderators.rollback,
  '/v1/waves': studios.root,
  '/v1/waves/{waveId}': studios.one,
  '/v1/waves/{waveId}/members': studios.members,
  '/v1/waves/{waveId}/cancel': studios.cancel,
  '/v1/waves/{waveId}/rollback': studios.rollback,
};

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const by = {
  oneOf: [
    closed({ kind: { enum: ['moderator', 'studio'] }, id: { type: 'string', format: 'uuid' } }),
    { type: 'null' },
  ],
} as const;
const note = (what: string) =>
  ({
    oneOf: [closed({ by, at: dateTime, reason: nullableString }), { type: 'null' }],
    description: what,
  }) as const;

const waveProperties = {
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string' },
  state: {
    enum: [...WAVE_STATES],
    description:
      'awaiting_approval (four eyes) -> scheduled -> running -> done; cancelled before it runs; rolling_back -> rolled_back after.',
  },
  runAt: dateTime,
  sanction: closed({
    type: { enum: [...SANCTION_TYPES] },
    scope: { type: 'string', description: '"global" or the id of the studio whose games it applies to.' },
    reason: { type: 'string' },
    durationSeconds: { type: ['integer', 'null'] },
    dsaCategory: nullableString,
  }),
  size: { type: 'integer', description: 'Players in the wave.' },
  pending: { type: 'integer', description: 'Players not reached yet.' },
  placed: { type: 'integer', description: 'Sanctions placed (each with its statement of reasons).' },
  skipped: { type: 'integer', description: 'Players skipped (erased before the wave reached them).' },
  revoked: { type: 'integer', description: 'Sanctions revoked by a roll back.' },
  createdBy: closed({
    kind: { enum: ['moderator', 'studio'] },
    id: { type: 'string', format: 'uuid' },
    name: nullableString,
  }),
  createdAt: dateTime,
  approval: {
    oneOf: [
      closed({
        by: {
          oneOf: [closed({ id: { type: 'string', format: 'uuid' }, name: nullableString }), { type: 'null' }],
        },
        at: nullableDate,
      }),
      { type: 'null' },
    ],
    description: 'A wave that needed a second moderator: who approved it and when (null while awaiting).',
  },
  startedAt: nullableDate,
  finishedAt: nullableDate,
  cancelled: note('Who cancelled it, when and why.'),
  rollBack: note('Who asked for the roll back, when and why.'),
} as const;

export const schemas = {
  Wave: closed(waveProperties),
  WaveCreated: closed({
    ...waveProperties,
    unmatched: {
      type: 'array',
      items: { type: 'string' },
      description:
        "The players (or cases) named that are not in the wave: unknown, erased, or not the studio's.",
    },
  }),
  WaveMember: closed({
    serviceId: { type: 'string' },
    state: { enum: [...MEMBER_STATES] },
    sanctionId: { type: ['string', 'null'], format: 'uuid' },
    skipReason: nullableString,
    doneAt: nullableDate,
  }),
} as const;
