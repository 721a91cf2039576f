import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { SIGNAL_KINDS } from './domain/signals.js';
import { STATUS_REASONS } from './domain/filing-rules.js';
import { TDB } from './domain/transparency-vocabulary.js';
import { FILED_STATUSES, OFFENSE_STATUSES } from './lifecycles/offense.js';
import { APPEAL_STATUSES } from './lifecycles/appeal.js';
import { CASE_STATUSES } from './lifecycles/review-case.js';
import { APPEAL_REASONS } from './domain/appeals.js';
import { allRequired, closed, dateTime, offenseTypes, ref } from './schema-parts.js';
import { AUDIT_ACTIONS, MODERATOR_ROLES, OUTCOMES } from './data/repos/moderation.js';
import { SANCTION_TYPES } from './data/repos/sanctions.js';
import { DELIVERY_EVENT_TYPES, EVENT_TYPES } from './data/repos/webhooks.js';
import { EVIDENCE_TYPES, LIMITS, SEVERITIES, SOURCES } from './domain/reports.js';
import { SANCTION_MATCHES_MAX } from './domain/matches.js';

/** A sanction in force's matches left (the lobby check, the profile). */
export const MATCHES_LEFT = {
  type: ['integer', 'null'],
  minimum: 0,
  description:
    'A restriction counted in matches: the finished matches left before it ends (docs/moderators.md "Sanctions"); null: it lasts a time.',
} as const;

/** A player's honor level (docs/studios.md "Commendations and honor"). */
export const HONOR_LEVEL = {
  type: 'integer',
  minimum: 0,
  maximum: 5,
  description:
    'Honor, 0 to 5 (a new player has 2): finished matches and commendations raise it, matches left early lower it, a sanction other than a warning takes 2 levels (given back if it is revoked). For the studio to show; it never restricts anyone (docs/studios.md "Commendations and honor").',
} as const;

/** An offense's context as stored (normalised at filing) and shown in its record. */
const contextProps = {
  matchId: { type: 'string', maxLength: LIMITS.contextId },
  reporterId: { type: 'string', maxLength: LIMITS.contextId },
  occurredAt: { ...dateTime, description: 'When it happened; not in the future.' },
  source: {
    type: 'string',
    description: `A report's: one of ${SOURCES.join(', ')}; a notice's (docs/moderators.md "Notices"): notice or trusted_flagger; the service's own sign-in check's: evasion_check (a suspected evasion of a ban, docs/linked-accounts.md "Evasion at the door").`,
  },
} as const;

const claim = {
  ...closed({ moderatorId: { type: 'string' }, username: { type: 'string' }, expiresAt: dateTime }),
  type: ['object', 'null'],
  description: 'The live claim; null when unclaimed or the lease ran out.',
} as const;

const resolution = {
  ...closed({
    outcome: { enum: [...OUTCOMES] },
    note: { type: 'string' },
    moderatorId: { type: 'string' },
    username: { type: 'string' },
    resolvedAt: dateTime,
    pointsRestored: { type: 'integer', minimum: 0 },
  }),
  type: ['object', 'null'],
} as const;

