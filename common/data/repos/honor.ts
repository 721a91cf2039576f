import { HONOR_START } from '../../domain/matches.js';

/**
 * Reading a player's honor (docs/studios.md "Commendations and honor"); common/lifecycles/honor.ts
 * writes it. SQL: a player's honor level, HONOR_START when nothing has moved it (`playerIdSql`: their
 * row id).
 */
export const HONOR_LEVEL_SQL = (playerIdSql: string) =>
  `coalesce((SELECT h.level FROM player_honor h WHERE h.player_id = ${playerIdSql}), ${HONOR_START})`;
