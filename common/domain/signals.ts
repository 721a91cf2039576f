import crypto from 'node:crypto';
import net from 'node:net';
import Joi from 'joi';
import { SANCTION } from './audit-words.js';
import { SERVICE_ID } from './players.js';
import type { SanctionType } from './sanctions.js';
import { utcWords } from './statement-of-reasons.js';

/**
 * Signals: what a studio knows about a player's sign-in or session (a device, an install, an
 * address, a payment instrument, a verified phone or e-mail, a platform account). The service keeps
 * only a keyed hash of each value (signalDigest), never the value; two accounts are linked when
 * they share values (docs/studios.md "Linked accounts").
 *
 * Each kind has a weight (how much sharing one value says the accounts are one person's), a cap (a
 * value held by more accounts than this links nobody: an internet café's address, a carrier's NAT,
 * a school's shared console) and a retention period (a value not seen for that long is deleted).
 */
export const SIGNAL_KINDS = [
  'hardware_id',
  'install_id',
  'ip_address',
  'payment_fingerprint',
  'phone',
  'email',
  'platform_account',
] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

export interface SignalKindRule {
  /** What the kind is in a sentence a player reads ("shares a device"): never the value. */
  noun: string;
  weight: number;
  /** A value shared by more accounts than this links nobody. */
  cap: number;
  retentionDays: number;
  description: string;
}

export const SIGNAL_RULES: Readonly<Record<SignalKind, SignalKindRule>> = Object.freeze({
  hardware_id: {
    noun: 'a device',
    weight: 0.9,
    cap: 4,
    retentionDays: 365,
    description: "A device's or console's hardware id (a household's shared console links its players).",
  },
  install_id: {
    noun: 'an installation of the game',
    weight: 0.7,
    cap: 2,
    retentionDays: 180,
    description: 'The id of one installation of the game.',
  },
  ip_address: {
    noun: 'a network',
    weight: 0.3,
    cap: 8,
    retentionDays: 30,
    description: 'An IP address, kept as its /24 (IPv4) or /48 (IPv6) network: weak on its own.',
  },
  payment_fingerprint: {
    noun: 'a payment instrument',
    weight: 0.9,
    cap: 3,
    retentionDays: 365,
    description: "A payment provider's fingerprint of a card or account (never the card number).",
  },
  phone: {
    noun: 'a verified phone number',
    weight: 0.8,
    cap: 2,
    retentionDays: 365,
    description: 'A phone number the game verified, in E.164 form (+ and 8 to 15 digits).',
  },
  email: {
    noun: 'a verified e-mail address',
    weight: 0.8,
    cap: 2,
    retentionDays: 365,
    description: 'An e-mail address the game verified (compared without case).',
  },
  platform_account: {
    noun: 'a platform account',
    weight: 0.95,
    cap: 2,
    retentionDays: 365,
    description: 'An account on a platform, as platform:id (steam:7656119..., psn:..., xbox:...).',
  },
});

/** A link at least this strong is strong: what the evasion check and extending a sanction use. */
export const STRONG_LINK = 0.8;

/** Signals in one call about one player, and in one bulk call. */
export const SIGNALS_PER_PLAYER_MAX = 20;
export const SIGNALS_BULK_MAX = 1000;
/** How far in the past a bulk call may date a sighting (the longest retention), and in the future. */
export const OBSERVED_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * How strong a link through these kinds is: one minus the chance that every shared kind is a
 * coincidence, each kind counted once however many of its values are shared (two IP addresses of
 * one household are still one household). Rounded to two places.
 */
export function linkStrength(kinds: Iterable<SignalKind>): number {
  let apart = 1;
  for (const k of new Set(kinds)) apart *= 1 - SIGNAL_RULES[k].weight;
  return Math.round((1 - apart) * 100) / 100;
}

/** An IPv4 address's /24, an IPv6 address's /48 (an IPv4-mapped IPv6 address as IPv4); undefined if not an address. */
export function ipPrefix(address: string): string | undefined {
  let a = address.trim();
  if (a.toLowerCase().startsWith('::ffff:') && net.isIPv4(a.slice(7))) a = a.slice(7);
  if (net.isIPv4(a)) {
    const [x, y, z] = a.split('.').map(Number);
    return `${x}.${y}.${z}.0/24`;
  }
  if (!net.isIPv6(a)) return undefined;
  const [head = '', tail = ''] = a.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  // An IPv6 address whose last part is dotted IPv4 (::1.2.3.4): that part is two groups, outside the /48.
  const groups = a.includes('::')
    ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t]
    : h;
  return `${groups
    .slice(0, 3)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/48`;
}

const PRINTABLE = /^[\x21-\x7e]+$/;

/** The value as it is hashed: each kind's normal form, so the same thing sent two ways is one value. */
export function normalizeSignal(kind: SignalKind, value: string): string | undefined {
  const v = value.trim();
  switch (kind) {
    case 'ip_address':
      return ipPrefix(v);
    case 'phone': {
      const digits = v.replace(/[\s().-]/g, '');
      return /^\+[1-9]\d{7,14}$/.test(digits) ? digits : undefined;
    }
    case 'email': {
      const e = v.toLowerCase();
      return /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(e) && e.length <= 254 ? e : undefined;
    }
    case 'platform_account': {
      const m = /^([a-z][a-z0-9_-]{1,19}):(\S{1,128})$/i.exec(v);
      return m ? `${m[1]!.toLowerCase()}:${m[2]}` : undefined;
    }
    default:
      // Opaque ids: compared exactly, without case (hex ids arrive in both).
      return PRINTABLE.test(v) ? v.toLowerCase() : undefined;
  }
}

