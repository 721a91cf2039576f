import crypto from 'node:crypto';

const INFO = 'player-trust webhook signing secrets v1';

/** A webhook signing secret: 256 random bits, shown to the studio once. */
export const generateWebhookSecret = () => `whsec_${crypto.randomBytes(32).toString('base64url')}`;

const keyOf = (pepper: string) => Buffer.from(crypto.hkdfSync('sha256', pepper, Buffer.alloc(0), INFO, 32));

/** AES-256-GCM under a key derived from the server pepper: iv (12) | tag (16) | ciphertext. */
export function sealWebhookSecret(secret: string, pepper: string): Buffer {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(pepper), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function openWebhookSecret(sealed: Buffer, pepper: string): string {
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(pepper), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
}

export const SIGNATURE_HEADER = 'X-PlayerTrust-Signature';

/**
 * The signature header value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. Signing the
 * timestamp with the body lets receivers refuse replays of old deliveries.
 */
export function signWebhook(secret: string, body: string, timestamp: number): string {
  const mac = crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** What a receiver does: recompute and compare in constant time, within a tolerance. */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !parts.v1) return false;
  const expected = Buffer.from(signWebhook(secret, body, t).split('v1=')[1]!, 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
