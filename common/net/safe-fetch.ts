import crypto from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressPolicy } from './addresses.js';

/** Why an outbound request did not produce a response; `transient` failures are worth retrying. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly code:
      | 'invalid_url'
      | 'address_blocked'
      | 'dns_failed'
      | 'connection_failed'
      | 'timeout'
      | 'too_many_redirects',
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  url: string;
  policy: AddressPolicy;
  timeoutMs: number;
  /** Bytes of the body read (and hashed) at most; the rest is not downloaded. */
  maxBytes: number;
  /** Redirect hops followed, each checked like the first request; 0 returns the 3xx itself. */
  maxRedirects: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  contentType: string | null;
  /** Bytes read: the whole body unless `truncated`. */
  bytesRead: number;
  truncated: boolean;
  sha256: string;
  finalUrl: string;
  redirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TRANSIENT_DNS = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ESERVFAIL']);

/**
 * A DNS lookup that refuses the whole name when any of its addresses is refused (a name that also
 * resolves to a private address is not to be trusted), and hands the socket exactly the addresses it
 * checked, so nothing can change between the check and the connect.
 */
function guardedLookup(policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const refused = addresses.map((a) => policy.refusal(a.address)).find(Boolean);
      if (refused || addresses.length === 0)
        return callback(
          new OutboundError(
            'address_blocked',
            `${hostname} resolves to a refused address: ${refused}`,
            false,
          ),
          '',
          4,
        );
      if ((options as dns.LookupOptions).all) return (callback as unknown as LookupAll)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
type LookupAll = (err: null, addresses: dns.LookupAddress[]) => void;

function classify(err: unknown): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  // A name that does not resolve now may resolve later (a DNS outage, a record being fixed): retried.
  if (code === 'ENOTFOUND') return new OutboundError('dns_failed', 'the host name does not resolve', true);
  if (TRANSIENT_DNS.has(code)) return new OutboundError('dns_failed', `DNS lookup failed (${code})`, true);
  return new OutboundError(
    'connection_failed',
    `connection failed (${code || (err as Error).message})`,
    true,
  );
}

function parseTarget(text: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundError('invalid_url', 'not a URL', false);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundError('invalid_url', `${url.protocol} URLs are not fetched`, false);
  if (url.username || url.password)
    throw new OutboundError('invalid_url', 'URLs with credentials are not fetched', false);
  // A literal address never goes through the lookup hook, so it is checked here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const refused = policy.refusal(host);
    if (refused) throw new OutboundError('address_blocked', refused, false);
  }
  return url;
}

/** One hop: connects through the guarded lookup and reads at most maxBytes of the body. */
function requestOnce(url: URL, req: OutboundRequest, signal: AbortSignal) {
  return new Promise<{
    status: number;
    headers: http.IncomingHttpHeaders;
    bytes: number;
    truncated: boolean;
    sha256: string;
  }>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(url, {
      method: req.method ?? 'GET',
      headers: { 'user-agent': 'player-trust/1 (+evidence and webhooks)', ...req.headers },
      lookup: guardedLookup(req.policy),
      agent: false,
      signal,
    });
    outgoing.on('error', (err) => reject(signal.aborted ? signal.reason : classify(err)));
    outgoing.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const hash = crypto.createHash('sha256');
      let bytes = 0;
      let truncated = false;
      const done = () =>
        resolve({ status, headers: res.headers, bytes, truncated, sha256: hash.digest('hex') });
      if (REDIRECTS.has(status)) {
        res.resume();
        res.on('end', done);
        res.on('error', done);
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (bytes + chunk.length > req.maxBytes) {
          // Past the limit: hash what fits and stop downloading.
          hash.update(chunk.subarray(0, req.maxBytes - bytes));
          bytes = req.maxBytes;
          truncated = true;
          res.removeAllListeners();
          res.destroy();
          done();
          return;
        }
        hash.update(chunk);
        bytes += chunk.length;
      });
      res.on('end', done);
      res.on('error', (err) => reject(signal.aborted ? signal.reason : classify(err)));
    });
    outgoing.end(req.body);
  });
}

/**
 * Fetches a URL without ever reaching a refused address: the first request and every redirect hop
 * are checked (literal addresses before connecting, names in the lookup the socket connects with),
 * under one overall timeout and a byte limit on the body. Throws OutboundError when there is no
 * response to report; an HTTP error status is a response, returned like any other.
 */
export async function safeFetch(req: OutboundRequest): Promise<OutboundResponse> {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new OutboundError('timeout', `no complete answer within ${req.timeoutMs} ms`, true)),
    req.timeoutMs,
  );
  try {
    let url = parseTarget(req.url, req.policy);
    for (let hop = 0; ; hop++) {
      const res = await requestOnce(
        url,
        hop === 0 ? req : { ...req, method: 'GET', body: undefined },
        controller.signal,
      );
      const location = res.headers.location;
      if (REDIRECTS.has(res.status) && location && req.maxRedirects > 0) {
        if (hop >= req.maxRedirects)
          throw new OutboundError('too_many_redirects', `more than ${req.maxRedirects} redirects`, false);
        url = parseTarget(new URL(location, url).toString(), req.policy);
        continue;
      }
      return {
        status: res.status,
        contentType: res.headers['content-type'] ?? null,
        bytesRead: res.bytes,
        truncated: res.truncated,
        sha256: res.sha256,
        finalUrl: url.toString(),
        redirects: hop,
      };
    }
  } catch (err) {
    // requestOnce rejects with the timeout itself when the overall timer fired.
    throw classify(err);
  } finally {
    clearTimeout(timer);
  }
}
