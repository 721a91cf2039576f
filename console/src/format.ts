import type { Appeal, Sanction } from './api';
import { NOTICE_CATEGORIES } from './generated/contract';

/**
 * A time as every screen writes it: UTC, with the zone said, as the player reads it on the standing
 * page (a moderator's local time without a zone was read as the player's).
 */
export const when = (iso: string | null | undefined) =>
  iso ? `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';

/** The sanction types in words; keyed by the document's own type, so a new one fails the build. */
export const SANCTION_WORDS: Record<Sanction['type'], string> = {
  warning: 'Warning',
  chat_restriction: 'Chat restriction',
  matchmaking_restriction: 'Matchmaking restriction',
  temporary_ban: 'Temporary ban',
  permanent_ban: 'Permanent ban',
};

/** The reasons a player gives for an appeal, in the words the player chose them by. */
export const APPEAL_REASON_WORDS: Record<Appeal['reason'], string> = {
  incorrect: 'The decision is wrong: I did not do this',
  compromised_account: 'Someone else used my account',
  unfair: 'The decision is too harsh',
  forgiveness: 'I understand, and ask for another chance',
};

export function age(iso: string) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function duration(seconds: number | null | undefined) {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} d`;
}

/** A link only for http(s) URLs; anything else (javascript:, data:) is shown as text, never a link. */
export function safeHttpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A category of the EU Transparency Database in the words the public notice form uses. */
export const categoryWords = (value: string) => NOTICE_CATEGORIES.find(([v]) => v === value)?.[1] ?? value;
