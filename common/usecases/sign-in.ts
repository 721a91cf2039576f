import type { Pool } from '../data/db.js';
import { hashPassword, verifyPassword } from '../security/secrets.js';

export const MAX_FREE_FAILURES = 5;
// An address may be shared by many players (NAT, a LAN party): it gets more room than one account.
export const MAX_FREE_FAILURES_PER_ADDRESS = 50;
const WINDOW_MINUTES = 15;
const MAX_LOCK_SECONDS = 15 * 60;

export type SignInResult =
  | { ok: true; playerId: string; serviceId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfterSeconds: number };

// Verified against when the gamer tag is unknown, so that case costs the same scrypt time.
let dummyHash: Promise<string> | undefined;

/**
 * Password sign-in with a lockout against credential stuffing: after 5 failures within 15 minutes
 * on an account (50 from one address), each further failure locks it for twice as long as the last
 * (1 s, 2 s, 4 s ... at most 15 minutes). A success clears the account's count.
 */
export async function signIn(
  pool: Pool,
  input: { gamerTag: string; password: string; address: string; now: Date },
): Promise<SignInResult> {
  const keys = [`acct:${input.gamerTag.trim().toLowerCase()}`, `ip:${input.address}`];
  const { rows: locks } = await pool.query<{ wait: number }>(
    `SELECT ceil(extract(epoch FROM max(locked_until) - $2::timestamptz))::int AS wait
       FROM sign_in_failures WHERE key = ANY($1) AND locked_until > $2`,
    [keys, input.now],
  );
  const wait = locks[0]?.wait;
  if (wait && wait > 0) return { ok: false, reason: 'locked', retryAfterSeconds: wait };

  const { rows } = await pool.query<{ id: string; service_id: string; password_hash: string | null }>(
    'SELECT id, service_id, password_hash FROM players WHERE lower(gamer_tag) = lower($1)',
    [input.gamerTag.trim()],
  );
  const player = rows[0];
  dummyHash ??= hashPassword('dummy password for timing');
  const ok = await verifyPassword(input.password, player?.password_hash ?? (await dummyHash));
  if (player && player.password_hash && ok) {
    await pool.query('DELETE FROM sign_in_failures WHERE key = $1', [keys[0]]);
    return { ok: true, playerId: player.id, serviceId: player.service_id };
  }
  await pool.query(
    `INSERT INTO sign_in_failures AS f (key, failures, updated_at) SELECT k, 1, $2 FROM unnest($1::text[]) AS k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN f.updated_at < $2::timestamptz - make_interval(mins => $3) THEN 1 ELSE f.failures + 1 END,
       updated_at = $2,
       locked_until = CASE
         WHEN f.updated_at >= $2::timestamptz - make_interval(mins => $3)
              AND f.failures + 1 > (CASE WHEN f.key LIKE 'ip:%' THEN $6::int ELSE $4::int END)
         THEN $2::timestamptz + make_interval(secs =>
                LEAST(power(2, f.failures - (CASE WHEN f.key LIKE 'ip:%' THEN $6::int ELSE $4::int END)), $5))
         ELSE f.locked_until END`,
    [keys, input.now, WINDOW_MINUTES, MAX_FREE_FAILURES, MAX_LOCK_SECONDS, MAX_FREE_FAILURES_PER_ADDRESS],
  );
  return { ok: false, reason: 'invalid' };
}
