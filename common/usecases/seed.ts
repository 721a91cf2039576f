import type { Pool } from '../data/db.js';
import { withTransaction } from '../data/db.js';
import {
  linkPlayer,
  provisionGame,
  provisionPlayer,
  provisionStudio,
  type IssuedGame,
} from './provisioning.js';
import { createModerator } from './moderation.js';

export interface DemoData {
  game: IssuedGame;
  players: { serviceId: string; gamerTag: string; password: string }[];
  moderator?: { username: string; password: string; role: string };
}

/** An admin moderator for the review queue and the queue board (development data only). */
export const DEMO_MODERATOR = {
  username: 'demo-admin',
  displayName: 'Demo Admin',
  role: 'admin',
  password: 'demo-admin-password',
};

export const DEMO_PLAYERS = [
  {
    serviceId: 'demo-player-1',
    fullName: 'Ada Lovelace',
    gamerTag: 'countess',
    password: 'demo-password-1',
    kyc: true,
  },
  {
    serviceId: 'demo-player-2',
    fullName: 'Alan Turing',
    gamerTag: 'enigma',
    password: 'demo-password-2',
    kyc: false,
  },
];

/**
 * The PKCE verifier of the demo sign-in link `npm start` prints (development only): the demo
 * callback page writes it into the exchange command, so the command works as is.
 */
export const DEMO_PKCE_VERIFIER = 'demo-verifier-only-for-the-local-demo-game-0123456789';

/**
 * Seeds a demo studio, game and players once (a marker row makes re-runs no-ops). Returns the issued
 * credentials the first time, undefined afterwards: the secret exists only in that answer.
 */
export async function seedDemoOnce(
  pool: Pool,
  pepper: string,
  redirectUri: string,
): Promise<DemoData | undefined> {
  return withTransaction(pool, async (client) => {
    await client.query('CREATE TABLE IF NOT EXISTS demo_seed (seeded_at timestamptz NOT NULL DEFAULT now())');
    await client.query('LOCK TABLE demo_seed IN EXCLUSIVE MODE');
    const { rowCount } = await client.query('SELECT 1 FROM demo_seed');
    if (rowCount) return undefined;
    const studio = await provisionStudio(client, { name: 'Demo Studio' });
    const game = await provisionGame(client, pepper, {
      studioId: studio.id,
      title: 'Demo Arena',
      redirectUris: [redirectUri],
    });
    for (const p of DEMO_PLAYERS) {
      await provisionPlayer(client, p);
      await linkPlayer(client, { serviceId: p.serviceId, clientId: game.clientId });
    }
    await createModerator(client, DEMO_MODERATOR);
    await client.query('INSERT INTO demo_seed DEFAULT VALUES');
    const { username, password, role } = DEMO_MODERATOR;
    return {
      game,
      players: DEMO_PLAYERS.map(({ serviceId, gamerTag, password }) => ({ serviceId, gamerTag, password })),
      moderator: { username, password, role },
    };
  });
}
