/**
 * A player's identifier in the service: 1 to 64 letters, digits, `_` or `-` (the players table
 * checks the same). "me" is reserved: `/v1/player/me` is the logged-in player.
 */
export const SERVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const RESERVED_SERVICE_IDS = ['me'] as const;
