import type { Pool } from '../data/db.js';
import { verifyPasswordOrDummy } from '../security/secrets.js';
import { clearFailures, lockedForSeconds, recordFailure } from './lockout.js';

export type SignInResult =
  | { ok: true; playerId: string; serviceId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfterSeconds: number };

/** Player password sign-in, behind the lockout of lockout.ts. */
export async function signIn(
  pool: Pool,
  input: { gamerTag: string; password: string; address: string; now: Date },
): Promise<SignInResult> {
  const keys = [`acct:${input.gamerTag.trim().toLowerCase()}`, `ip:${input.address}`];
  const wait = await lockedForSeconds(pool, keys, input.now);
  if (wait) return { ok: false, reason: 'locked', retryAfterSeconds: wait };

  const { rows } = await pool.query<{ id: string; service_id: string; password_hash: string | null }>(
    'SELECT id, service_id, password_hash FROM players WHERE lower(gamer_tag) = lower($1)',
    [input.gamerTag.trim()],
  );
  const player = rows[0];
  const ok = await verifyPasswordOrDummy(input.password, player?.password_hash);
  if (player && ok) {
    await clearFailures(pool, keys[0]!);
    return { ok: true, playerId: player.id, serviceId: player.service_id };
  }
  await recordFailure(pool, keys, input.now);
  return { ok: false, reason: 'invalid' };
}