const caseProperties = {
  id: { type: 'string' },
  player: closed({
    serviceId: { type: 'string' },
    gamerTag: { type: 'string' },
    trustScore: { type: 'integer', minimum: 0, maximum: 100 },
  }),
  type: { enum: offenseTypes },
  status: { enum: [...CASE_STATUSES] },
  priority: {
    type: 'number',
    description:
      "The queue's order: 25 x severity rank (low 0 .. critical 3) + 10 x highest confidence + 5 x distinct games (at most 5) + 3 x distinct reporters (at most 5) + 2 x the player's offenses before the case's first report (at most 10) + half the points held for the case (at most 25) + 50 with a trusted flagger's notice + 1000 with an urgent notice; never below a live rule's floor (docs/moderators.md \"Priority\").",
  },
  priorityScore: {
    type: 'number',
    minimum: 0,
    maximum: 100,
    description: 'priority on a 0-100 scale: priority / 220 x 100 (the most the inputs make), capped at 100.',
  },
  priorityWhy: {
    type: 'array',
    description: 'Why it stands where it does: the inputs that make priorityScore, largest first.',
    items: closed({
      input: {
        enum: [
          'severity',
          'confidence',
          'distinct_games',
          'distinct_reporters',
          'earlier_offenses',
          'held_points',
          'trusted_flagger',
          'urgent',
          'rule',
        ],
      },
      points: { type: 'number', description: 'Its share of priorityScore (0-100 scale).' },
      why: { type: 'string', description: 'In words, e.g. "3 distinct reporters".' },
    }),
  },
  urgent: {
    type: 'boolean',
    description:
      'The case holds an urgent notice (a life or safety at risk, a child involved, or a child\'s protection or self-harm by its category): first in its queue, due within URGENT_NOTICE_DUE_HOURS (docs/moderators.md "Notices": "Urgent notices").',
  },
  reportsCount: { type: 'integer' },
  highestSeverity: { enum: [...SEVERITIES] },
  totalPenalty: { type: 'integer', description: 'Points the offenses of the case deducted.' },
  distinctGames: { type: 'integer' },
  distinctReporters: { type: 'integer' },
  dueAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the case should be reviewed by: opened + CASE_DUE_HOURS of its highest severity.',
  },
  overdue: { type: 'boolean', description: 'Open and past dueAt.' },
  heldPoints: {
    type: 'integer',
    description: "Points the case's reports hold for a moderator: applied if upheld, dropped if dismissed.",
  },
  openedAt: dateTime,
  updatedAt: dateTime,
  claim,
  resolution,
  assignedTo: {
    ...closed({ moderatorId: { type: 'string' }, username: { type: 'string' } }),
    type: ['object', 'null'],
    description: 'The moderator an admin assigned it to.',
  },
  escalation: {
    ...closed({ at: dateTime, note: { type: 'string' } }),
    type: ['object', 'null'],
    description: 'Escalated to the senior role (admins see and work it), with why.',
  },
  tags: { type: 'array', items: { type: 'string' }, description: "The team's tags on the case, in order." },
  queue: {
    ...closed({
      key: { type: 'string' },
      name: { type: 'string' },
      visibleTo: { enum: MODERATOR_ROLES, description: 'admin: only admins see and work its cases.' },
      pinned: {
        type: 'boolean',
        description: 'Moved here by a moderator (escalated to this queue): the routing rules leave it here.',
      },
    }),
    description:
      'The review queue the case is in: routed by the rules (GET /v1/admin/queue-rules) or moved by hand.',
  },
} as const;

const webhookProperties = {
  id: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'array', items: { enum: [...EVENT_TYPES] } },
  enabled: { type: 'boolean' },
  disabledAt: { type: ['string', 'null'], format: 'date-time' },
  disabledReason: {
    enum: ['studio', 'failing', null],
    description:
      'studio: turned off with PATCH; failing: disabled automatically after WEBHOOK_DISABLE_AFTER_FAILURES deliveries in a row failed for the whole retry window.',
  },
  consecutiveFailures: {
    type: 'integer',
    description:
      'Deliveries in a row that failed for good (every attempt of their retry window); at WEBHOOK_DISABLE_AFTER_FAILURES the webhook is disabled. Reset by a delivered one and by turning the webhook back on.',
  },
  parkedUntil: {
    type: ['string', 'null'],
    format: 'date-time',
    description:
      'While the endpoint is parked (WEBHOOK_BREAKER_FAILURES attempts in a row failed): when its deliveries are tried again. Null when it is not parked.',
  },
  previousSecretExpiresAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'While a rotated-out secret is still signed with (the overlap), when it stops.',
  },
  createdAt: dateTime,
  updatedAt: dateTime,
} as const;

const actor = closed({ kind: { enum: ['moderator', 'studio'] }, id: { type: 'string' } });

/**
 * The response schemas of what common/views.ts renders, one beside the other: presentOffense
 * (Reportoffense, Evidence, Enrichment; PostgreSQL renders the same view for studios' reads, and
 * renderProfiles in common/data/repos/offenses.ts the PlayerDetailed profile), presentTrustChange
 * (TrustChange), presentCase (ReviewCase, ReviewCaseDetail), presentAudit (AuditEntry),
 * presentReporter (Reporter), presentWebhook (Webhook, WebhookWithSecret), presentDelivery
 * (WebhookDelivery), presentSanction (Sanction) and presentAppeal (Appeal). Every answer the tests
 * receive is validated against them.
 */
