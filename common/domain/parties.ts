import type { SanctionType } from './sanctions.js';

/**
 * Parties at the lobby check (issue 54; docs/studios.md "Parties at the lobby check"). A party
 * queues and is matched as one: at its lowest member's trust (as Counter-Strike 2 matches a party on
 * its lowest trust factor), and into the low-priority queue with any member under a matchmaking
 * restriction (as Dota 2 sends the whole party). The lobby check tells the matchmaker, for each party
 * it names, the party's trust and a warning for each member who lowers it, so it can tell the party
 * before it queues (the member's reason is theirs to tell, never the others').
 */
export const LOBBY_PARTIES_MAX = 50;
export const PARTY_MEMBERS_MAX = 20;
export const PARTY_ID_MAX = 64;
/**
 * A member lowers the party's trust when their score is at least this many points below the lowest
 * of the others': a few points are noise, this many move the party into another bracket.
 */
export const PARTY_TRUST_GAP = 10;

export const PARTY_WARNINGS = [
  'banned',
  'matchmaking_restriction',
  'low_trust',
  'evasion_suspected',
] as const;
export type PartyWarningCode = (typeof PARTY_WARNINGS)[number];

export interface PartyMember {
  serviceId: string;
  trustScore: number;
  activeSanctions: {
    id: string;
    type: SanctionType;
    expiresAt: Date | null;
    matchesLeft: number | null;
  }[];
  evasionSuspected: boolean;
}

export interface PartyWarning {
  serviceId: string;
  code: PartyWarningCode;
  message: string;
  /** banned, matchmaking_restriction: the sanction in force (the longest-lasting one). */
  sanctionId?: string;
  /** low_trust: how many points the member takes off the party's trust. */
  lowersBy?: number;
}

export interface PartyStanding {
  /** The party's trust: its lowest known member's (null: no member is known). */
  trustScore: number | null;
  /** Whether the party goes to the low-priority queue: a member is under a matchmaking restriction. */
  lowPriority: boolean;
  /** Whether the party can queue at all: no member is banned. */
  canQueue: boolean;
  warnings: PartyWarning[];
}

const BANS: readonly SanctionType[] = ['temporary_ban', 'permanent_ban'];

/** The sanction of `types` that lasts longest (no end first, then the latest end, then most matches). */
function longest(member: PartyMember, types: readonly SanctionType[]) {
  const hits = member.activeSanctions.filter((s) => types.includes(s.type));
  hits.sort((a, b) => {
    const ea = a.expiresAt?.getTime() ?? Infinity;
    const eb = b.expiresAt?.getTime() ?? Infinity;
    return eb - ea || (b.matchesLeft ?? 0) - (a.matchesLeft ?? 0) || a.id.localeCompare(b.id);
  });
  return hits[0];
}

/**
 * A party's standing from its known members' (in the order given; warnings in that order, a member's
 * in the order of PARTY_WARNINGS). A member lowers the party when banned, under a matchmaking
 * restriction, at least PARTY_TRUST_GAP points below the lowest of the other members, or suspected of
 * evading a ban. A chat restriction does not lower a party: it restricts the member's chat only.
 */
export function partyStanding(members: readonly PartyMember[]): PartyStanding {
  const warnings: PartyWarning[] = [];
  for (const m of members) {
    const ban = longest(m, BANS);
    if (ban)
      warnings.push({
        serviceId: m.serviceId,
        code: 'banned',
        sanctionId: ban.id,
        message: `${m.serviceId} is banned: the party cannot queue with them.`,
      });
    const mm = longest(m, ['matchmaking_restriction']);
    if (mm)
      warnings.push({
        serviceId: m.serviceId,
        code: 'matchmaking_restriction',
        sanctionId: mm.id,
        message:
          mm.matchesLeft !== null
            ? `${m.serviceId} is under a matchmaking restriction for ${mm.matchesLeft} more finished ${mm.matchesLeft === 1 ? 'match' : 'matches'}: the party queues in low priority with them.`
            : `${m.serviceId} is under a matchmaking restriction: the party queues in low priority with them.`,
      });
    const others = members.filter((o) => o !== m);
    if (others.length) {
      const lowestOther = Math.min(...others.map((o) => o.trustScore));
      const gap = lowestOther - m.trustScore;
      if (gap >= PARTY_TRUST_GAP)
        warnings.push({
          serviceId: m.serviceId,
          code: 'low_trust',
          lowersBy: gap,
          message: `${m.serviceId}'s trust lowers the party's by ${gap} points: the party is matched at its lowest member's trust.`,
        });
    }
    if (m.evasionSuspected)
      warnings.push({
        serviceId: m.serviceId,
        code: 'evasion_suspected',
        message: `${m.serviceId} is suspected of evading a ban (linked to a banned account); not a sanction by itself.`,
      });
  }
  return {
    trustScore: members.length ? Math.min(...members.map((m) => m.trustScore)) : null,
    lowPriority: warnings.some((w) => w.code === 'matchmaking_restriction'),
    canQueue: !warnings.some((w) => w.code === 'banned'),
    warnings,
  };
}
