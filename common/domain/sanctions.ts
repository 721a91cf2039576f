/** What a trust decision can lead to, from a note on the record to a ban that never ends. */
export const SANCTION_TYPES = [
  'warning',
  'chat_restriction',
  'matchmaking_restriction',
  'temporary_ban',
  'permanent_ban',
] as const;
export type SanctionType = (typeof SANCTION_TYPES)[number];

/** The bans: what keeps a player out of the games (four eyes, the evasion check). */
export const BAN_TYPES: readonly SanctionType[] = ['temporary_ban', 'permanent_ban'];

/** The sanctions that may last a number of finished matches instead of a time (issue 54). */
export const COUNTED_IN_MATCHES: readonly SanctionType[] = ['chat_restriction', 'matchmaking_restriction'];

/** The sanctions that need a period; a warning may have one, a permanent ban may not. */
export const NEEDS_PERIOD: readonly SanctionType[] = [
  'chat_restriction',
  'matchmaking_restriction',
  'temporary_ban',
];