const schemas = {
  Evidence: {
    type: 'object',
    required: ['type', 'submittedAt'],
    properties: {
      type: { enum: [...EVIDENCE_TYPES] },
      url: { type: 'string' },
      content: { type: 'string' },
      submittedAt: dateTime,
      addedBy: {
        const: 'complaint',
        description:
          'Brought by the notifier\'s complaint about the notice (docs/moderators.md "Notices"); absent: the report\'s own.',
      },
      enrichment: ref('Enrichment'),
    },
  },
  Enrichment: {
    description: 'What the enrichment worker found, on each stored evidence item once it has run.',
    oneOf: [
      allRequired({
        kind: { const: 'text' },
        chars: { type: 'integer' },
        lines: { type: 'integer' },
        sha256: { type: 'string' },
        truncated: { type: 'boolean' },
        enrichedAt: dateTime,
      }),
      allRequired({
        kind: { const: 'url' },
        reachable: { type: 'boolean' },
        status: { type: ['integer', 'null'] },
        contentType: { type: ['string', 'null'] },
        bytes: { type: ['integer', 'null'], description: 'Bytes read (at most EVIDENCE_FETCH_MAX_BYTES).' },
        truncated: { type: 'boolean' },
        sha256: { type: ['string', 'null'], description: 'Of the bytes read.' },
        finalUrl: { type: ['string', 'null'], description: 'After redirects (at most 3).' },
        error: {
          type: ['object', 'null'],
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
        attempts: { type: 'integer' },
        enrichedAt: dateTime,
      }),
    ],
  },
  Reportoffense: {
    type: 'object',
    additionalProperties: false,
    description:
      'An offense. visibility "full" for the studio that reported it; "summary" (no game, studio, description, evidence, details, context) for other studios.',
    required: [
      '_id',
      'player',
      'type',
      'severity',
      'penaltyPoints',
      'penaltyHeld',
      'status',
      'penaltyRestored',
      'restoredBy',
      'restoredAt',
      'reviewedByAdmin',
      'resolved',
      'resolvedAt',
      'createdAt',
      'updatedAt',
      'visibility',
    ],
    properties: {
      _id: { type: 'string' },
      player: { type: 'string', description: "The player's serviceId." },
      game: { type: 'string' },
      studio: { type: 'string' },
      type: { enum: offenseTypes },
      description: { type: 'string' },
      severity: { enum: [...SEVERITIES] },
      penaltyPoints: {
        type: 'integer',
        minimum: 0,
        description:
          'Points this offense took off the trust score (at filing, or when its held points were released); still shown once they were given back (see penaltyRestored).',
      },
      penaltyHeld: {
        type: 'integer',
        minimum: 0,
        description: 'Points held for a moderator instead of applied (0 when none were).',
      },
      status: {
        enum: [...OFFENSE_STATUSES],
        description:
          'What became of its points. applied: taken at once; held: they wait for a moderator, then released (the case was upheld) or dropped (the case was dismissed, or an appeal granted); recorded: stored without points (the flag was false, or the reporter is muted); restored: a dismissal or a granted appeal gave its points back (applied or released before). restored, dropped and recorded are final: points come back at most once, whichever decision comes first.',
      },
      penaltyRestored: {
        type: 'integer',
        minimum: 0,
        description:
          'Points given back to the score (status restored): what it took, less any the 100 cap left no room for. For every player, trustScore = 100 - sum(penaltyPoints) + sum(penaltyRestored) + the recovery points of the trust history.',
      },
      restoredBy: {
        enum: ['dismissal', 'appeal', null],
        description:
          'The decision that gave the points back (restored) or let the held points go (dropped); null otherwise.',
      },
      restoredAt: { type: ['string', 'null'], format: 'date-time', description: 'When it did.' },
      statusReason: {
        type: ['string', 'null'],
        enum: [...STATUS_REASONS, null],
        description: 'Why the points were held or not taken (the filing studio only).',
      },
      evidence: { type: 'array', items: ref('Evidence') },
      details: {
        type: 'object',
        description: 'Normalised kind-specific fields (confidence, category, durations, ...).',
      },
      context: {
        type: 'object',
        additionalProperties: false,
        properties: contextProps,
      },
      reviewedByAdmin: { type: 'boolean' },
      resolved: { type: 'boolean' },
      resolvedAt: { type: ['string', 'null'], format: 'date-time' },
      createdAt: dateTime,
      updatedAt: dateTime,
      visibility: { enum: ['full', 'summary'] },
    },
  },
  TrustChange: closed({
    id: { type: 'string' },
    points: { type: 'integer', description: 'Negative for a deduction.' },
    scoreBefore: { type: 'integer', minimum: 0, maximum: 100 },
    scoreAfter: { type: 'integer', minimum: 0, maximum: 100 },
    reason: { enum: ['offense', 'held_released', 'dismissal', 'recovery', 'appeal'] },
    offenseId: { type: ['string', 'null'] },
    caseId: { type: ['string', 'null'] },
    createdAt: dateTime,
    visibility: { enum: ['full', 'summary'] },
  }),
  PlayerDetailed: {
    type: 'object',
    additionalProperties: false,
    required: [
      'serviceId',
      'fullName',
      'gamerTag',
      'trustScore',
      'isKycVerified',
      'games',
      'offenses',
      'offenseCount',
      'offensesNextCursor',
      'activeSanctions',
      'evasionSuspected',
      'honorLevel',
    ],
    properties: {
      serviceId: { type: 'string' },
      fullName: { type: 'string' },
      gamerTag: { type: 'string' },
      trustScore: { type: 'number', minimum: 0, maximum: 100 },
      isKycVerified: { type: 'boolean' },
      games: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['gameTitle', 'linkedAt'],
          properties: { gameTitle: { type: 'string' }, linkedAt: dateTime },
        },
      },
      offenses: {
        type: 'array',
        items: ref('Reportoffense'),
        description: 'The newest offenses (PROFILE_OFFENSES_LIMIT, 20 by default).',
      },
      offenseCount: { type: 'integer', minimum: 0 },
      offensesNextCursor: {
        type: ['string', 'null'],
        description:
          'Cursor for /v1/player/{serviceId}/offenses to read the older ones; null when all are embedded.',
      },
      activeSanctions: {
        type: 'array',
        description: "The sanctions in force now that the caller may see (global ones and its own studio's).",
        items: closed({
          id: { type: 'string' },
          type: { enum: [...SANCTION_TYPES] },
          scope: { type: 'string', description: '"global" or the studio id it is limited to.' },
          startsAt: dateTime,
          expiresAt: { type: ['string', 'null'], format: 'date-time' },
          matchesLeft: MATCHES_LEFT,
        }),
      },
      evasionSuspected: {
        type: 'boolean',
        description:
          'Whether the caller\'s own signals strongly link the player to an account under a ban in force of the same scope, and no moderator cleared it (docs/studios.md "Linked accounts"). Never a sanction by itself.',
      },
      honorLevel: HONOR_LEVEL,
    },
  },
  ReviewCase: closed(caseProperties),
  ReviewCaseDetail: closed({
    ...caseProperties,
    offenses: { type: 'array', items: ref('Reportoffense') },
    reporters: {
      type: 'array',
      items: ref('Reporter'),
      description: "The named reporters of the case's offenses, with their credibility and mute state.",
    },
    audit: { type: 'array', items: ref('AuditEntry'), description: 'Newest first (the latest 100).' },
    studioNames: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        'The name of every studio whose id appears above (offenses, reporters, sanction scopes), by id.',
    },
  }),
  AuditEntry: closed({
    id: { type: 'string' },
    moderator: {
      ...closed({ id: { type: 'string' }, username: { type: 'string' } }),
      type: ['object', 'null'],
      description: 'null when a studio acted (its own sanctions): see studioId.',
    },
    studioId: { type: ['string', 'null'] },
    studio: {
      ...closed({ id: { type: 'string' }, name: { type: 'string' } }),
      type: ['object', 'null'],
      description: 'The studio that acted (its own sanctions), by name; null when a moderator did.',
    },
    player: {
      ...closed({ serviceId: { type: 'string' }, gamerTag: { type: 'string' } }),
      type: ['object', 'null'],
      description: 'The player the action was about: of its case, appeal or sanction; null for a reporter.',
    },
    reporter: {
      ...closed({
        studioId: { type: 'string' },
        studioName: { type: 'string' },
        reporterId: { type: 'string' },
      }),
      type: ['object', 'null'],
      description: 'The reporter muted or unmuted, with its studio by name.',
    },
    caseId: { type: ['string', 'null'], description: 'null for actions outside a case (muting a reporter).' },
    action: { enum: [...AUDIT_ACTIONS] },
    summary: {
      type: 'string',
      description:
        'What was done, in words, with names (the queue, the sanction and where it applies, to whom a case was assigned): what the console and the player timeline show.',
    },
    outcome: { enum: [...OUTCOMES, null] },
    note: { type: ['string', 'null'] },
    trustScoreBefore: { type: ['integer', 'null'] },
    trustScoreAfter: { type: ['integer', 'null'] },
    details: { type: 'object' },
    createdAt: dateTime,
  }),
  Reporter: closed({
    studioId: { type: 'string' },
    reporterId: { type: 'string' },
    upheld: { type: 'integer', description: 'Its reports in cases resolved as upheld.' },
    dismissed: { type: 'integer', description: 'Its reports in cases resolved as dismissed.' },
    credibility: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: '(upheld + 1) / (upheld + dismissed + 2).',
    },
    muted: { type: 'boolean' },
    mutedAt: { type: ['string', 'null'], format: 'date-time' },
    muteNote: { type: ['string', 'null'] },
  }),
  Webhook: closed(webhookProperties),
  WebhookWithSecret: closed({
    ...webhookProperties,
    secret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      description:
        'Signing secret (Standard Webhooks: whsec_<base64>), shown once. Each delivery carries webhook-id, webhook-timestamp and webhook-signature: v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with the base64-decoded secret>.',
    },
  }),
  WebhookDelivery: closed({
    id: { type: 'string' },
    eventId: { type: 'string' },
    eventType: { enum: [...DELIVERY_EVENT_TYPES] },
    status: { enum: ['pending', 'delivered', 'failed', 'cancelled'] },
    attempts: { type: 'integer' },
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
    createdAt: dateTime,
    lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    nextAttemptAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'When the next attempt is due, while the delivery is pending after a failed attempt, or while its endpoint is parked (then when the parking ends).',
    },
    deliveredAt: { type: ['string', 'null'], format: 'date-time' },
    redeliveryOf: {
      type: ['string', 'null'],
      description: 'The delivery this one sends again (a redelivery), or null.',
    },
  }),
  Sanction: closed({
    id: { type: 'string' },
    serviceId: { type: 'string' },
    type: { enum: [...SANCTION_TYPES] },
    scope: { type: 'string', description: '"global" or the studio id it is limited to.' },
    reason: { type: 'string' },
    caseId: { type: ['string', 'null'] },
    issuedBy: actor,
    startsAt: dateTime,
    expiresAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'null: no end (a permanent ban, a warning without one), or not yet (a restriction counted in matches, until its last match is finished).',
    },
    matches: {
      oneOf: [
        closed({
          total: { type: 'integer', minimum: 1, maximum: SANCTION_MATCHES_MAX },
          left: { type: 'integer', minimum: 0 },
        }),
        { type: 'null' },
      ],
      description:
        'A restriction counted in matches (docs/moderators.md "Sanctions"): how many finished matches it lasts and how many are left; it ends when the last is finished (a match the player left does not count). null: it lasts a time.',
    },
    active: {
      type: 'boolean',
      description: 'Started, not expired and not revoked, at the time of the answer.',
    },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
    revokedBy: { ...actor, type: ['object', 'null'] },
    revokeReason: { type: ['string', 'null'] },
    createdAt: dateTime,
    dsaCategory: {
      enum: [...TDB.category, null],
      description:
        'The DSA Transparency Database category its statement gives, when whoever placed it chose one; null: the one its case\'s kind gives (docs/compliance.md "Regulation (EU DSA)").',
    },
    rule: {
      oneOf: [
        closed({ id: { type: 'string', format: 'uuid' }, version: { type: 'integer' } }),
        { type: 'null' },
      ],
      description:
        'The rule (and its version) that placed it on its own (docs/moderators.md "Rules"); issuedBy is then the admin who saved that version. null: placed by a person or the strike ladder.',
    },
  }),
  PlayerExport: {
    type: 'object',
    description:
      'A player\'s whole record (docs/compliance.md "Personal data"). Parts a studio does not get (strikes, statementsOfReasons, notes, tags) are absent from its export; the manifest lists the parts present.',
    required: [
      'manifest',
      'player',
      'games',
      'offenses',
      'trustHistory',
      'sanctions',
      'appeals',
      'signals',
      'conductSummaries',
      'reportsFiled',
    ],
    additionalProperties: false,
    properties: {
      manifest: closed({
        format: { const: 'player-trust player export' },
        version: { const: 1 },
        generatedAt: dateTime,
        serviceId: { type: 'string' },
        kind: {
          enum: ['internal', 'player copy', 'studio'],
          description:
            "What the export is: the internal one (other people's data in it: not for the player), the player's copy (the answer to their data-access request), or a studio's.",
        },
        title: { type: 'string', description: 'The same in a sentence, for whoever opens the file.' },
        viewer: { type: 'string' },
        parts: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Each part present, and what it is.',
        },
      }),
      player: closed({
        serviceId: { type: 'string' },
        fullName: { type: 'string' },
        gamerTag: { type: 'string' },
        trustScore: { type: 'integer' },
        isKycVerified: { type: 'boolean' },
        createdAt: dateTime,
      }),
      games: { type: 'array', items: closed({ title: { type: 'string' }, linkedAt: dateTime }) },
      offenses: { type: 'array', items: ref('Reportoffense') },
      trustHistory: { type: 'array', items: ref('TrustChange') },
      sanctions: { type: 'array', items: ref('Sanction') },
      strikes: {
        type: 'array',
        items: closed({
          caseId: { type: ['string', 'null'] },
          createdAt: dateTime,
          expiresAt: dateTime,
          removedAt: { type: ['string', 'null'], format: 'date-time' },
        }),
      },
      appeals: { type: 'array', items: ref('Appeal') },
      statementsOfReasons: { type: 'array', items: ref('StatementOfReasons') },
      notes: {
        type: 'array',
        items: closed({
          body: { type: 'string' },
          caseId: { type: ['string', 'null'] },
          author: { type: 'string' },
          createdAt: dateTime,
        }),
      },
      tags: { type: 'array', items: { type: 'string' } },
      accusedWords: {
        type: 'array',
        description: "The player's copy only: the chat lines the player is reported to have written.",
        items: closed({ offenseId: { type: 'string' }, reportedAt: dateTime, words: { type: 'string' } }),
      },
      signals: {
        type: 'array',
        description:
          'The kinds of value studios sent about the player\'s sign-ins and sessions, with when each was first and last seen (a studio: its own). Never a value: the service keeps only a keyed hash (docs/studios.md "Linked accounts").',
        items: closed({
          kind: { enum: [...SIGNAL_KINDS] },
          firstSeenAt: dateTime,
          lastSeenAt: dateTime,
        }),
      },
      conductSummaries: {
        type: 'array',
        description:
          'The conduct summaries the player was given (a studio: those of its games), newest first.',
        items: ref('ConductSummary'),
      },
      reportsFiled: { type: 'array', maxItems: 0, description: 'Always empty: see the manifest.' },
    },
  },
  ConductSummary: closed({
    id: { type: 'string' },
    playerId: { type: 'string' },
    trigger: {
      enum: ['matches', 'restriction'],
      description:
        "matches: the CONDUCT_SUMMARY_EVERY_MATCHES-th match in the studio's games since the last; restriction: a sanction other than a warning began (sanctionId).",
    },
    sanctionId: { type: ['string', 'null'] },
    since: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'The previous summary; null: none before.',
    },
    createdAt: dateTime,
    matches: { type: 'integer', minimum: 0 },
    finished: { type: 'integer', minimum: 0 },
    leftEarly: { type: 'integer', minimum: 0 },
    commendations: { type: 'integer', minimum: 0, description: 'Commendations counted (a weight above 0).' },
    reports: {
      type: 'integer',
      minimum: 0,
      description: "The studio's reports about the player since the last summary.",
    },
    reportingParties: {
      type: 'integer',
      minimum: 0,
      description:
        'The same, the reports of one party of one match counted once (a reporterId that is a serviceId in the match).',
    },
    activeStrikes: { type: 'integer', minimum: 0 },
    nextStep: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['strikes', 'type', 'durationSeconds', 'matches'],
      properties: {
        strikes: { type: 'integer' },
        type: { enum: [...SANCTION_TYPES] },
        durationSeconds: { type: ['integer', 'null'] },
        matches: { type: ['integer', 'null'] },
      },
      description: "The strike ladder's next rung above the strikes in force; null when none is left.",
    },
    warning: {
      type: ['string', 'null'],
      description: 'Set only when one more upheld report (one more strike) would reach nextStep.',
    },
    text: { type: 'string', description: 'The summary in plain words, as the standing page shows it.' },
  }),
  Appeal: closed({
    id: { type: 'string' },
    playerId: { type: 'string' },
    gamerTag: { type: 'string', description: "The player's gamer tag." },
    subject: {
      ...closed({ kind: { enum: ['sanction', 'offense', 'notice'] }, id: { type: 'string' } }),
      description:
        'A notice: a notifier\'s complaint about its dismissal (DSA Art. 20; docs/moderators.md "Notices").',
    },
    reason: { enum: [...APPEAL_REASONS] },
    statement: { type: 'string' },
    filedBy: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { enum: ['player', 'studio', 'notifier'] }, id: { type: 'string' } },
      additionalProperties: false,
    },
    status: { enum: [...APPEAL_STATUSES] },
    claim: {
      ...closed({ moderatorId: { type: 'string' }, expiresAt: dateTime }),
      type: ['object', 'null'],
    },
    decision: {
      ...closed({
        moderatorId: { type: 'string' },
        decidedAt: dateTime,
        note: { type: 'string' },
        pointsRefunded: { type: 'integer', minimum: 0 },
        sanctionsRevoked: {
          type: 'array',
          items: { type: 'string' },
          description: 'Granted: the sanctions of the contested decision the grant revoked.',
        },
        sanctionsKept: {
          type: 'array',
          items: closed({ sanctionId: { type: 'string' }, reason: { type: 'string' } }),
          description:
            'Granted: the sanctions of that decision the moderator kept in force, each with the reason the player reads.',
        },
        reopenedCaseId: {
          type: 'string',
          description: "A notifier's complaint granted: the case open again with the notice.",
        },
      }),
      required: ['moderatorId', 'decidedAt', 'note', 'pointsRefunded', 'sanctionsRevoked', 'sanctionsKept'],
      type: ['object', 'null'],
    },
    createdAt: dateTime,
  }),
  /** What submitReport answers (common/usecases/submit-report.ts), and a batch item's 201 body. */
  ReportSubmitResponse: {
    type: 'object',
    additionalProperties: false,
    required: [
      'message',
      'playerId',
      'gameId',
      'trustScore',
      'penaltyApplied',
      'penaltyHeld',
      'status',
      'report',
      'timestamp',
    ],
    properties: {
      message: { type: 'string' },
      playerId: { type: 'string' },
      gameId: { type: 'string' },
      trustScore: { type: 'number', minimum: 0, maximum: 100 },
      penaltyApplied: { type: 'integer', minimum: 0 },
      penaltyHeld: {
        type: 'integer',
        minimum: 0,
        description: 'Points held for a moderator: applied if the case is upheld, dropped if dismissed.',
      },
      status: {
        enum: FILED_STATUSES,
        description: 'applied now, held for a moderator, or recorded without points.',
      },
      statusReason: {
        // A studio's report is never a notice (docs/moderators.md "Notices") nor the sign-in check's own
        // filing (docs/linked-accounts.md): every other reason the domain has.
        enum: STATUS_REASONS.filter((r) => r !== 'notice' && r !== 'evasion_check'),
        description:
          "Why points were held (the studio's daily budget on this player is spent; the reporter's credibility is low; a rule holds the player's points, docs/moderators.md \"Rules\"; possible brigading: the reporter or their party reported the player in 2 other recorded matches within 7 days) or none taken (the reporter is muted; the flag was false; party_report: another member of the reporter's party reported it in the same recorded match).",
      },
      reporterQuotaRemaining: {
        type: 'integer',
        minimum: 0,
        description: 'When the report names a reporterId: its reports left today at this studio.',
      },
      report: ref('Reportoffense'),
      timestamp: dateTime,
    },
  },
} as const;

