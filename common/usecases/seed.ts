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
import { createTemplate } from './templates.js';
import { lockDemoSeed, markDemoSeeded, shiftTemplateCreation } from '../data/repos/seed.js';

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
/** Decision templates of the demo data: what a team would keep first. */
export const DEMO_TEMPLATES = [
  {
    title: 'Cheating confirmed: 7-day ban',
    outcome: 'upheld',
    sanctionType: 'temporary_ban',
    durationSeconds: 7 * 86_400,
    playerReason: 'The replay and the anti-cheat data show you used software that gives an unfair advantage.',
  },
  {
    title: 'Abusive chat: 24-hour chat restriction',
    outcome: 'upheld',
    sanctionType: 'chat_restriction',
    durationSeconds: 86_400,
    playerReason: 'You sent messages that insult or harass other players, against the rules of conduct.',
  },
  {
    title: 'Not enough evidence: dismiss',
    outcome: 'dismissed',
    playerReason: 'The reports against you did not show a breach of the rules.',
  },
] as const;

export async function seedDemoOnce(
  pool: Pool,
  pepper: string,
  redirectUri: string,
): Promise<DemoData | undefined> {
  return withTransaction(pool, async (client) => {
    if (await lockDemoSeed(client)) return undefined;
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
    const admin = await createModerator(client, DEMO_MODERATOR);
    // A new moderator's first hour (README) starts with keys 1 to 3 in a case's decision panel.
    for (const [n, template] of DEMO_TEMPLATES.entries()) {
      const { id } = await createTemplate(client, admin.id, template);
      // One transaction, one now(): a millisecond apart, so their keys (1, 2, 3) follow this order.
      await shiftTemplateCreation(client, id, n);
    }
    await markDemoSeeded(client);
    const { username, password, role } = DEMO_MODERATOR;
    return {
      game,
      players: DEMO_PLAYERS.map(({ serviceId, gamerTag, password }) => ({ serviceId, gamerTag, password })),
      moderator: { username, password, role },
    };
  });
}
