import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/** A client secret: 256 random bits, shown once to the operator. */
export function generateClientSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function generateClientId(): string {
  return `gm_${crypto.randomBytes(12).toString('base64url')}`;
}

/**
 * A client secret has 256 bits of entropy, so a keyed fast hash is enough to make a stolen table
 * useless without the pepper, and it stays cheap at request rate (a slow password hash would not).
 */
export function hashClientSecret(secret: string, pepper: string): Buffer {
  return crypto.createHmac('sha256', pepper).update(secret, 'utf8').digest();
}

export function secretMatches(secret: string, storedHash: Buffer, pepper: string): boolean {
  const candidate = hashClientSecret(secret, pepper);
  return candidate.length === storedHash.length && crypto.timingSafeEqual(candidate, storedHash);
}

// scrypt N=2^15, r=8, p=1: OWASP's minimum for interactive sign-in.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Player and moderator passwords: scrypt, encoded with its parameters so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scryptAsync(password.normalize('NFKC'), salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scryptAsync(
    password.normalize('NFKC'),
    Buffer.from(salt, 'base64url'),
    expected.length,
    {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: SCRYPT.maxmem,
    },
  );
  return crypto.timingSafeEqual(actual, expected);
}

// Verified against when the account is unknown, so that case costs the same scrypt time.
let dummyHash: Promise<string> | undefined;

/** verifyPassword, or the same work against a dummy hash when there is no account (no timing oracle). */
export async function verifyPasswordOrDummy(
  password: string,
  encoded: string | null | undefined,
): Promise<boolean> {
  dummyHash ??= hashPassword('dummy password for timing');
  const ok = await verifyPassword(password, encoded ?? (await dummyHash));
  return ok && Boolean(encoded);
}