/** The decision behind an appealed offense or sanction: its case, and who resolved it. */
const caseSummary = {
  ...closed({
    id: { type: 'string' },
    status: { enum: [...CASE_STATUSES] },
    outcome: { enum: [...OUTCOMES, null] },
    note: { type: ['string', 'null'] },
    decidedBy: { type: ['string', 'null'], description: 'The username of the moderator who resolved it.' },
    resolvedAt: { type: ['string', 'null'], format: 'date-time' },
  }),
  type: ['object', 'null'],
} as const;

/** appealForModerator (common/usecases/appeal-context.ts): the appeal with what deciding it needs. */
const AppealDetail = {
  ...schemas.Appeal,
  required: [...schemas.Appeal.required, 'context'],
  properties: {
    ...schemas.Appeal.properties,
    context: closed({
      player: closed({
        serviceId: { type: 'string' },
        gamerTag: { type: 'string' },
        trustScore: { type: 'integer', minimum: 0, maximum: 100 },
        activeStrikes: { type: 'integer', minimum: 0 },
      }),
      offense: {
        ...closed({ record: ref('Reportoffense'), studioName: { type: 'string' }, case: caseSummary }),
        type: ['object', 'null'],
        description: 'The appealed offense in full, the studio that filed it, and its case.',
      },
      sanction: {
        ...closed({
          record: ref('Sanction'),
          issuedByName: { type: 'string', description: "A moderator's username or a studio's name." },
          scopeName: { type: ['string', 'null'], description: 'The studio it is limited to; null: global.' },
          case: caseSummary,
        }),
        type: ['object', 'null'],
        description: 'The appealed sanction, who placed it and where it applies, and its case.',
      },
      recentOffenses: {
        type: 'array',
        items: ref('Reportoffense'),
        description: "The player's latest offenses, newest first.",
      },
      ifGranted: {
        ...closed({
          strikeRemoved: {
            type: 'boolean',
            description: "Whether granting removes an active strike (the upheld case's).",
          },
          sanctionsRevoked: {
            type: 'array',
            items: closed({
              record: ref('Sanction'),
              issuedByName: { type: 'string' },
              scopeName: { type: ['string', 'null'] },
              appealed: {
                type: 'boolean',
                description: 'The sanction the appeal names (it cannot be kept).',
              },
            }),
            description:
              'The sanctions in force that the contested decision placed: granting revokes each, unless the decision keeps it (keep).',
          },
        }),
        type: ['object', 'null'],
        description:
          "What granting the appeal undoes besides an offense's points (see decide); null once decided.",
      },
    }),
  },
} as const;

