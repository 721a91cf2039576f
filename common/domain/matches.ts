import crypto from 'node:crypto';
import Joi from 'joi';
import { SERVICE_ID } from './players.js';

/**
 * Matches (issue 54; docs/studios.md "Matches"): a studio sends the matches its games finished, in
 * bulk, each once by its id. A match is a fact about who played with whom and how it went; the
 * service keeps it MATCH_RETENTION_DAYS (a month's partition dropped whole after that) and counts
 * the restrictions that last a number of matches down with it.
 */
export const MATCHES_BULK_MAX = 100;
export const MATCH_PLAYERS_MAX = 200;
export const MATCH_ID_MAX = 128;
export const MATCH_MODE_MAX = 64;
export const MATCH_TEAM_MAX = 32;
export const MATCH_PARTY_MAX = 64;
/** The longest a match may last (a day): an end years after its start is a mistake, not a match. */
export const MATCH_LONGEST_MS = 24 * 3600_000;
/** How far in the future a match's end may be (clock skew between the game's servers and ours). */
export const MATCH_CLOCK_SKEW_MS = 5 * 60_000;
/** How many finished matches a restriction may last (docs/moderators.md "Sanctions"). */
export const SANCTION_MATCHES_MAX = 1000;
/** How many of the other players one player may commend after one match. */
export const COMMENDS_PER_PLAYER_MAX = 5;

/**
 * Commendations and honor (docs/studios.md "Commendations and honor"). Weights are in quarters of a
 * commendation: a whole one from outside the recipient's party, a quarter from within it, none when
 * the pair already commended (or the recipient commended the commender) within COMMEND_PAIR_DAYS, or
 * when the studio's signals link them strongly (an account commending its own alt).
 */
export const COMMEND_WEIGHT = { counted: 4, own_party: 1, repeat: 0, returned: 0, linked: 0 } as const;
export type CommendationWhy = keyof typeof COMMEND_WEIGHT;
export const COMMEND_PAIR_DAYS = 7;
/** Honor levels run from 0 to HONOR_MAX; a player starts at HONOR_START. */
export const HONOR_START = 2;
export const HONOR_MAX = 5;
/** Quarters of progress a level takes (25 whole commendations, or 100 finished matches). */
export const HONOR_LEVEL_QUARTERS = 100;
/** What a finished match adds to the progress, and what a match left early takes off (quarters). */
export const HONOR_FINISHED_QUARTERS = 1;
export const HONOR_LEFT_EARLY_QUARTERS = 8;
/** The levels a sanction other than a warning takes off (given back if it is revoked). */
export const HONOR_SANCTION_LEVELS = 2;
/**
 * How far each quarter earned (a finished match: one; a whole commendation: four) moves the trust
 * recovery clock back, and the most the credit may move it within one recovery period: half of it,
 * so matches and commendations at most double the speed of recovery.
 */
export const RECOVERY_CREDIT_PER_QUARTER_S = 3600;
export const RECOVERY_CREDIT_SHARE = 0.5;

export const MATCH_RESULTS = ['win', 'loss', 'draw'] as const;
export type MatchResult = (typeof MATCH_RESULTS)[number];

export interface MatchPlayerInput {
  serviceId: string;
  team: string;
  party?: string;
  result: MatchResult;
  leftEarly: boolean;
  /** The other players of the match this one commended (serviceIds). */
  commended?: string[];
}

export interface MatchInput {
  matchId: string;
  gameId?: string;
  mode: string;
  startedAt: Date;
  endedAt: Date;
  players: MatchPlayerInput[];
}

const id = (max: number) =>
  Joi.string()
    .trim()
    .min(1)
    .max(max)
    .pattern(/^[\x21-\x7e]+$/, 'printable');

export const matchPlayerSchema = Joi.object({
  serviceId: Joi.string().pattern(SERVICE_ID).required(),
  team: id(MATCH_TEAM_MAX).required().description("The player's team, as the game names it."),
  party: id(MATCH_PARTY_MAX).description(
    'The id of the party the player queued with (the same for every member); absent: alone.',
  ),
  result: Joi.string()
    .valid(...MATCH_RESULTS)
    .required(),
  leftEarly: Joi.boolean()
    .default(false)
    .description('Left before the end: the match does not count down a restriction.'),
  commended: Joi.array()
    .items(Joi.string().pattern(SERVICE_ID))
    .max(COMMENDS_PER_PLAYER_MAX)
    .unique()
    .description(
      'The other players of the match this player commended after it (docs/studios.md "Commendations and honor").',
    ),
});

