import type { Pool } from '../data/db.js';
import { passwordSignIn, type SignInResult } from './lockout.js';
import { playerAccountKey } from '../domain/players.js';

/** Player password sign-in (the authorization page), behind the lockout. */
export function signIn(
  pool: Pool,
  input: { gamerTag: string; password: string; address: string; now: Date },
): Promise<SignInResult<{ playerId: string; serviceId: string }>> {
  const gamerTag = input.gamerTag.trim();
  return passwordSignIn(pool, { ...input, accountKey: playerAccountKey(gamerTag) }, async () => {
    const { rows } = await pool.query<{ id: string; service_id: string; password_hash: string | null }>(
      'SELECT id, service_id, password_hash FROM players WHERE lower(gamer_tag) = lower($1)',
      [gamerTag],
    );
    const p = rows[0];
    return p && { account: { playerId: p.id, serviceId: p.service_id }, passwordHash: p.password_hash };
  });
}