/** A statement of reasons (common/domain/statement-of-reasons.ts). */
const StatementOfReasons = closed({
  id: { type: 'string', description: "The offense's or the sanction's id: what an appeal names." },
  kind: { enum: ['offense', 'sanction'] },
  decidedAt: dateTime,
  decision: { type: 'string', description: 'What was decided, in words.' },
  scope: {
    oneOf: [
      closed({ kind: { const: 'global' } }),
      closed({ kind: { const: 'studio' }, name: { type: 'string' } }),
    ],
    description: 'Where it applies: every game, or the games of one studio.',
  },
  period: {
    ...closed({ startsAt: dateTime, endsAt: { type: ['string', 'null'], format: 'date-time' } }),
    type: ['object', 'null'],
    description: "A sanction's period (endsAt null: no end); null for points.",
  },
  facts: {
    type: 'string',
    description: 'The facts it rests on; never who reported, nor what a studio wrote.',
  },
  ground: { type: 'string', description: 'The rule applied, or the reason given to the player.' },
  automated: { type: 'boolean', description: 'Whether automated means took the decision.' },
  automatedMeans: { type: ['string', 'null'], description: 'Which automated means, in words.' },
  state: { type: 'string', description: 'Where it stands now, in words.' },
  redress: {
    type: 'string',
    description:
      "The player's redress beyond an appeal here (DSA Art. 17(3)(f)): out-of-court dispute settlement (Art. 21) and the courts.",
  },
  appeal: closed({
    possible: { type: 'boolean', description: 'Whether an appeal can be filed now.' },
    deadline: { type: ['string', 'null'], format: 'date-time' },
    how: { type: 'string' },
    filed: {
      ...closed({
        id: { type: 'string' },
        status: { enum: [...APPEAL_STATUSES] },
        reason: { enum: [...APPEAL_REASONS] },
        statement: { type: 'string', description: "The player's own words, as filed." },
        decidedAt: { type: ['string', 'null'], format: 'date-time' },
        note: { type: ['string', 'null'] },
        remains: {
          type: 'array',
          items: { type: 'string' },
          description:
            'A granted appeal: each sanction of the decision the moderator kept in force, in words, with its ground.',
        },
      }),
      type: ['object', 'null'],
    },
  }),
});