/** What the value of each kind must look like, for the 400 that refuses it. */
const VALUE_FORMS: Record<SignalKind, string> = {
  hardware_id: '1 to 256 printable characters without spaces',
  install_id: '1 to 256 printable characters without spaces',
  ip_address: 'an IPv4 or IPv6 address',
  payment_fingerprint: '1 to 256 printable characters without spaces',
  phone: 'a phone number in E.164 form (+ and 8 to 15 digits)',
  email: 'an e-mail address',
  platform_account: 'platform:id (such as steam:76561198000000000)',
};

/** One signal as a studio sends it: the kind and the raw value, normalised on the way in. */
const signalValue = Joi.string()
  .min(1)
  .max(256)
  .custom((value: string, helpers) => {
    const kind = (helpers.state.ancestors[0] as { kind?: unknown }).kind;
    if (typeof kind !== 'string' || !(SIGNAL_KINDS as readonly string[]).includes(kind)) return value;
    return normalizeSignal(kind as SignalKind, value) === undefined
      ? helpers.message({ custom: `must be ${VALUE_FORMS[kind as SignalKind]} for ${kind}` })
      : value;
  });

const observedAt = Joi.date()
  .iso()
  .description('When the game saw it (ISO 8601); the time of the call when absent.');

export const signalItem = Joi.object({
  kind: Joi.string()
    .valid(...SIGNAL_KINDS)
    .required(),
  value: signalValue
    .required()
    .description(
      `The raw value, hashed on arrival and never stored. Its form depends on the kind: ${SIGNAL_KINDS.map((k) => `${k}: ${VALUE_FORMS[k]}`).join('; ')}.`,
    ),
});

export const playerSignalsSchema = Joi.object({
  signals: Joi.array().items(signalItem).min(1).max(SIGNALS_PER_PLAYER_MAX).required(),
  observedAt,
});

export const bulkSignalsSchema = Joi.object({
  signals: Joi.array()
    .items(
      signalItem.keys({
        serviceId: Joi.string().pattern(SERVICE_ID).required(),
        observedAt,
      }),
    )
    .min(1)
    .max(SIGNALS_BULK_MAX)
    .required(),
});

/**
 * The keyed hash of a value: HMAC-SHA256 under the deployment's signal key over the studio, the
 * kind and the normal form, so the same device sent by two studios is two values (no studio's
 * signals can link its players to another studio's) and a stolen table names nothing without the key.
 */
export function signalDigest(key: Buffer, studioId: string, kind: SignalKind, normalized: string): Buffer {
  return crypto.createHmac('sha256', key).update(`${studioId}\n${kind}\n${normalized}`, 'utf8').digest();
}

/** A key's public name: what a signal row records it was hashed under (never the key). */
export const signalKeyId = (key: Buffer) =>
  crypto.createHash('sha256').update(key).digest('base64url').slice(0, 8);

/** The signal keys: the current one, and the previous ones still matched until their values are seen again. */
export interface SignalKeys {
  current: { id: string; key: Buffer };
  previous: { id: string; key: Buffer }[];
}

/**
 * The keys from configuration: SIGNAL_HASH_KEY, or (unset) one derived from the client-secret pepper
 * with HKDF, so a deployment has a signal key without a new secret to keep; SIGNAL_PREVIOUS_HASH_KEYS
 * after a rotation.
 */
export function signalKeysFrom(
  configured: string | undefined,
  previous: readonly string[],
  pepper: string,
): SignalKeys {
  const k = (secret: string) => {
    const key = Buffer.from(secret, 'utf8');
    return { id: signalKeyId(key), key };
  };
  const current = configured
    ? k(configured)
    : (() => {
        const key = Buffer.from(crypto.hkdfSync('sha256', pepper, 'player-trust', 'signal-hash-key', 32));
        return { id: signalKeyId(key), key };
      })();
  return { current, previous: previous.filter((p) => p && p !== configured).map(k) };
}

/**
 * The ground a sanction extended to a linked account gives its player (docs/studios.md "Linked accounts"):
 * what the accounts share and the decision extended (its kind, where, when), as the decision holds
 * them; never the other account or the words of its reason.
 */
export function extensionGround(
  original: { type: SanctionType; scopeStudioId: string | null; startsAt: Date },
  kinds: readonly SignalKind[],
): string {
  const shared = kinds.map((k) => SIGNAL_RULES[k].noun);
  const list = shared.length > 1 ? `${shared.slice(0, -1).join(', ')} and ${shared.at(-1)}` : shared[0];
  const where = original.scopeStudioId ? "in this studio's games" : 'in every game';
  return `This account shares ${list} with an account that was given ${SANCTION[original.type]} ${where} on ${utcWords(original.startsAt)}. A moderator extended that decision to this account because of this link.`;
}