/** One match as a studio sends it; checked on its own, so one bad match never refuses the others. */
export const matchSchema = Joi.object({
  matchId: id(MATCH_ID_MAX).required().description("The game's id of the match: a match is recorded once."),
  gameId: Joi.string().guid().description("One of the studio's games; default: the calling game."),
  mode: id(MATCH_MODE_MAX)
    .required()
    .description('The game mode (ranked, casual, ...), as the game names it.'),
  startedAt: Joi.date().iso().required(),
  endedAt: Joi.date().iso().required(),
  players: Joi.array().items(matchPlayerSchema).min(1).max(MATCH_PLAYERS_MAX).required(),
});

/** The envelope: the list itself is checked whole; each match on its own (matchProblems). */
export const matchesBodySchema = Joi.object({
  matches: Joi.array().items(Joi.any()).min(1).max(MATCHES_BULK_MAX).required(),
});

/** Why a match is rejected: each a code in the match's answer (POST /v1/matches). */
export const MATCH_REJECTIONS = [
  'validation_failed',
  'duplicate_player',
  'party_across_teams',
  'match_out_of_range',
  'unknown_game',
  'unknown_player',
  'match_conflict',
  'invalid_commendation',
] as const;
export type MatchRejection = (typeof MATCH_REJECTIONS)[number];

export interface ItemProblem {
  code: MatchRejection;
  message: string;
  fields?: { field: string; message: string }[];
}

/**
 * What is wrong with one match on its face (before anything is read): a player twice, a party on
 * two teams, an end before the start or in the future, a match longer than a day or older than the
 * service keeps matches. Null: nothing.
 */
export function matchProblem(m: MatchInput, now: Date, retentionDays: number): ItemProblem | null {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const p of m.players) (seen.has(p.serviceId) ? twice : seen).add(p.serviceId);
  if (twice.size)
    return {
      code: 'duplicate_player',
      message: `A player is in the match more than once: ${[...twice].slice(0, 10).join(', ')}.`,
    };
  const teamOfParty = new Map<string, string>();
  for (const p of m.players) {
    if (p.party === undefined) continue;
    const team = teamOfParty.get(p.party);
    if (team !== undefined && team !== p.team)
      return {
        code: 'party_across_teams',
        message: `The party ${p.party} has members on two teams (${team} and ${p.team}): a party plays on one team.`,
      };
    teamOfParty.set(p.party, p.team);
  }
  for (const p of m.players)
    for (const c of p.commended ?? []) {
      if (c === p.serviceId)
        return { code: 'invalid_commendation', message: `${p.serviceId} commended themselves.` };
      if (!seen.has(c))
        return {
          code: 'invalid_commendation',
          message: `${p.serviceId} commended ${c}, who is not a player of the match.`,
        };
    }
  const start = m.startedAt.getTime();
  const end = m.endedAt.getTime();
  if (end < start)
    return {
      code: 'match_out_of_range',
      message: 'The match ended before it started (endedAt < startedAt).',
    };
  if (end - start > MATCH_LONGEST_MS)
    return { code: 'match_out_of_range', message: 'The match lasted more than a day.' };
  if (end > now.getTime() + MATCH_CLOCK_SKEW_MS)
    return { code: 'match_out_of_range', message: 'The match ends in the future (endedAt).' };
  if (now.getTime() - end > retentionDays * 86_400_000)
    return {
      code: 'match_out_of_range',
      message: `The match ended more than ${retentionDays} days ago: older than the service keeps matches (MATCH_RETENTION_DAYS).`,
    };
  return null;
}

/**
 * A digest of who played and how: the same roster sent again is a repeat, another one under the same
 * id a conflict. Order-free (players sorted), over the resolved facts only.
 */
export function rosterDigest(m: Pick<MatchInput, 'players' | 'mode' | 'startedAt' | 'endedAt'>): Buffer {
  // The commendations are part of the roster only when some are given, so a roster sent before
  // commendations existed keeps its digest.
  const lines = m.players
    .map((p) =>
      [
        p.serviceId,
        p.team,
        p.party ?? '',
        p.result,
        p.leftEarly ? '1' : '0',
        ...(p.commended?.length ? [[...p.commended].sort().join(',')] : []),
      ].join('\t'),
    )
    .sort();
  return crypto
    .createHash('sha256')
    .update([m.mode, m.startedAt.toISOString(), m.endedAt.toISOString(), ...lines].join('\n'), 'utf8')
    .digest();
}

/** The month partition a match's end falls in: its name and bounds (UTC months). */
export function monthPartition(table: 'matches' | 'player_matches' | 'commendations', at: Date) {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  const tag = `${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
  return { name: `${table}_p${tag}`, from, to };
}