export const viewSchemas = { ...schemas, AppealDetail, StatementOfReasons };

/**
 * Every named response schema of the document: these and the route contracts' own (api/routes/
 * <feature>/contract.ts `schemas`), given to Views by api/openapi.ts. A `$ref` resolves against
 * them.
 */
export type ViewSchemas = typeof viewSchemas;

/**
 * The TypeScript type of a response schema, derived from it by json-schema-to-ts: what renders the
 * schema is typed from it, so a view that drifts from its schema fails to compile instead of
 * failing a test. `Components` names the schemas a `$ref` may point to (the root of
 * `#/components/schemas/<name>`).
 */
export type FromView<S, Components = ViewSchemas> = S extends JSONSchema
  ? FromSchema<Inline<S, Components> extends infer T extends JSONSchema ? T : never>
  : { 'a response schema whose type is not literal (declare it `as const`)': S };
/**
 * A schema with each `$ref` to `#/components/schemas/<name>` replaced by that schema, before
 * json-schema-to-ts reads it (its own reference resolution goes too deep for the larger answers).
 */
type Inline<S, Components> = S extends {
  $ref: `#/components/schemas/${infer N extends keyof Components & string}`;
}
  ? Inline<Components[N], Components>
  : S extends object
    ? { [K in keyof S]: Inline<S[K], Components> }
    : S;
/** The type of one named view schema. */
export type View<N extends keyof ViewSchemas> = FromView<ViewSchemas[N]>;
