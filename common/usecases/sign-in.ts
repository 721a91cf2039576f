import type { Pool } from '../data/db.js';
import { passwordSignIn, type SignInResult } from './lockout.js';
import { playerAccountKey } from '../domain/players.js';
import { playerCredentials } from '../data/repos/accounts.js';

/** Player password sign-in (the authorization page), behind the lockout. */
export function signIn(
  pool: Pool,
  input: { gamerTag: string; password: string; address: string; now: Date },
): Promise<SignInResult<{ playerId: string; serviceId: string }>> {
  const gamerTag = input.gamerTag.trim();
  return passwordSignIn(pool, { ...input, accountKey: playerAccountKey(gamerTag) }, async () => {
    const p = await playerCredentials(pool, gamerTag);
    return p && { account: { playerId: p.id, serviceId: p.serviceId }, passwordHash: p.passwordHash };
  });
}
