import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: Received, res: http.ServerResponse) => void;

/**
 * A loopback HTTP server that records every request and answers through a handler the test sets:
 * the stand-in for evidence hosts and studios' webhook receivers.
 */
export class TestHttpServer {
  readonly received: Received[] = [];
  handler: Handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const received = { method: req.method!, path: req.url!, headers: req.headers, body };
      this.received.push(received);
      this.handler(received, res);
    });
  });
  private readonly sockets = new Set<import('node:net').Socket>();

  constructor(private readonly host = '127.0.0.1') {
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/'): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  requestsTo(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

/** Polls until `fn` returns something truthy, or fails naming what it waited for. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined | false | null>,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`not met within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
