/**
 * A player's identifier in the service: 1 to 64 letters, digits, `_` or `-` (the players table
 * checks the same). "me" is reserved: `/v1/player/me` is the logged-in player.
 */
export const SERVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const RESERVED_SERVICE_IDS = ['me'] as const;

/** What an erasure leaves where a player's own words were (docs/compliance.md "Personal data"). */
export const ERASED_WORDS = "Erased at the player's request.";
/** The same as an SQL literal, for the erasure's statements. */
export const ERASED_WORDS_SQL = `'${ERASED_WORDS.replace(/'/g, "''")}'`;

/** The sign-in lockout's key for a player's account (common/usecases/lockout.ts): their gamer tag, in any case. */
export const playerAccountKey = (gamerTag: string) => `acct:${gamerTag.trim().toLowerCase()}`;
