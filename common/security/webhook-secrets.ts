import crypto from 'node:crypto';

const INFO = 'player-trust webhook signing secrets v1';

/** A webhook signing secret: 256 random bits, `whsec_<base64>` as Standard Webhooks has it, shown once. */
export const generateWebhookSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;

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

/**
 * Standard Webhooks (standardwebhooks.com) signing: the key is the secret's bytes (the base64 after
 * `whsec_`; Node's decoder also takes the base64url of secrets issued before Standard Webhooks), the
 * signed content is `<webhook-id>.<webhook-timestamp>.<raw body>`, and the header lists one
 * `v1,<base64 HMAC-SHA256>` per secret in use, space-separated (two during a rotation's overlap).
 */
export function signWebhook(
  secrets: readonly string[],
  messageId: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const mac = crypto
        .createHmac('sha256', key)
        .update(`${messageId}.${timestamp}.${body}`)
        .digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}

/** The three Standard Webhooks headers of one delivery attempt. */
export const standardWebhookHeaders = (
  secrets: readonly string[],
  messageId: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
) => ({
  'webhook-id': messageId,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signWebhook(secrets, messageId, timestamp, body),
});
