import crypto from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import DataLoader from 'dataloader';
import { batchedLoads } from '../../common/data/batching.js';
import { withRetries, type Pool } from '../../common/data/db.js';
import type { EvidenceItem } from '../../common/domain/reports.js';
import { AddressPolicy } from '../../common/net/addresses.js';
import { OutboundError, safeFetch } from '../../common/net/safe-fetch.js';
import type { ProcessorDeps } from '../run.js';
import { parseOffenseJob } from './offense-job.js';
import { WRITE_EVIDENCE } from '../../common/lifecycles/offense.js';

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
    if (transient && !lastAttempt) return { retry: `http_${res.status}` };
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
    // The code only: a message may name the host, and the job's error is kept in Redis.
    if (failure.transient && !lastAttempt) return { retry: failure.code };
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
 * fail and retry with backoff; on its last attempt they are recorded as failures instead. A job
 * names the offenses of a batch of reports (one, for a job of an earlier release); an offense that
 * no longer exists fails a one-offense job for good and is skipped in a batch's.
 */
export const enrichmentProcessor = (deps: ProcessorDeps) => {
  const policy = new AddressPolicy(deps.config.outboundAllowlist);
  const evidence = new EvidenceStore(deps.pool);

  /** One offense's evidence: how many items it enriched, and what should be tried again. */
  async function enrichOffense(
    offenseId: string,
    attempt: number,
    lastAttempt: boolean,
    now: Date,
  ): Promise<{ enriched: number; retries: string[] } | undefined> {
    const read = await evidence.read(offenseId);
    if (!read) return undefined;
    const retries: string[] = [];
    const results = await Promise.all(
      read.map(async (item, index): Promise<EnrichedItem | undefined> => {
        if (item.enrichment) return undefined;
        if (item.type === 'text' && item.content !== undefined) {
          const { content, enrichment } = normaliseText(item.content, now);
          return { ...item, content, enrichment };
        }
        if (item.url === undefined) return undefined;
        const outcome = await fetchEvidence(item.url, deps, policy, attempt, lastAttempt);
        if ('retry' in outcome) {
          // Ids only, never the link: a failed job's reason and stack stay in Redis for days, beyond
          // an erasure's reach (docs/compliance.md "Data map").
          retries.push(`offense ${offenseId} evidence ${index}: ${outcome.retry}`);
          return undefined;
        }
        return { ...item, enrichment: outcome.final };
      }),
    );

    // Compare-and-set: write only over the evidence this job read. If it changed meanwhile (another
    // run of the same job), read again and merge the same results into what is there now: one
    // read and one write (each shared with the jobs running alongside) where a locking
    // transaction took five round trips.
    let current = read;
    let enriched = 0;
    for (let round = 0; ; round++) {
      let changed = 0;
      const next = current.map((item, i) => {
        const result = results[i];
        if (!result || item.enrichment || !sameItem(item, read[i]!)) return item;
        changed++;
        return result;
      });
      if (!changed) break;
      if (await evidence.write(offenseId, next, current)) {
        enriched = changed;
        break;
      }
      if (round >= 5) throw new Error(`offense ${offenseId}: evidence kept changing; retrying the job`);
      const again = await evidence.read(offenseId);
      if (!again) return undefined;
      current = again;
    }
    return { enriched, retries };
  }

  return async (job: Job) => {
    const { offenseIds, batch } = parseOffenseJob(job);
    const attempt = job.attemptsMade + 1;
    const lastAttempt = attempt >= (job.opts.attempts ?? 1);
    const now = new Date();
    // The offenses of a batch's job, OFFENSES_AT_ONCE at a time (each fetches its URLs at once).
    const outcomes: ({ enriched: number; retries: string[] } | undefined)[] = [];
    for (let i = 0; i < offenseIds.length; i += OFFENSES_AT_ONCE)
      outcomes.push(
        ...(await Promise.all(
          offenseIds.slice(i, i + OFFENSES_AT_ONCE).map((id) => enrichOffense(id, attempt, lastAttempt, now)),
        )),
      );
    const missing = offenseIds.filter((_, i) => !outcomes[i]);
    if (missing.length === offenseIds.length || (!batch && missing.length))
      throw new UnrecoverableError(`offense ${missing.join(', ')} does not exist`);
    if (missing.length)
      deps.log.warn({ job: job.id, missing }, 'offenses of an enrichment job no longer exist');
    const retries = outcomes.flatMap((o) => o?.retries ?? []);
    // Throwing after the writes keeps what succeeded and lets BullMQ retry the rest with backoff;
    // the offenses already enriched are left alone by the next attempt.
    if (retries.length)
      throw new Error(`evidence not reachable yet (attempt ${attempt}): ${retries.join('; ')}`);
    const enrichedItems = outcomes.reduce((n, o) => n + (o?.enriched ?? 0), 0);
    return batch
      ? { offenses: offenseIds.length, enrichedItems, missing }
      : { offenseId: offenseIds[0], enrichedItems };
  };
};

/** Offenses of one job enriched at once. */
const OFFENSES_AT_ONCE = 16;

const batching = batchedLoads(50);

/**
 * Reads and compare-and-set writes of offenses' evidence. The reads and the writes of the jobs a
 * worker runs at once are batched (dataloader, as the API batches profile reads), so a busy worker
 * sends one statement, and commits once, for many jobs. Each write still succeeds or fails on its
 * own: it lands only where the evidence is still what that job read.
 */
class EvidenceStore {
  private readonly reads: DataLoader<string, EnrichedItem[] | undefined>;
  private readonly writes: DataLoader<{ id: string; next: string; expected: string }, boolean>;

  constructor(pool: Pool) {
    this.reads = new DataLoader(async (ids) => {
      const { rows } = await pool.query<{ id: string; evidence: EnrichedItem[] }>({
        name: 'evidence-read',
        text: 'SELECT id, evidence FROM offenses WHERE id = ANY($1::uuid[])',
        values: [[...new Set(ids)]],
      });
      const found = new Map(rows.map((r) => [r.id, r.evidence]));
      return ids.map((id) => found.get(id));
    }, batching);
    this.writes = new DataLoader(async (items) => {
      // Two writes to one offense in a batch (two runs of one job): the first goes now, the other
      // fails its compare-and-set like any loser and reads again.
      const first = new Map<string, number>();
      items.forEach((item, i) => {
        if (!first.has(item.id)) first.set(item.id, i);
      });
      const batch = [...first.values()].map((i) => items[i]!);
      const { rows } = await withRetries(() =>
        pool.query<{ id: string }>({
          name: 'evidence-write',
          text: WRITE_EVIDENCE,
          values: [batch.map((b) => b.id), batch.map((b) => b.next), batch.map((b) => b.expected)],
        }),
      );
      const written = new Set(rows.map((r) => r.id));
      return items.map((item, i) => first.get(item.id) === i && written.has(item.id));
    }, batching);
  }

  read(offenseId: string): Promise<EnrichedItem[] | undefined> {
    return this.reads.load(offenseId);
  }

  /** true when the evidence was still `expected` and is now `next`. */
  write(offenseId: string, next: EnrichedItem[], expected: EnrichedItem[]): Promise<boolean> {
    return this.writes.load({
      id: offenseId,
      next: JSON.stringify(next),
      expected: JSON.stringify(expected),
    });
  }
}
