import crypto from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import type { EvidenceItem } from '../../common/domain/reports.js';
import { AddressPolicy } from '../../common/net/addresses.js';
import { OutboundError, safeFetch } from '../../common/net/safe-fetch.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';

/** Longest text kept after normalisation (the longest input, anti-cheat logs, is 20,000). */
export const TEXT_MAX_CHARS = 20_000;
const MAX_REDIRECTS = 3;

export interface TextEnrichment {
  kind: 'text';
  chars: number;
  lines: number;
  sha256: string;
  truncated: boolean;
  enrichedAt: string;
}

export interface UrlEnrichment {
  kind: 'url';
  reachable: boolean;
  status: number | null;
  contentType: string | null;
  bytes: number | null;
  truncated: boolean;
  sha256: string | null;
  finalUrl: string | null;
  /** Set when the evidence could not be fetched for good (permanent, or retries exhausted). */
  error: { code: string; message: string } | null;
  attempts: number;
  enrichedAt: string;
}

export type EnrichedItem = EvidenceItem & { enrichment?: TextEnrichment | UrlEnrichment };

// Control characters other than tab and newline; \r is folded into newlines first.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text and logs as stored: NFC, newlines only, no control characters, at most TEXT_MAX_CHARS. */
export function normaliseText(content: string, now: Date): { content: string; enrichment: TextEnrichment } {
  const cleaned = content.normalize('NFC').replace(/\r\n?/g, '\n').replace(CONTROL, '');
  const truncated = cleaned.length > TEXT_MAX_CHARS;
  const text = truncated ? cleaned.slice(0, TEXT_MAX_CHARS) : cleaned;
  return {
    content: text,
    enrichment: {
      kind: 'text',
      chars: text.length,
      lines: text === '' ? 0 : text.split('\n').length,
      sha256: crypto.createHash('sha256').update(text, 'utf8').digest('hex'),
      truncated,
      enrichedAt: now.toISOString(),
    },
  };
}

type UrlOutcome = { final: UrlEnrichment } | { retry: string };

/**
 * A fetch result as enrichment, or a reason to retry: a timeout, a refused connection, a 5xx or a
 * 429 may pass; a refused address, a bad URL or another 4xx will not, so they are recorded at once.
 */
async function fetchEvidence(
  url: string,
  deps: ProcessorDeps,
  policy: AddressPolicy,
  attempt: number,
  lastAttempt: boolean,
): Promise<UrlOutcome> {
  const base = { kind: 'url' as const, attempts: attempt, enrichedAt: new Date().toISOString() };
  try {
    const res = await safeFetch({
      url,
      policy,
      timeoutMs: deps.config.evidenceFetchTimeoutMs,
      maxBytes: deps.config.evidenceFetchMaxBytes,
      maxRedirects: MAX_REDIRECTS,
    });
    const transient = res.status >= 500 || res.status === 429 || res.status === 408;
    if (transient && !lastAttempt) return { retry: `HTTP ${res.status}` };
    const ok = res.status >= 200 && res.status < 300;
    return {
      final: {
        ...base,
        reachable: true,
        status: res.status,
        contentType: res.contentType,
        bytes: res.bytesRead,
        truncated: res.truncated,
        sha256: res.sha256,
        finalUrl: res.finalUrl,
        error: ok ? null : { code: 'http_error', message: `the server answered ${res.status}` },
      },
    };
  } catch (err) {
    const failure =
      err instanceof OutboundError ? err : new OutboundError('connection_failed', String(err), true);
    if (failure.transient && !lastAttempt) return { retry: failure.message };
    return {
      final: {
        ...base,
        reachable: false,
        status: null,
        contentType: null,
        bytes: null,
        truncated: false,
        sha256: null,
        finalUrl: null,
        error: { code: failure.code, message: failure.message },
      },
    };
  }
}

const sameItem = (a: EvidenceItem, b: EvidenceItem) =>
  a.type === b.type && a.url === b.url && a.content === b.content;

/**
 * Evidence enrichment. Text and logs are normalised and measured; URL evidence is fetched through
 * safeFetch (no private, loopback, link-local or metadata address on any hop) and its status, type,
 * size, hash and final URL recorded. The network work happens outside any transaction; results are
 * then merged by compare-and-set into items that are still unenriched, so a re-run (a retry, or a
 * stalled job picked up again) changes nothing twice. Transient failures make the job
 * fail and retry with backoff; on its last attempt they are recorded as failures instead.
 */
export const enrichmentProcessor = (deps: ProcessorDeps) => {
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  return async (job: Job) => {
    const { offenseId } = parseOffenseJob(job);
    const { rows } = await deps.pool.query<{ evidence: EnrichedItem[] }>(
      'SELECT evidence FROM offenses WHERE id = $1',
      [offenseId],
    );
    if (!rows[0]) throw new UnrecoverableError(`offense ${offenseId} does not exist`);
    const attempt = job.attemptsMade + 1;
    const lastAttempt = attempt >= (job.opts.attempts ?? 1);
    const now = new Date();

    const retries: string[] = [];
    const results = await Promise.all(
      rows[0].evidence.map(async (item): Promise<EnrichedItem | undefined> => {
        if (item.enrichment) return undefined;
        if (item.type === 'text' && item.content !== undefined) {
          const { content, enrichment } = normaliseText(item.content, now);
          return { ...item, content, enrichment };
        }
        if (item.url === undefined) return undefined;
        const outcome = await fetchEvidence(item.url, deps, policy, attempt, lastAttempt);
        if ('retry' in outcome) {
          retries.push(`${item.url}: ${outcome.retry}`);
          return undefined;
        }
        return { ...item, enrichment: outcome.final };
      }),
    );

    // Compare-and-set: write only over the evidence this job read. If it changed meanwhile (another
    // run of the same job), read again and merge the same results into what is there now: one
    // SELECT and one UPDATE where a locking transaction took five round trips.
    let current = rows[0].evidence;
    let enriched = 0;
    for (let round = 0; ; round++) {
      let changed = 0;
      const evidence = current.map((item, i) => {
        const result = results[i];
        if (!result || item.enrichment || !sameItem(item, rows[0]!.evidence[i]!)) return item;
        changed++;
        return result;
      });
      if (!changed) break;
      const res = await deps.pool.query(
        'UPDATE offenses SET evidence = $2, updated_at = now() WHERE id = $1 AND evidence = $3::jsonb',
        [offenseId, JSON.stringify(evidence), JSON.stringify(current)],
      );
      if (res.rowCount) {
        enriched = changed;
        break;
      }
      if (round >= 5) throw new Error(`offense ${offenseId}: evidence kept changing; retrying the job`);
      const again = await deps.pool.query<{ evidence: EnrichedItem[] }>(
        'SELECT evidence FROM offenses WHERE id = $1',
        [offenseId],
      );
      current = again.rows[0]!.evidence;
    }
    // Throwing after the write keeps what succeeded and lets BullMQ retry the rest with backoff.
    if (retries.length)
      throw new Error(`evidence not reachable yet (attempt ${attempt}): ${retries.join('; ')}`);
    return { offenseId, enrichedItems: enriched };
  };
};
